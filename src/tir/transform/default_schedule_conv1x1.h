// The 1x1-convolution rule of DefaultCPUSchedule (default_cpu_schedule.cc
// calls it for every block before its generic rules): the GEMM block of
// topi.nn.conv2d_nchw_1x1 ("conv2d_nchw_1x1", a 1x1 stride-1 unpadded conv
// over NCHW) vectorized along the fused height x width and register-blocked
// over output channels, writing NCHW directly.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// PassContext config: false keeps the pixel tiles ungrouped (one pixel tile,
// then every output-channel tile: the schedule before the pixel blocks).
inline constexpr const char* kConv1x1PixelBlocksOption = "tir.default_schedule.conv1x1_pixel_blocks";

// Schedules `block` when it is a conv2d_nchw_1x1 block and returns true; else
// leaves the schedule alone and returns false. Its single consumer (the fused
// epilogue, or the write-back to an output parameter) is computed per tile.
bool ScheduleConv2d1x1(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
