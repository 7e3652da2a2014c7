// DeviceAPI for NVIDIA GPUs through the dlopen'd CUDA driver (see
// device_api.h, cuda_driver.h). Every entry point raises a clear error when
// no driver or GPU is present; Exists() just answers false.
#include "runtime/cuda/cuda_driver.h"
#include "runtime/device_api.h"

namespace tessera {
namespace {

using cuda::Driver;

const Driver& RequireDriver(Device dev) {
  std::string why;
  const Driver* d = Driver::Get(&why);
  if (d == nullptr) TESSERA_THROW(RuntimeError) << "cannot use " << dev.str() << ": " << why;
  d->SetDevice(dev.device_id);
  return *d;
}

class CUDADeviceAPIImpl final : public DeviceAPI {
 public:
  bool Exists(int device_id) override {
    const Driver* d = Driver::Get();
    if (d == nullptr) return false;
    int count = 0;
    if (d->cuDeviceGetCount(&count) != cuda::CUDA_SUCCESS) return false;
    return device_id >= 0 && device_id < count;
  }
  void* Alloc(Device dev, size_t nbytes, size_t) override {
    const Driver& d = RequireDriver(dev);
    cuda::CUdeviceptr p = 0;
    d.Check(d.cuMemAlloc(&p, nbytes == 0 ? 1 : nbytes), "cuMemAlloc");
    return reinterpret_cast<void*>(p);
  }
  void Free(Device dev, void* ptr) override {
    const Driver* d = Driver::Get();
    if (d == nullptr || ptr == nullptr) return;
    d->SetDevice(dev.device_id);
    d->cuMemFree(reinterpret_cast<cuda::CUdeviceptr>(ptr));
  }
  void Copy(const void* from, Device from_dev, void* to, Device to_dev, size_t nbytes) override {
    if (nbytes == 0) return;
    bool from_gpu = from_dev.device_type == kDLCUDA;
    bool to_gpu = to_dev.device_type == kDLCUDA;
    const Driver& d = RequireDriver(from_gpu ? from_dev : to_dev);
    auto dptr = [](const void* p) { return reinterpret_cast<cuda::CUdeviceptr>(p); };
    if (from_gpu && to_gpu) {
      d.Check(d.cuMemcpyDtoD(dptr(to), dptr(from), nbytes), "cuMemcpyDtoD");
    } else if (from_gpu) {
      d.Check(d.cuMemcpyDtoH(to, dptr(from), nbytes), "cuMemcpyDtoH");
    } else {
      d.Check(d.cuMemcpyHtoD(dptr(to), from, nbytes), "cuMemcpyHtoD");
    }
  }
  void Sync(Device dev) override {
    const Driver& d = RequireDriver(dev);
    d.Check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  }
  std::optional<double> TimeOnDevice(Device dev, const std::function<void()>& work) override {
    const Driver& d = RequireDriver(dev);
    if (!d.cuEventCreate || !d.cuEventRecord || !d.cuEventSynchronize || !d.cuEventElapsedTime || !d.cuEventDestroy) {
      return std::nullopt;
    }
    cuda::CUevent start = nullptr;
    cuda::CUevent stop = nullptr;
    d.Check(d.cuEventCreate(&start, 0), "cuEventCreate");
    if (d.cuEventCreate(&stop, 0) != cuda::CUDA_SUCCESS) {
      d.cuEventDestroy(start);
      TESSERA_THROW(RuntimeError) << "CUDA call cuEventCreate failed";
    }
    struct Destroy {  // the events go on every path, errors of `work` included
      const Driver& d;
      cuda::CUevent a, b;
      ~Destroy() {
        d.cuEventDestroy(a);
        d.cuEventDestroy(b);
      }
    } destroy{d, start, stop};
    // Kernels launch on the legacy default stream (cuda_module.cc): the events go there too.
    d.Check(d.cuEventRecord(start, nullptr), "cuEventRecord");
    work();
    d.SetDevice(dev.device_id);  // `work` may have made another device current
    d.Check(d.cuEventRecord(stop, nullptr), "cuEventRecord");
    d.Check(d.cuEventSynchronize(stop), "cuEventSynchronize");
    float ms = 0;
    d.Check(d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    return static_cast<double>(ms) / 1000.0;
  }
  Any GetAttr(Device dev, const std::string& attr) override {
    if (!Exists(dev.device_id)) return Any();
    const Driver* d = Driver::Get();
    cuda::CUdevice cu_dev = 0;
    d->Check(d->cuDeviceGet(&cu_dev, dev.device_id), "cuDeviceGet");
    auto get = [&](int a) {
      int v = 0;
      d->Check(d->cuDeviceGetAttribute(&v, a, cu_dev), "cuDeviceGetAttribute");
      return static_cast<int64_t>(v);
    };
    if (attr == "name") {
      char name[256] = {0};
      d->Check(d->cuDeviceGetName(name, sizeof(name) - 1, cu_dev), "cuDeviceGetName");
      return std::string(name);
    }
    if (attr == "max_threads_per_block") return get(cuda::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    if (attr == "warp_size") return get(cuda::CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    if (attr == "max_shared_memory_per_block")
      return get(cuda::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    if (attr == "multi_processor_count") return get(cuda::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    if (attr == "compute_version") {
      return std::to_string(get(cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) + "." +
             std::to_string(get(cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
    }
    return Any();
  }
};

}  // namespace

DeviceAPI* CUDADeviceAPI() {
  static CUDADeviceAPIImpl* api = new CUDADeviceAPIImpl();
  return api;
}

}  // namespace tessera
