// Stack bounds of the current thread for CheckStack (runtime/stack_guard.h):
// found once per thread with pthread_getattr_np, then a recursion check is a
// single compare against the thread's floor address.
#include "runtime/stack_guard.h"

#include <pthread.h>

#include <algorithm>
#include <sstream>

namespace tessera {
namespace detail {

thread_local uintptr_t tls_stack_floor = 0;
namespace {
thread_local uintptr_t tls_stack_size = 0;
}

uintptr_t InitStackFloor() {
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  uintptr_t low = 0, size = 0;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t sz = 0;
    if (pthread_attr_getstack(&attr, &addr, &sz) == 0 && addr != nullptr) {
      low = reinterpret_cast<uintptr_t>(addr);
      size = sz;
    }
    pthread_attr_destroy(&attr);
  }
  // Unknown bounds or a reported size above what the address below `here`
  // allows: assume a conservative 1 MiB below the current frame.
  if (size == 0 || low >= here) {
    size = 1024 * 1024;
    low = here - size;
  }
  // The main thread's stack is reported from RLIMIT_STACK; an unlimited
  // limit gives a huge size that the mappings below may not honour. Cap at 1 GiB.
  uintptr_t usable = std::min<uintptr_t>(here - low, uintptr_t(1) << 30);
  uintptr_t reserve = std::min<uintptr_t>(kStackReserveBytes, usable / 2);
  tls_stack_size = size;
  tls_stack_floor = here - usable + reserve;
  return tls_stack_floor;
}

void ThrowStackExhausted(const char* what) {
  std::ostringstream msg;
  msg << what << " nesting too deep: the recursion that walks it reached the stack limit of this thread ("
      << (tls_stack_size >> 10) << " KiB stack, " << (kStackReserveBytes >> 10)
      << " KiB kept in reserve). Break the " << what
      << " into smaller pieces (intermediate variables or buffers), or run this call on a thread "
         "with a larger stack (threading.stack_size)";
  throw RecursionError(msg.str());
}

}  // namespace detail

void RunOnLargeStack(const std::function<void()>& fn, size_t stack_bytes) {
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } job{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        auto* j = static_cast<Job*>(arg);
        try {
          (*j->fn)();
        } catch (...) {
          j->error = std::current_exception();
        }
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    TESSERA_THROW(RuntimeError) << "cannot start a thread with a " << (stack_bytes >> 20)
                                << " MiB stack for a deeply nested structure (pthread_create error " << rc << ")";
  }
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

uintptr_t StackBudgetBytes() {
  if (detail::tls_stack_floor == 0) detail::InitStackFloor();
  return detail::tls_stack_size;
}

}  // namespace tessera
