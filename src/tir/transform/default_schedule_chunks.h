// How many iterations the default schedules' parallel loops want per core
// (DefaultCPUSchedule's rules, e.g. the Winograd write and the 1x1 conv's
// pixel blocks): with tir.default_schedule.parallel_chunks on (the default),
// kChunksPerCore, so a late or slower thread is balanced by the pool's
// stealing; off, one (the earlier choice). Schedule layer.
#pragma once

#include <cstdint>

#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

inline constexpr const char* kParallelChunksOption = "tir.default_schedule.parallel_chunks";
inline constexpr int64_t kChunksPerCore = 4;

// The parallel iterations wanted for `opt`'s cores (at least 1).
inline int64_t WantedParallelChunks(const DefaultCPUScheduleOptions& opt) {
  if (opt.num_cores <= 1) return 1;  // serial: the one-thread schedule is unchanged
  return opt.parallel_chunks ? opt.num_cores * kChunksPerCore : opt.num_cores;
}

}  // namespace tir
}  // namespace tessera
