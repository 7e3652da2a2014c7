// The conv2d rule of DefaultCPUSchedule (default_cpu_schedule.cc calls it
// for every block before its generic rules): the packed-weight convolution
// block of topi.nn.conv2d_nchw_packed ("conv2d_nchw_packed") gets a register
// tile of [width x output-channel block] accumulators.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// PassContext switch: False keeps the packed conv2d's NCHW write-back (the
// transposed X x fi tile with the fused epilogue) scalar instead of a vector
// along the tile's X output columns.
inline constexpr const char* kConvVectorEpilogueOption = "tir.default_schedule.conv_vector_epilogue";

// Schedules `block` when it is a packed conv2d block and returns true; else
// leaves the schedule alone and returns false. The block's consumer (the
// NCHW write-back with the fused epilogue) is computed per tile.
bool ScheduleConv2dPacked(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

// Shared by the window rule (default_schedule_pool.cc): the block's output
// cached in a "local" tile written back under `tile`, and the block's single
// consumer (the fused epilogue) computed there too, its innermost loop
// vectorized when `vectorize_consumer` (a consumer step refused is skipped).
// Returns the write-back block.
BlockRV CacheWriteTile(Schedule* sch, const BlockRV& block, const LoopRV& tile, bool vectorize_consumer);

}  // namespace tir
}  // namespace tessera
