// dlopen-based loading of the CUDA driver API (see cuda_driver.h).
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

#include "runtime/error.h"

namespace tessera {
namespace cuda {
namespace {

struct Loaded {
  Driver driver{};
  bool ok = false;
  std::string why;
  std::vector<CUcontext> contexts;
  std::mutex mu;
};

Loaded* Load() {
  static Loaded* loaded = [] {
    auto* l = new Loaded();
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      l->why = "the CUDA driver (libcuda.so.1) is not installed";
      return l;
    }
    bool all = true;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (fn == nullptr) all = false;
    };
    Driver& d = l->driver;
    sym(d.cuInit, "cuInit");
    sym(d.cuDeviceGetCount, "cuDeviceGetCount");
    sym(d.cuDeviceGet, "cuDeviceGet");
    sym(d.cuDeviceGetName, "cuDeviceGetName");
    sym(d.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    sym(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    sym(d.cuCtxSynchronize, "cuCtxSynchronize");
    sym(d.cuMemAlloc, "cuMemAlloc_v2");
    sym(d.cuMemFree, "cuMemFree_v2");
    sym(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    sym(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    sym(d.cuMemcpyDtoD, "cuMemcpyDtoD_v2");
    sym(d.cuGetErrorString, "cuGetErrorString");
    sym(d.cuModuleLoadData, "cuModuleLoadData");
    sym(d.cuModuleGetFunction, "cuModuleGetFunction");
    sym(d.cuModuleUnload, "cuModuleUnload");
    sym(d.cuLaunchKernel, "cuLaunchKernel");
    sym(d.cuFuncSetAttribute, "cuFuncSetAttribute");
    if (all) {  // optional entry points: the timer falls back to the host clock without them
      bool required = all;
      sym(d.cuEventCreate, "cuEventCreate");
      sym(d.cuEventRecord, "cuEventRecord");
      sym(d.cuEventSynchronize, "cuEventSynchronize");
      sym(d.cuEventElapsedTime, "cuEventElapsedTime");
      sym(d.cuEventDestroy, "cuEventDestroy_v2");
      all = required;
    }
    if (!all) {
      l->why = "the CUDA driver library lacks required entry points";
      return l;
    }
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS) {
      l->why = "cuInit failed with code " + std::to_string(r) + " (no usable GPU?)";
      return l;
    }
    int count = 0;
    if (d.cuDeviceGetCount(&count) != CUDA_SUCCESS) count = 0;
    l->contexts.assign(static_cast<size_t>(count), nullptr);
    l->ok = true;
    return l;
  }();
  return loaded;
}

}  // namespace

const Driver* Driver::Get(std::string* why) {
  Loaded* l = Load();
  if (!l->ok) {
    if (why) *why = l->why;
    return nullptr;
  }
  return &l->driver;
}

void Driver::Check(CUresult r, const char* call) const {
  if (r == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  if (cuGetErrorString) cuGetErrorString(r, &msg);
  TESSERA_THROW(RuntimeError) << "CUDA call " << call << " failed: " << (msg ? msg : "unknown error")
                              << " (code " << r << ")";
}

void Driver::SetDevice(int device_id) const {
  Loaded* l = Load();
  std::lock_guard<std::mutex> lock(l->mu);
  if (device_id < 0 || static_cast<size_t>(device_id) >= l->contexts.size()) {
    TESSERA_THROW(ValueError) << "cuda(" << device_id << ") does not exist ("
                              << l->contexts.size() << " CUDA devices found)";
  }
  CUcontext& ctx = l->contexts[static_cast<size_t>(device_id)];
  if (ctx == nullptr) {
    CUdevice dev = 0;
    Check(cuDeviceGet(&dev, device_id), "cuDeviceGet");
    Check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  }
  Check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

}  // namespace cuda
}  // namespace tessera
