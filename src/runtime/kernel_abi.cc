// Argument checking and invocation of compiled kernels, FunctionInfo JSON,
// and the C entry points kernels call back into (see kernel_abi.h).
#include "runtime/kernel_abi.h"

#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>

#include "runtime/device_api.h"
#include "runtime/interrupt.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace {

thread_local std::string last_error;
thread_local KernelLaunchContext launch_context;

// Sets the launch context for one call of a device function, restoring the
// previous one after (a host function may call another module's function).
class LaunchContextScope {
 public:
  LaunchContextScope(bool active, const ModuleNode* module, Device device) : active_(active), saved_(launch_context) {
    if (active_) launch_context = KernelLaunchContext{module, device};
  }
  ~LaunchContextScope() {
    if (active_) launch_context = saved_;
  }
  LaunchContextScope(const LaunchContextScope&) = delete;
  LaunchContextScope& operator=(const LaunchContextScope&) = delete;

 private:
  bool active_;
  KernelLaunchContext saved_;
};

nlohmann::json InfoToJSON(const FunctionInfo& info) {
  nlohmann::json params = nlohmann::json::array();
  for (const ParamInfo& p : info.params) {
    nlohmann::json shape = nlohmann::json::array();
    for (const ShapeDim& d : p.shape) {
      if (d.sym >= 0) shape.push_back({{"sym", d.sym}}); else shape.push_back(d.value);
    }
    nlohmann::json param = {{"name", p.name}, {"buffer", p.is_buffer}, {"dtype", p.dtype.str()}, {"shape", shape}};
    if (p.alignment > 0) param["align"] = p.alignment;
    params.push_back(std::move(param));
  }
  nlohmann::json out = {{"name", info.name}, {"params", params}, {"sym_vars", info.sym_vars}};
  if (!info.checks.empty()) {
    nlohmann::json checks = nlohmann::json::array();
    for (const ShapeCheck& c : info.checks) {
      checks.push_back({{"param", c.param}, {"dim", c.dim}, {"sym", c.sym}, {"text", c.text}, {"code", c.code}});
    }
    out["checks"] = checks;
  }
  if (info.num_threads > 0) out["threads"] = info.num_threads;
  if (info.device_type != kDLCPU) out["device_type"] = info.device_type;
  return out;
}

FunctionInfo InfoFromJSON(const nlohmann::json& j) {
  FunctionInfo info;
  info.name = j.at("name").get<std::string>();
  for (const auto& p : j.at("params")) {
    ParamInfo pi;
    pi.name = p.at("name").get<std::string>();
    pi.is_buffer = p.at("buffer").get<bool>();
    pi.dtype = DataType(p.at("dtype").get<std::string>());
    if (p.contains("align")) pi.alignment = p.at("align").get<int64_t>();  // absent in older libraries
    for (const auto& d : p.at("shape")) {
      ShapeDim sd;
      if (d.is_object()) sd.sym = d.at("sym").get<int>(); else sd.value = d.get<int64_t>();
      pi.shape.push_back(sd);
    }
    info.params.push_back(std::move(pi));
  }
  info.sym_vars = j.at("sym_vars").get<std::vector<std::string>>();
  if (j.contains("threads")) info.num_threads = j.at("threads").get<int>();  // absent in older libraries
  if (j.contains("checks")) {  // absent in older libraries
    for (const auto& c : j.at("checks")) {
      info.checks.push_back({c.at("param").get<int>(), c.at("dim").get<int>(), c.at("sym").get<int>(),
                             c.at("text").get<std::string>(), c.at("code").get<std::vector<int64_t>>()});
    }
  }
  if (j.contains("device_type")) info.device_type = j.at("device_type").get<int>();
  return info;
}

