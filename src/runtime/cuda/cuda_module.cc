// The CUDA device module and the kernel launch entry point host code calls
// (see cuda_module.h, kernel_abi.h).
#include "runtime/cuda/cuda_module.h"

#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/kernel_abi.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"

namespace tessera {
namespace {

using cuda::Driver;

const Driver& DriverFor(const std::string& kernel, Device dev) {
  std::string why;
  const Driver* d = Driver::Get(&why);
  if (d == nullptr) {
    TESSERA_THROW(RuntimeError) << "cannot launch CUDA kernel " << kernel << " on " << dev.str() << ": " << why;
  }
  d->SetDevice(dev.device_id);
  return *d;
}

// The launch limits of one device, read once.
struct DeviceLimits {
  int64_t max_threads = 0;
  std::array<int64_t, 3> max_block{};
  std::array<int64_t, 3> max_grid{};
  int64_t max_dyn_shmem = 0;  // opt-in maximum per block
};

class CUDAModuleNode final : public ModuleNode {
 public:
  CUDAModuleNode(std::string source, std::string binary, std::string format, std::vector<CUDAKernelInfo> kernels)
      : source_(std::move(source)), binary_(std::move(binary)), format_(std::move(format)), kernels_(std::move(kernels)) {
    TESSERA_CHECK_OR_THROW(format_ == "ptx" || format_ == "cubin", ValueError)
        << "a CUDA module holds \"ptx\" or \"cubin\", not \"" << format_ << "\"";
  }
  ~CUDAModuleNode() override {
    const Driver* d = Driver::Get();
    if (d == nullptr) return;
    for (const auto& [device_id, mod] : loaded_) {
      if (d->cuCtxSetCurrent == nullptr) break;
      try {
        d->SetDevice(device_id);
        d->cuModuleUnload(mod);
      } catch (...) {  // the context may already be gone at exit
      }
    }
  }

  std::string type_key() const override { return "cuda"; }

  std::optional<PackedFunc> GetFunction(const std::string& name) const override {
    const CUDAKernelInfo* k = Find(name);
    if (k == nullptr) return std::nullopt;
    ObjectRef self = GetRef<ObjectRef>(this);
    CUDAKernelInfo info = *k;
    return PackedFunc([self, info, this](PackedArgs args) -> Any {
      CallDirect(info, args);
      return Any();
    }, name);
  }

  std::vector<std::string> ListFunctions() const override {
    std::vector<std::string> out;
    for (const CUDAKernelInfo& k : kernels_) out.push_back(k.name);
    return out;
  }

  std::string GetSource(const std::string& format) const override {
    if (format.empty() || format == "cu" || format == "cuda") return source_;
    if (format == format_ && format_ == "ptx") return binary_;
    return ModuleNode::GetSource(format);
  }

  const CUDAKernelInfo* Find(const std::string& name) const {
    for (const CUDAKernelInfo& k : kernels_) {
      if (k.name == name) return &k;
    }
    return nullptr;
  }

  // Launches `k` on `dev`: grid g, blocks b; args[i] points at argument i's value.
  void Launch(const CUDAKernelInfo& k, Device dev, const std::array<int64_t, 3>& g, const std::array<int64_t, 3>& b,
              int64_t dyn_shmem, void** args, size_t nargs) const {
    if (nargs != k.params.size()) {
      TESSERA_THROW(ValueError) << "CUDA kernel " << k.name << " takes " << k.params.size() << " arguments but "
                                << nargs << " were passed";
    }
    for (int i = 0; i < 3; ++i) {
      if (g[i] <= 0 || b[i] <= 0) return;  // an empty loop: nothing to run
    }
    TESSERA_CHECK_OR_THROW(dyn_shmem >= 0, ValueError)
        << "CUDA kernel " << k.name << ": negative dynamic shared memory size " << dyn_shmem;
    const Driver& d = DriverFor(k.name, dev);
    const DeviceLimits& lim = Limits(d, dev);
    auto dims = [](const std::array<int64_t, 3>& v) {
      return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
    };
    const int64_t threads = b[0] * b[1] * b[2];
    if (threads > lim.max_threads) {
      TESSERA_THROW(ValueError) << "CUDA kernel " << k.name << " launches blocks of " << dims(b) << " = " << threads
                                << " threads, but " << dev.str() << " allows at most " << lim.max_threads
                                << " threads per block (max_threads_per_block)";
    }
    static const char* axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
      if (b[i] > lim.max_block[i]) {
        TESSERA_THROW(ValueError) << "CUDA kernel " << k.name << ": threadIdx." << axis[i] << " extent " << b[i]
                                  << " exceeds the device's limit " << lim.max_block[i];
      }
      if (g[i] > lim.max_grid[i]) {
        TESSERA_THROW(ValueError) << "CUDA kernel " << k.name << ": blockIdx." << axis[i] << " extent " << g[i]
                                  << " exceeds the device's limit " << lim.max_grid[i];
      }
    }
    if (dyn_shmem > lim.max_dyn_shmem) {
      TESSERA_THROW(ValueError) << "CUDA kernel " << k.name << " requests " << dyn_shmem
                                << " bytes of dynamic shared memory, but " << dev.str() << " allows at most "
                                << lim.max_dyn_shmem << " per block";
    }
    cuda::CUfunction fn = Function(d, k.name, dev, dyn_shmem);
    cuda::CUresult r = d.cuLaunchKernel(fn, static_cast<unsigned>(g[0]), static_cast<unsigned>(g[1]),
                                        static_cast<unsigned>(g[2]), static_cast<unsigned>(b[0]),
                                        static_cast<unsigned>(b[1]), static_cast<unsigned>(b[2]),
                                        static_cast<unsigned>(dyn_shmem), nullptr, args, nullptr);
    if (r != cuda::CUDA_SUCCESS) {
      const char* msg = nullptr;
      if (d.cuGetErrorString) d.cuGetErrorString(r, &msg);
      TESSERA_THROW(RuntimeError) << "CUDA kernel " << k.name << " failed to launch on " << dev.str() << " (grid "
                                  << dims(g) << ", block " << dims(b) << ", " << dyn_shmem
                                  << " bytes of dynamic shared memory): " << (msg ? msg : "unknown error") << " (code "
                                  << r << ")";
    }
  }

