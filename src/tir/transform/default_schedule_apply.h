// How the default-schedule rules (CPU: default_cpu_schedule.cc and
// default_schedule_<rule>.cc; GPU: default_gpu_schedule.cc and
// default_schedule_gpu_<rule>.cc) run schedule steps that a primitive may
// refuse (an Error): all-or-nothing with the schedule restored, or one
// step skipped.
#pragma once

#include <type_traits>

#include "runtime/error.h"
#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {

// Runs `steps` on *sch; when they return false (steps returning void always
// apply) or a primitive refuses one (an Error), *sch is restored as it was.
// Returns whether the steps applied.
template <typename F>
bool ApplyOrRestore(Schedule* sch, F&& steps) {
  Schedule backup = sch->Copy();
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      steps();
      return true;
    } else {
      if (steps()) return true;
    }
  } catch (const Error&) {
  }
  *sch = backup;
  return false;
}

// Runs one schedule step; when a primitive refuses it (an Error), the rest of
// the step is skipped (nothing is restored) and false is returned.
template <typename F>
bool TryStep(F&& step) {
  try {
    step();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace tir
}  // namespace tessera
