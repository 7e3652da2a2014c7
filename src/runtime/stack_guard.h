// Stack guard for recursive walks over user-built structures (IR trees,
// parsed ASTs, nested FFI containers). Lowest layer (runtime): every
// recursive visitor, printer, parser and serializer calls CheckStack() once
// per level, which raises RecursionError before the C++ stack overflows.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>

#include "runtime/error.h"

namespace tessera {

// Raised when a structure is nested too deeply for the recursion that walks
// it; becomes tvm.error.TVMRecursionError (a RecursionError and a TVMError).
class RecursionError : public Error {
 public:
  explicit RecursionError(const std::string& msg) : Error(msg, "RecursionError") {}
};

namespace detail {
// Lowest stack address the current thread may recurse down to (0 until the
// thread's first check computes it from its stack bounds).
extern thread_local uintptr_t tls_stack_floor;
uintptr_t InitStackFloor();
[[noreturn]] void ThrowStackExhausted(const char* what);
}  // namespace detail

// Bytes of stack kept free below the deepest allowed recursion level: room
// for the non-recursive work of one level (LLVM calls, printing, exception
// unwinding). Checked levels must not use more than this between checks.
inline constexpr uintptr_t kStackReserveBytes = 1024 * 1024;

// Raises RecursionError naming `what` (e.g. "expression", "statement") when
// less than kStackReserveBytes of the current thread's stack is left. Cost:
// one thread-local load and a compare.
inline void CheckStack(const char* what) {
  uintptr_t floor = detail::tls_stack_floor;
  if (floor == 0) floor = detail::InitStackFloor();
  if (reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) < floor) detail::ThrowStackExhausted(what);
}

// Size of the current thread's stack in bytes (for messages and tests).
uintptr_t StackBudgetBytes();

// Stack of the helper thread that deep calls are retried on: 256 MiB of
// address space (only the pages a deep walk touches are committed), enough
// for nesting depths in the hundreds of thousands.
inline constexpr size_t kLargeStackBytes = size_t(256) << 20;

// Runs `fn` on a new thread with a `stack_bytes` stack and waits for it;
// an exception thrown by `fn` is rethrown here.
void RunOnLargeStack(const std::function<void()>& fn, size_t stack_bytes = kLargeStackBytes);

// Runs `f()`; if it raises RecursionError on a thread whose stack is smaller
// than kLargeStackBytes, runs `f()` again on a large-stack thread. Only for
// calls that leave no trace when they fail (pure functions, transactional
// mutations such as schedule primitives): a failed first attempt is repeated.
template <typename F>
auto RetryOnLargeStack(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const RecursionError&) {
    if (StackBudgetBytes() >= kLargeStackBytes) throw;
  }
  using R = decltype(f());
  if constexpr (std::is_void_v<R>) {
    RunOnLargeStack([&] { f(); });
  } else {
    std::optional<R> result;
    RunOnLargeStack([&] { result.emplace(f()); });
    return std::move(*result);
  }
}

}  // namespace tessera
