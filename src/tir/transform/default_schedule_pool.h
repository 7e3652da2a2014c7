// The pooling rule of DefaultCPUSchedule (default_cpu_schedule.cc calls it
// for every block before its generic rules): the window reductions of
// topi.nn.pool2d ("pool_max", "pool_sum") get a register tile of rows x
// vector accumulators, the vector width a divisor of the output width.
#pragma once

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// Schedules `block` when it is a pool2d window reduction and returns true;
// else leaves the schedule alone and returns false.
bool SchedulePool2d(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
