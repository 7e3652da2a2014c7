// The Winograd rule of DefaultCPUSchedule (default_cpu_schedule.cc calls it for
// every block before its generic rules): the stages of topi.nn.conv2d_nchw_winograd
// ("winograd_*" blocks, python/tessera/topi/nn/conv2d_winograd.py) on the CPU.
// The batched GEMM ("winograd_bgemm") is left to the packed matmul rule.
#pragma once

#include <string>

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// Whether DefaultCPUSchedule's inlining keeps the spatial block `name` as a
// stage of its own: the Winograd transforms are ("winograd_" blocks but the
// final NCHW write, which is inlined into a fused epilogue).
bool KeepWinogradStage(const std::string& name);

// Schedules `block` when it is the column pass of the data transform
// ("winograd_data_pack") or the final write reading the inverse transform
// (the output, or the fused epilogue it was inlined into) and returns true;
// else leaves the schedule alone and returns false.
bool ScheduleWinograd(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
