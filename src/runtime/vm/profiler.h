// Per-call timing of what the VM calls (vm.profile): each packed call (a TIR
// kernel of the executable's library, a VM builtin, a registered function) is
// timed with a steady clock while profiling is on, and aggregated by callee
// and argument shapes; the whole VM call is timed too, so the interpreter's
// own overhead (total minus the callees) is reported. Runtime layer; owned
// by VirtualMachineNode, read by python/tessera/runtime/profiling.py.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "runtime/any.h"
#include "runtime/array.h"

namespace tessera::runtime::vm {

class VMProfiler {
 public:
  using Clock = std::chrono::steady_clock;

  // Adds one call of `name` that took `ns` nanoseconds with arguments `args`.
  void Record(const std::string& name, int64_t ns, const Any* args, int nargs);
  // Adds the wall time of one whole VM function call.
  void RecordInvoke(int64_t ns) {
    invoke_ns_ += ns;
    ++invokes_;
  }
  void Reset();

  // [[name, shapes, calls, total_ns], ...] in first-call order, then
  // [invoke_total_ns, invokes] as the last element.
  Array<Any> Rows() const;

 private:
  struct Stat {
    int64_t order = 0;
    int64_t calls = 0;
    int64_t total_ns = 0;
  };
  std::map<std::pair<std::string, std::string>, Stat> stats_;
  int64_t invoke_ns_ = 0;
  int64_t invokes_ = 0;
};

}  // namespace tessera::runtime::vm
