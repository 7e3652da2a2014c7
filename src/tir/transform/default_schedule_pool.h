// The window-reduction rule of DefaultCPUSchedule (default_cpu_schedule.cc
// calls it for every block before its generic rules): pooling
// (topi.nn.pool2d's "pool_max", "pool_sum") and depthwise convolution
// ("group_conv2d_nchw" with one input channel per group) get a register tile
// of rows x vector accumulators, the vector width a divisor of the output width.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// PassContext switch (default true): a padding stage stored deinterleaved by a
// column stride is copied S columns per unrolled step (see PartitionByStride
// in default_schedule_pool.cc); false keeps the column-by-column scatter.
inline constexpr const char* kStridedPadCopyOption = "tir.default_schedule.strided_pad_copy";

// Schedules `block` when it is a pooling or depthwise window reduction and returns true;
// else leaves the schedule alone and returns false.
bool SchedulePool2d(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
