// The conv2d rule of DefaultCPUSchedule (default_cpu_schedule.cc calls it
// for every block before its generic rules): the packed-weight convolution
// block of topi.nn.conv2d_nchw_packed ("conv2d_nchw_packed") gets a register
// tile of [width x output-channel block] accumulators.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// Schedules `block` when it is a packed conv2d block and returns true; else
// leaves the schedule alone and returns false. The block's consumer (the
// NCHW write-back with the fused epilogue) is computed per tile.
bool ScheduleConv2dPacked(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