  std::string SaveToBinary() const override { return Save(); }

  std::string Save() const {
    nlohmann::json kernels = nlohmann::json::array();
    for (const CUDAKernelInfo& k : kernels_) {
      std::vector<std::string> params;
      for (const DataType& t : k.params) params.push_back(t.str());
      kernels.push_back({{"name", k.name}, {"params", params}, {"tags", k.launch_tags}, {"dyn_shmem_arg", k.dyn_shmem_arg}});
    }
    nlohmann::json j = {{"format", format_}, {"source", source_}, {"kernels", kernels}};
    // The binary follows the JSON header (a cubin is not text).
    std::string header = j.dump();
    return std::to_string(header.size()) + "\n" + header + binary_;
  }

 private:
  // Direct call: the kernel's arguments, then one extent per launch tag (then
  // the dynamic shared memory bytes when the kernel takes them).
  void CallDirect(const CUDAKernelInfo& k, PackedArgs args) const {
    const size_t np = k.params.size();
    const size_t expected = np + k.launch_tags.size() + (k.dyn_shmem_arg ? 1 : 0);
    if (static_cast<size_t>(args.size()) != expected) {
      std::string tags;
      for (const std::string& t : k.launch_tags) tags += (tags.empty() ? "" : ", ") + t;
      TESSERA_THROW(TypeError) << "CUDA kernel " << k.name << " expects " << expected << " arguments (" << np
                               << " kernel arguments, then the extents of " << (tags.empty() ? "no launch axes" : tags)
                               << (k.dyn_shmem_arg ? ", then the dynamic shared memory bytes" : "") << ") but got "
                               << args.size();
    }
    std::vector<std::array<unsigned char, 8>> values(np);
    std::vector<void*> slots(np);
    std::optional<Device> dev;
    for (size_t i = 0; i < np; ++i) {
      const Any& a = args[static_cast<int>(i)];
      const DataType& t = k.params[i];
      unsigned char* v = values[i].data();
      slots[i] = v;
      if (t.is_handle()) {
        auto arr = a.try_cast<NDArray>();
        TESSERA_CHECK_OR_THROW(arr && arr->defined(), TypeError)
            << "CUDA kernel " << k.name << ": argument " << i << " must be an NDArray on a CUDA device, got "
            << a.type_name();
        TESSERA_CHECK_OR_THROW(arr->device().device_type == kDLCUDA, ValueError)
            << "CUDA kernel " << k.name << ": argument " << i << " is on " << arr->device().str()
            << " but the kernel runs on a CUDA device";
        if (dev && *dev != arr->device()) {
          TESSERA_THROW(ValueError) << "CUDA kernel " << k.name << ": argument " << i << " is on "
                                    << arr->device().str() << " but an earlier argument is on " << dev->str();
        }
        dev = arr->device();
        void* p = arr->DataPtr();
        std::memcpy(v, &p, sizeof(p));
      } else if (t.is_float()) {
        auto x = a.try_cast<double>();
        TESSERA_CHECK_OR_THROW(x.has_value(), TypeError)
            << "CUDA kernel " << k.name << ": argument " << i << " must be a number (" << t << ")";
        if (t.bits() == 32) {
          float f = static_cast<float>(*x);
          std::memcpy(v, &f, sizeof(f));
        } else {
          TESSERA_CHECK_OR_THROW(t.bits() == 64, TypeError)
              << "CUDA kernel " << k.name << ": a " << t << " scalar argument cannot be passed directly";
          std::memcpy(v, &*x, sizeof(double));
        }
      } else {
        TESSERA_CHECK_OR_THROW(a.kind() == Any::Kind::kInt || a.kind() == Any::Kind::kBool, TypeError)
            << "CUDA kernel " << k.name << ": argument " << i << " must be an integer (" << t << "), got "
            << a.type_name();
        int64_t x = a.cast<int64_t>();
        // Little-endian: the low bytes are the narrower type's value.
        std::memcpy(v, &x, sizeof(x));
      }
    }
    std::array<int64_t, 3> g{1, 1, 1};
    std::array<int64_t, 3> b{1, 1, 1};
    for (size_t j = 0; j < k.launch_tags.size(); ++j) {
      const Any& a = args[static_cast<int>(np + j)];
      TESSERA_CHECK_OR_THROW(a.kind() == Any::Kind::kInt, TypeError)
          << "CUDA kernel " << k.name << ": the extent of " << k.launch_tags[j] << " must be an integer";
      const std::string& tag = k.launch_tags[j];
      int axis = tag.back() - 'x';
      (tag.rfind("blockIdx.", 0) == 0 ? g : b)[static_cast<size_t>(axis)] = a.cast<int64_t>();
    }
    int64_t dyn = k.dyn_shmem_arg ? args[static_cast<int>(expected - 1)].cast<int64_t>() : 0;
    Launch(k, dev.value_or(Device{kDLCUDA, 0}), g, b, dyn, slots.data(), np);
  }