// The value of a ShapeCheck's program over the bound size variables; nullopt when a
// division or modulo by zero makes it undefined.
std::optional<int64_t> EvalShapeCheck(const ShapeCheck& c, const std::vector<int64_t>& sym_values,
                                      const std::vector<int64_t>& scalar_ints) {
  std::vector<int64_t> stack;
  for (size_t pc = 0; pc < c.code.size(); ++pc) {
    const int64_t op = c.code[pc];
    if (op == kConst || op == kVar || op == kParam) {
      const int64_t operand = c.code[++pc];
      const auto k = static_cast<size_t>(operand);
      stack.push_back(op == kConst ? operand : op == kVar ? sym_values[k] : scalar_ints[k]);
      continue;
    }
    const int64_t b = stack.back();
    stack.pop_back();
    int64_t& a = stack.back();
    switch (op) {
      case kAdd: a += b; break;
      case kSub: a -= b; break;
      case kMul: a *= b; break;
      case kFloorDiv:
      case kFloorMod: {
        if (b == 0) return std::nullopt;
        int64_t q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
        a = op == kFloorDiv ? q : a - q * b;
        break;
      }
      case kMin: a = std::min(a, b); break;
      case kMax: a = std::max(a, b); break;
      default: return std::nullopt;
    }
  }
  return stack.size() == 1 ? std::optional<int64_t>(stack.back()) : std::nullopt;
}

std::string ShapeStr(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}


}  // namespace

const KernelLaunchContext& CurrentKernelLaunchContext() { return launch_context; }
const std::string& KernelLastError() { return last_error; }

std::string FunctionInfo::ToJSON() const { return InfoToJSON(*this).dump(); }
FunctionInfo FunctionInfo::FromJSON(const std::string& json) { return InfoFromJSON(nlohmann::json::parse(json)); }
std::string FunctionInfo::ListToJSON(const std::vector<FunctionInfo>& infos) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& i : infos) arr.push_back(InfoToJSON(i));
  return arr.dump();
}
std::vector<FunctionInfo> FunctionInfo::ListFromJSON(const std::string& json) {
  std::vector<FunctionInfo> out;
  for (const auto& j : nlohmann::json::parse(json)) out.push_back(InfoFromJSON(j));
  return out;
}

namespace {
// An integer scalar argument must be representable in its parameter's dtype
// (int8..int64, uint8..uint64, bool); otherwise it would be silently
// truncated by the kernel, so it raises OverflowError naming the parameter.
void CheckScalarFits(const std::string& func, const ParamInfo& p, int64_t v) {
  const int bits = p.dtype.bits();
  if (bits >= 64 && !p.dtype.is_uint()) return;
  int64_t lo = 0;
  int64_t hi = 0;
  if (p.dtype.is_bool() || bits == 1) {
    hi = 1;
  } else if (p.dtype.is_uint()) {
    hi = bits >= 63 ? INT64_MAX : (int64_t{1} << bits) - 1;
  } else {
    lo = -(int64_t{1} << (bits - 1));
    hi = (int64_t{1} << (bits - 1)) - 1;
  }
  if (v < lo || v > hi) {
    TESSERA_THROW(OverflowError) << func << ": argument " << p.name << " = " << v << " does not fit in "
                                 << p.dtype << " (range " << lo << " to " << hi << ")";
  }
}
// A finite float scalar beyond the largest value of a float32/float16
// parameter would silently become infinity: it raises OverflowError instead
// (infinities and NaN themselves pass through unchanged).
void CheckFloatFits(const std::string& func, const ParamInfo& p, double v) {
  const int bits = p.dtype.bits();
  const double max = bits == 32 ? 3.4028234663852886e38 : bits == 16 ? 65504.0 : 0.0;
  if (max == 0.0 || !std::isfinite(v) || std::fabs(v) <= max) return;
  TESSERA_THROW(OverflowError) << func << ": argument " << p.name << " = " << v << " does not fit in " << p.dtype
                               << " (largest finite value " << max << ")";
}
// Misaligned arrays staged through aligned temporaries for one call: each
// original pointer gets one temporary (an array passed twice stays one
// buffer); copied back and freed when the call ends, also on errors.
class AlignedStaging {
 public:
  AlignedStaging() = default;
  AlignedStaging(const AlignedStaging&) = delete;
  AlignedStaging& operator=(const AlignedStaging&) = delete;
  ~AlignedStaging() {
    for (const Entry& e : entries_) {
      std::memcpy(e.original, e.copy, e.nbytes);
      std::free(e.copy);
    }
  }
  void* Stage(void* original, size_t nbytes, size_t alignment) {
    for (const Entry& e : entries_) {
      if (e.original == original) return e.copy;
    }
    size_t size = (std::max<size_t>(nbytes, 1) + alignment - 1) / alignment * alignment;
    void* copy = std::aligned_alloc(alignment, size);
    if (copy == nullptr) ThrowErrorOfKind("MemoryError", "cannot allocate an aligned copy of " + std::to_string(nbytes) + " bytes");
    std::memcpy(copy, original, nbytes);
    entries_.push_back({original, copy, nbytes});
    return copy;
  }

