// DefaultCPUSchedule's rule for row kernels (softmax, log_softmax,
// layer_norm, a row reduction and its elementwise consumer): every stage of
// one row computed under one parallel row loop, each stage vectorized, the
// row's intermediates in per-thread buffers. Called from
// default_cpu_schedule.cc once per function, before the per-block rules.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// The PassContext config key; false leaves such functions to the per-block
// rules (one parallel nest per stage; default true).
inline constexpr const char* kRowKernelOption = "tir.default_schedule.row_kernels";

// When the function's last block is spatial over loops (rows..., c) and every
// other block loops over the same rows then one loop (a reduction along the
// row, or a spatial loop along it), with at least one reduction, schedules
//   [rows: fused, parallel]
//     [stage 1] [stage 2] ... [last block]   (each over one row)
// where a reduction along a contiguous row is rfactored by the vector width
// (vector partial results, reduced once) and a spatial stage is split by the
// vector width and vectorized; returns true. Otherwise leaves `sch` as it was
// and returns false.
bool ScheduleRowKernel(Schedule* sch, const DefaultCPUScheduleOptions& opt);

// The blocks of a function of that shape in program order (the last one the
// spatial output), or nullopt (the GPU row rule, default_schedule_gpu_rows.cc).
std::optional<std::vector<std::string>> RowKernelStages(const PrimFunc& func);

}  // namespace tir
}  // namespace tessera
