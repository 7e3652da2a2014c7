// TESSERA_REGISTER_SCHEDULE_API: registers a tir.schedule.* FFI entry whose
// calls hold the schedule's lock. Used by schedule.cc (the Schedule core's
// entries) and by each primitive file (primitive/*.cc) for its own methods.
// TIR schedule layer.
#pragma once

#include <mutex>
#include <string>
#include <utility>

#include "runtime/registry.h"
#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {

// Registers a tir.schedule.* entry whose first argument is the schedule: the
// call holds that schedule's lock, so threads sharing one schedule take turns
// (each primitive still either commits fully or leaves the schedule as it was).
struct LockedScheduleEntry {
  std::string name;
  static LockedScheduleEntry& Create(std::string name) { return *new LockedScheduleEntry{std::move(name)}; }
  template <typename F>
  LockedScheduleEntry& set_body_typed(F f) {
    PackedFunc inner = PackedFunc::FromTyped(std::move(f), name);
    Registry::Set(name, PackedFunc(
                            [inner](PackedArgs args) -> Any {
                              const ScheduleNode* s = args.size() > 0 ? args[0].as<ScheduleNode>() : nullptr;
                              if (s == nullptr) return inner.CallPacked(args);
                              std::lock_guard<std::recursive_mutex> guard(s->lock.mu);
                              return inner.CallPacked(args);
                            },
                            name));
    return *this;
  }
};

}  // namespace tir
}  // namespace tessera

#define TESSERA_REGISTER_SCHEDULE_API(Name)                                                 \
  [[maybe_unused]] static LockedScheduleEntry& TESSERA_REGISTRY_CONCAT(_tessera_sched_entry_, \
                                                                      __COUNTER__) = LockedScheduleEntry::Create(Name)

