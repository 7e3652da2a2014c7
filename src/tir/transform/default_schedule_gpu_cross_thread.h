// DefaultGPUSchedule's cross-thread reduction rules (as TVM's dlight
// "Reduction" / "GeneralReduction"): a row at least kCrossThreadMinRow long is
// reduced by a thread block (one block per row, the row spread over
// threadIdx.x, each thread's partial combined by LowerCrossThreadReduction /
// LowerThreadAllreduce). Called by default_schedule_gpu_rows.cc (softmax,
// layer_norm) and the driver (a reduction over the last axes).
#pragma once

#include "tir/transform/default_gpu_schedule.h"

namespace tessera {
namespace tir {

// Rows shorter than this stay one thread per row (the rules below return false).
inline constexpr int64_t kCrossThreadMinRow = 128;
// A reduction with more outputs than this (conv2d) keeps one thread per output: the GPU is already full.
inline constexpr int64_t kCrossThreadMaxOutputs = 16384;

// The row kernel `stages` (RowKernelStages' blocks, the last the spatial
// output): rows fused on blockIdx.x, every stage's row loop over threadIdx.x,
// the per-row results in "shared". False (schedule unchanged) when the row is
// short, not constant, or a stage's reduction is not one the lowering takes.
bool ScheduleGPURowsCrossThread(Schedule* sch, const std::vector<std::string>& stages,
                                const DefaultGPUScheduleOptions& opt);

// A reduction block whose reduction loops (after its spatial ones) cover at
// least kCrossThreadMinRow iterations, with at most kCrossThreadMaxOutputs
// outputs (constant): spatial loops fused on blockIdx.x, the
// reduction fused and spread over threadIdx.x; a sole elementwise consumer of
// an intermediate result (mean's division) computed in the same thread block.
bool ScheduleGPUCrossThreadReduction(Schedule* sch, const BlockRV& block, const DefaultGPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
