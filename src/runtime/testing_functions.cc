// Global functions used by tests to exercise the FFI boundary from Python
// (echo values, call back into Python, raise errors, touch NDArray memory).
// Runtime layer; registered under the "testing." prefix, as TVM does.
#include <chrono>
#include <thread>
#include <vector>

#include "runtime/array.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace {

TESSERA_REGISTER_GLOBAL("testing.echo").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 1, TypeError) << "testing.echo expects 1 argument";
  return args[0];
});

TESSERA_REGISTER_GLOBAL("testing.nop").set_body([](PackedArgs) -> Any { return Any(); });

TESSERA_REGISTER_GLOBAL("testing.type_name").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 1, TypeError) << "testing.type_name expects 1 argument";
  return args[0].type_name();
});

// testing.call_packed(f, *args) calls f (any PackedFunc, e.g. a Python callable) from C++.
TESSERA_REGISTER_GLOBAL("testing.call_packed").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() >= 1, TypeError) << "testing.call_packed expects a function";
  auto f = args[0].cast<PackedFunc>();
  return f.CallPacked(PackedArgs(args.data() + 1, args.size() - 1));
});

// testing.call_and_catch(f, *args): calls f; returns "kind: message" of the error it raises.
TESSERA_REGISTER_GLOBAL("testing.call_and_catch").set_body([](PackedArgs args) -> Any {
  auto f = args[0].cast<PackedFunc>();
  try {
    f.CallPacked(PackedArgs(args.data() + 1, args.size() - 1));
  } catch (const Error& e) {
    return e.kind() + ": " + e.what();
  }
  return Any();
});

TESSERA_REGISTER_GLOBAL("testing.throw_error").set_body_typed([](std::string kind, std::string msg) {
  ThrowErrorOfKind(kind, msg);
});

TESSERA_REGISTER_GLOBAL("testing.add_int").set_body_typed([](int64_t a, int64_t b) { return a + b; });

TESSERA_REGISTER_GLOBAL("testing.array_size").set_body_typed([](Array<Any> a) {
  return static_cast<int64_t>(a.size());
});

// Multiplies every element of a float32 CPU array by `factor`, in place.
TESSERA_REGISTER_GLOBAL("testing.ndarray_scale_f32").set_body_typed([](NDArray a, double factor) {
  TESSERA_CHECK_OR_THROW(a.dtype() == DataType::Float(32), TypeError)
      << "testing.ndarray_scale_f32 expects float32, got " << a.dtype();
  TESSERA_CHECK_OR_THROW(a.device().device_type == kDLCPU, ValueError) << "expects a CPU array";
  float* p = static_cast<float*>(a.DataPtr());
  for (int64_t i = 0, n = a.NumElements(); i < n; ++i) p[i] = static_cast<float>(p[i] * factor);
  return a;
});

// Returns the data address modulo 64 (alignment check from Python).
TESSERA_REGISTER_GLOBAL("testing.ndarray_alignment").set_body_typed([](NDArray a) {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(a.DataPtr()) % 64);
});

// testing.parallel_for_threads(n, threads, busy_us): runs a parallel loop of n
// iterations, each busy for busy_us microseconds, on the thread pool; returns
// per iteration which thread ran it: 0 the caller, k > 0 the k-th other thread
// seen (numbered in iteration order).
TESSERA_REGISTER_GLOBAL("testing.parallel_for_threads").set_body_typed([](int64_t n, int64_t threads, int64_t busy_us) {
  TESSERA_CHECK_OR_THROW(n > 0 && n < (1 << 20), ValueError) << "n must be in [1, 2^20), got " << n;
  struct Loop {
    std::vector<std::thread::id> ran;
    int64_t busy_us;
  } loop{std::vector<std::thread::id>(static_cast<size_t>(n)), busy_us};
  auto task = [](int32_t i, void* p) -> int32_t {
    auto* l = static_cast<Loop*>(p);
    l->ran[static_cast<size_t>(i)] = std::this_thread::get_id();
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(l->busy_us);
    while (std::chrono::steady_clock::now() < until) {
    }
    return 0;
  };
  runtime::ParallelFor(task, &loop, static_cast<int32_t>(n), static_cast<int>(threads));
  std::vector<std::thread::id> seen{std::this_thread::get_id()};
  Array<int64_t> out;
  for (const std::thread::id& id : loop.ran) {
    size_t k = 0;
    while (k < seen.size() && seen[k] != id) ++k;
    if (k == seen.size()) seen.push_back(id);
    out.push_back(static_cast<int64_t>(k));
  }
  return out;
});

}  // namespace
}  // namespace tessera