  const DeviceLimits& Limits(const Driver& d, Device dev) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = limits_.find(dev.device_id);
    if (it != limits_.end()) return it->second;
    cuda::CUdevice cu_dev = 0;
    d.Check(d.cuDeviceGet(&cu_dev, dev.device_id), "cuDeviceGet");
    auto get = [&](int attr) {
      int v = 0;
      d.Check(d.cuDeviceGetAttribute(&v, attr, cu_dev), "cuDeviceGetAttribute");
      return static_cast<int64_t>(v);
    };
    DeviceLimits lim;
    lim.max_threads = get(cuda::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    for (int i = 0; i < 3; ++i) {
      lim.max_block[static_cast<size_t>(i)] = get(cuda::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i);
      lim.max_grid[static_cast<size_t>(i)] = get(cuda::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i);
    }
    lim.max_dyn_shmem = std::max(get(cuda::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
                                 get(cuda::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    return limits_.emplace(dev.device_id, lim).first->second;
  }

  // The kernel's CUfunction on `dev`, loading the binary there first.
  cuda::CUfunction Function(const Driver& d, const std::string& name, Device dev, int64_t dyn_shmem) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto key = std::make_pair(dev.device_id, name);
    auto it = functions_.find(key);
    if (it == functions_.end()) {
      auto m = loaded_.find(dev.device_id);
      if (m == loaded_.end()) {
        cuda::CUmodule mod = nullptr;
        cuda::CUresult r = d.cuModuleLoadData(&mod, binary_.c_str());
        if (r != cuda::CUDA_SUCCESS) {
          const char* msg = nullptr;
          if (d.cuGetErrorString) d.cuGetErrorString(r, &msg);
          TESSERA_THROW(RuntimeError) << "cannot load the CUDA kernels (" << format_ << ") of " << name << " on "
                                      << dev.str() << ": " << (msg ? msg : "unknown error") << " (code " << r
                                      << "; was the module compiled for this GPU's architecture?)";
        }
        m = loaded_.emplace(dev.device_id, mod).first;
      }
      cuda::CUfunction fn = nullptr;
      d.Check(d.cuModuleGetFunction(&fn, m->second, name.c_str()), ("cuModuleGetFunction(" + name + ")").c_str());
      it = functions_.emplace(key, FunctionEntry{fn, 48 * 1024}).first;
    }
    FunctionEntry& e = it->second;
    if (dyn_shmem > e.dyn_shmem_allowed) {  // above 48 KB a kernel must opt in
      d.Check(d.cuFuncSetAttribute(e.fn, cuda::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   static_cast<int>(dyn_shmem)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
      e.dyn_shmem_allowed = dyn_shmem;
    }
    return e.fn;
  }

  struct FunctionEntry {
    cuda::CUfunction fn;
    int64_t dyn_shmem_allowed;
  };

  std::string source_;
  std::string binary_;
  std::string format_;
  std::vector<CUDAKernelInfo> kernels_;
  mutable std::mutex mu_;
  mutable std::map<int, cuda::CUmodule> loaded_;
  mutable std::map<std::pair<int, std::string>, FunctionEntry> functions_;
  mutable std::map<int, DeviceLimits> limits_;
};

}  // namespace

Module CUDAModuleCreate(std::string source, std::string binary, std::string format,
                        std::vector<CUDAKernelInfo> kernels) {
  auto node = make_object<CUDAModuleNode>(std::move(source), std::move(binary), std::move(format), std::move(kernels));
  return Module(ObjectPtr<Object>(std::move(node)));
}

std::string CUDAModuleSave(const Module& mod) {
  const auto* node = dynamic_cast<const CUDAModuleNode*>(mod.get());
  TESSERA_CHECK_OR_THROW(node != nullptr, TypeError) << "not a CUDA module: " << mod->type_key();
  return node->Save();
}

Module CUDAModuleLoad(const std::string& bytes) {
  size_t nl = bytes.find('\n');
  size_t header_size = 0;
  nlohmann::json j;
  try {
    TESSERA_CHECK_OR_THROW(nl != std::string::npos && nl > 0 && nl < 20, ValueError) << "no header";
    header_size = std::stoull(bytes.substr(0, nl));
    TESSERA_CHECK_OR_THROW(header_size <= bytes.size() - nl - 1, ValueError) << "truncated header";
    j = nlohmann::json::parse(bytes.substr(nl + 1, header_size));
    std::vector<CUDAKernelInfo> kernels;
    for (const auto& k : j.at("kernels")) {
      CUDAKernelInfo info;
      info.name = k.at("name").get<std::string>();
      for (const auto& p : k.at("params")) info.params.emplace_back(p.get<std::string>());
      info.launch_tags = k.at("tags").get<std::vector<std::string>>();
      info.dyn_shmem_arg = k.at("dyn_shmem_arg").get<bool>();
      kernels.push_back(std::move(info));
    }
    return CUDAModuleCreate(j.at("source").get<std::string>(), bytes.substr(nl + 1 + header_size),
                            j.at("format").get<std::string>(), std::move(kernels));
  } catch (const std::exception& e) {
    TESSERA_THROW(ValueError) << "corrupted embedded CUDA module: " << e.what();
  }
}

// The launch entry host code calls (kernel_abi.h).
namespace {
int32_t LaunchFromContext(const char* name, const std::array<int64_t, 3>& g, const std::array<int64_t, 3>& b,
                          int64_t dyn_shmem, void** args, int32_t nargs) {
  const KernelLaunchContext& ctx = CurrentKernelLaunchContext();
  const std::string kernel = name ? name : "";
  try {
    TESSERA_CHECK_OR_THROW(ctx.module != nullptr, RuntimeError)
        << "CUDA kernel " << kernel << " was launched outside a call of its host function";
    for (const Module& imp : ctx.module->imports) {
      const auto* cu = dynamic_cast<const CUDAModuleNode*>(imp.get());
      if (cu == nullptr) continue;
      if (const CUDAKernelInfo* k = cu->Find(kernel)) {
        for (size_t i = 0; i < k->params.size() && static_cast<int32_t>(i) < nargs; ++i) {
          if (k->params[i].is_handle() && *static_cast<void**>(args[i]) == nullptr) {
            // A failed TesseraDeviceWorkspaceAlloc already said why.
            if (!KernelLastError().empty()) return -1;
            TESSERA_THROW(ValueError) << "CUDA kernel " << kernel << ": argument " << i << " is a null pointer";
          }
        }
        cu->Launch(*k, ctx.device, g, b, dyn_shmem, args, static_cast<size_t>(std::max(nargs, 0)));
        return 0;
      }
    }
    TESSERA_THROW(RuntimeError) << "CUDA kernel " << kernel << " is in no CUDA module imported by the host module";
  } catch (const Error& e) {
    // The kind travels as a prefix (MakeKernelFunction raises that class).
    std::string msg = e.kind() == "ValueError" ? "ValueError: " + std::string(e.what()) : std::string(e.what());
    TesseraSetLastError(msg.c_str());
  } catch (const std::exception& e) {
    TesseraSetLastError(e.what());
  }
  return -1;
}
}  // namespace

TESSERA_REGISTER_GLOBAL("runtime.module.loadbinary_cuda").set_body_typed([](std::string bytes) {
  return CUDAModuleLoad(bytes);
});

}  // namespace tessera

extern "C" int32_t TesseraLaunchKernel(const char* name, int64_t gx, int64_t gy, int64_t gz, int64_t bx, int64_t by,
                                       int64_t bz, int64_t dyn_shmem, void** args, int32_t nargs) {
  return tessera::LaunchFromContext(name, {gx, gy, gz}, {bx, by, bz}, dyn_shmem, args, nargs);
}