 private:
  struct Entry {
    void* original;
    void* copy;
    size_t nbytes;
  };
  std::vector<Entry> entries_;
};
}  // namespace

PackedFunc MakeKernelFunction(const FunctionInfo& info, KernelFn fn, ObjectRef keep_alive, int num_threads) {
  return PackedFunc(
      [info, fn, keep_alive, num_threads](PackedArgs args) -> Any {
        const size_t np = info.params.size();
        if (static_cast<size_t>(args.size()) != np) {
          std::ostringstream os;
          os << info.name << " expects " << np << " argument" << (np == 1 ? "" : "s") << " (";
          for (size_t i = 0; i < np; ++i) os << (i ? ", " : "") << info.params[i].name;
          os << ") but got " << args.size();
          TESSERA_THROW(TypeError) << os.str();
        }
        std::vector<void*> slots(np + info.sym_vars.size(), nullptr);
        std::vector<int64_t> sym_values(info.sym_vars.size(), 0);
        std::vector<int> sym_bound_by(info.sym_vars.size(), -1);
        std::vector<int64_t> scalar_ints(np, 0);
        std::vector<double> scalar_floats(np, 0.0);
        AlignedStaging staging;
        // A device function's arrays all live on one device: the first one's is where its kernels launch.
        const bool on_device = info.device_type != kDLCPU;
        std::optional<Device> array_device;
        for (size_t i = 0; i < np; ++i) {
          const ParamInfo& p = info.params[i];
          const Any& a = args[static_cast<int>(i)];
          if (!p.is_buffer) {
            if (p.dtype.is_float()) {
              TESSERA_CHECK_OR_THROW(a.try_cast<double>().has_value(), TypeError)
                  << info.name << ": argument " << p.name << " must be a number (" << p.dtype << "), got " << a.type_name();
              scalar_floats[i] = a.cast<double>();
              CheckFloatFits(info.name, p, scalar_floats[i]);
              slots[i] = &scalar_floats[i];
            } else {
              TESSERA_CHECK_OR_THROW(a.kind() == Any::Kind::kInt || a.kind() == Any::Kind::kBool, TypeError)
                  << info.name << ": argument " << p.name << " must be an integer (" << p.dtype << "), got " << a.type_name();
              scalar_ints[i] = a.cast<int64_t>();
              CheckScalarFits(info.name, p, scalar_ints[i]);
              slots[i] = &scalar_ints[i];
            }
            continue;
          }
          auto arr = a.try_cast<NDArray>();
          if (!arr || !arr->defined()) {
            TESSERA_THROW(TypeError) << info.name << ": argument " << p.name << " must be an NDArray, got "
                                     << a.type_name();
          }
          if (arr->device().device_type != info.device_type) {
            TESSERA_THROW(ValueError) << info.name << ": argument " << p.name << " is on " << arr->device().str()
                                      << " but this function runs on "
                                      << DeviceTypeName(static_cast<DLDeviceType>(info.device_type));
          }
          if (on_device && array_device && arr->device() != *array_device) {
            TESSERA_THROW(ValueError) << info.name << ": argument " << p.name << " is on " << arr->device().str()
                                      << " but the earlier arguments are on " << array_device->str()
                                      << " (the arrays of one call must be on one device)";
          }
          if (!array_device) array_device = arr->device();
          if (arr->dtype() != p.dtype) {
            TESSERA_THROW(TypeError) << info.name << ": argument " << p.name << " has dtype " << arr->dtype()
                                     << " but expected " << p.dtype;
          }
          const auto& shape = arr->Shape();
          if (shape.size() != p.shape.size()) {
            TESSERA_THROW(ValueError) << info.name << ": argument " << p.name << " has " << shape.size()
                                      << " dimensions " << ShapeStr(shape) << " but expected " << p.shape.size();
          }
          for (size_t d = 0; d < shape.size(); ++d) {
            const ShapeDim& sd = p.shape[d];
            if (sd.sym < 0) {
              if (shape[d] != sd.value) {
                TESSERA_THROW(ValueError) << info.name << ": argument " << p.name << ".shape[" << d << "] is "
                                          << shape[d] << " but expected " << sd.value << " (got shape "
                                          << ShapeStr(shape) << ")";
              }
            } else {
              size_t k = static_cast<size_t>(sd.sym);
              if (sym_bound_by[k] < 0) {
                sym_values[k] = shape[d];
                sym_bound_by[k] = static_cast<int>(i);
              } else if (sym_values[k] != shape[d]) {
                TESSERA_THROW(ValueError) << info.name << ": argument " << p.name << ".shape[" << d << "] is "
                                          << shape[d] << " but " << info.sym_vars[k] << " = " << sym_values[k]
                                          << " from argument " << info.params[static_cast<size_t>(sym_bound_by[k])].name;
              }
            }
          }
          void* ptr = arr->DataPtr();
          size_t align = static_cast<size_t>(std::max(1, p.dtype.bytes()));
          if (reinterpret_cast<uintptr_t>(ptr) % align != 0) {
            TESSERA_THROW(ValueError) << info.name << ": argument " << p.name << " is not aligned to its element size";
          }
          // (Only CPU kernels dereference their arguments on the host: device arrays are never staged.)
          if (!on_device && p.alignment > 1 && reinterpret_cast<uintptr_t>(ptr) % static_cast<uintptr_t>(p.alignment) != 0) {
            // The kernel assumes the alignment (llvm.assume): stage a copy.
            size_t nbytes = static_cast<size_t>(std::max(1, p.dtype.bytes()));
            for (int64_t d : shape) nbytes *= static_cast<size_t>(d);
            ptr = staging.Stage(ptr, nbytes, static_cast<size_t>(p.alignment));
          }
          slots[i] = ptr;
        }
        for (size_t k = 0; k < info.sym_vars.size(); ++k) {
          TESSERA_CHECK_OR_THROW(sym_bound_by[k] >= 0, ValueError)
              << info.name << ": the size variable " << info.sym_vars[k] << " is not bound by any argument";
          slots[np + k] = &sym_values[k];
        }
        for (const ShapeCheck& c : info.checks) {
          const std::optional<int64_t> want = EvalShapeCheck(c, sym_values, scalar_ints);
          const int64_t got = sym_values[static_cast<size_t>(c.sym)];
          if (!want || *want != got) {
            std::ostringstream os;
            os << info.name << ": argument " << info.params[static_cast<size_t>(c.param)].name << ".shape[" << c.dim
               << "] is " << got << " but expected " << c.text;
            if (want) os << " = " << *want;
            os << " (";
            for (size_t k = 0; k < info.sym_vars.size(); ++k) {
              if (info.sym_vars[k].find(".shape[") != std::string::npos) continue;  // a check's own slot
              os << (os.str().back() == '(' ? "" : ", ") << info.sym_vars[k] << " = " << sym_values[k];
            }
            os << ")";
            TESSERA_THROW(ValueError) << os.str();
          }
        }
        last_error.clear();
        // The target's -num-cores (recorded in the library for exported ones) caps the threads.
        runtime::ThreadCapScope cap(num_threads > 0 ? num_threads : info.num_threads);
        int32_t rc = 0;
        bool interrupted = false;
        LaunchContextScope launch_scope(on_device, keep_alive.as<ModuleNode>(),
                                        array_device.value_or(Device{static_cast<DLDeviceType>(info.device_type), 0}));
        {
          InterruptScope interrupt_scope;  // Ctrl-C stops while loops (runtime/interrupt.h)
          rc = fn(slots.data());
          interrupted = InterruptScope::Requested();
        }
        if (interrupted) ThrowErrorOfKind("KeyboardInterrupt", info.name + " was interrupted (SIGINT)");
        if (rc != 0) {
          // A kernel may choose the error class with a "<Kind>: " prefix.
          for (const char* kind : {"MemoryError", "ZeroDivisionError", "OverflowError", "IndexError", "ValueError"}) {
            const std::string prefix = std::string(kind) + ": ";
            if (last_error.rfind(prefix, 0) == 0) {
              ThrowErrorOfKind(kind, info.name + " failed: " + last_error.substr(prefix.size()));
            }
          }
          TESSERA_THROW(RuntimeError) << info.name << " failed: " << (last_error.empty() ? "unknown error" : last_error);
        }
        return Any();
      },
      info.name);
}

}  // namespace tessera

extern "C" {

void TesseraSetLastError(const char* msg) { tessera::last_error = msg ? msg : ""; }

void TesseraSetIndexError(const char* what, int64_t index, int64_t extent) {
  tessera::last_error = std::string("IndexError: ") + (what ? what : "index") + ": index " + std::to_string(index) +
                        " is out of bounds for size " + std::to_string(extent);
}

int32_t TesseraParallelFor(int32_t (*task)(int32_t, void*), void* data, int32_t num_tasks) {
  // A failing iteration's message is recorded on the thread that ran it; the
  // message of the lowest failing iteration is carried back to the caller's
  // thread, as a serial loop would report it whichever thread failed first
  // (the pool runs every chunk, and a chunk runs in order up to its failure,
  // so every iteration below the lowest failing one has run).
  struct Loop {
    int32_t (*task)(int32_t, void*);
    void* data;
    std::mutex mu;
    std::string error;
    int32_t failed_at;
  } loop{task, data, {}, {}, INT32_MAX};
  auto run = [](int32_t i, void* p) -> int32_t {
    auto* l = static_cast<Loop*>(p);
    int32_t rc = l->task(i, l->data);
    if (rc != 0) {
      std::lock_guard<std::mutex> lock(l->mu);
      if (i < l->failed_at) {
        l->failed_at = i;
        l->error = tessera::last_error;
      }
    }
    return rc;
  };
  int32_t rc = tessera::runtime::ParallelFor(run, &loop, num_tasks, 0);
  if (rc != 0) tessera::last_error = loop.error;
  return rc;
}

void* TesseraWorkspaceAlloc(int64_t nbytes) {
  if (nbytes < 0 || nbytes > INT64_MAX - 128) return nullptr;  // the kernel raises MemoryError
  size_t size = (static_cast<size_t>(nbytes < 64 ? 64 : nbytes) + 63) / 64 * 64;
  return std::aligned_alloc(64, size);
}

void TesseraWorkspaceFree(void* ptr) { std::free(ptr); }

void* TesseraDeviceWorkspaceAlloc(int64_t nbytes) {
  const tessera::KernelLaunchContext& ctx = tessera::launch_context;
  try {
    if (ctx.module == nullptr) {
      tessera::last_error = "device memory was requested outside a call of a device function";
      return nullptr;
    }
    if (nbytes < 0) {
      tessera::last_error = "MemoryError: cannot allocate " + std::to_string(nbytes) + " bytes on " + ctx.device.str();
      return nullptr;
    }
    return tessera::DeviceAPI::Get(ctx.device)
        ->Alloc(ctx.device, static_cast<size_t>(nbytes == 0 ? 1 : nbytes), tessera::kTensorAlignment);
  } catch (const std::exception& e) {
    tessera::last_error = "MemoryError: cannot allocate " + std::to_string(nbytes) + " bytes on " +
                          ctx.device.str() + ": " + e.what();
    return nullptr;
  }
}

void TesseraDeviceWorkspaceFree(void* ptr) {
  const tessera::KernelLaunchContext& ctx = tessera::launch_context;
  if (ptr == nullptr || ctx.module == nullptr) return;
  try {
    tessera::DeviceAPI::Get(ctx.device)->Free(ctx.device, ptr);
  } catch (const std::exception&) {  // nothing to report from a free
  }
}
}
