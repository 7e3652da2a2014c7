// Device naming (see device.h).
#include "runtime/device.h"

#include <map>
#include <mutex>

#include "runtime/error.h"

namespace tessera {
namespace {

struct DeviceNames {
  std::mutex mu;
  std::map<std::string, DLDeviceType> names{{"cpu", kDLCPU},       {"stackvm", kDLCPU}, {"cuda", kDLCUDA},
                                            {"gpu", kDLCUDA},      {"cuda_host", kDLCUDAHost},
                                            {"opencl", kDLOpenCL}, {"cl", kDLOpenCL}, {"vulkan", kDLVulkan},
                                            {"metal", kDLMetal},   {"rocm", kDLROCM}};
  static DeviceNames* Global() {
    static DeviceNames* d = new DeviceNames();
    return d;
  }
};

}  // namespace

void RegisterDeviceName(const std::string& name, DLDeviceType type) {
  DeviceNames* d = DeviceNames::Global();
  std::lock_guard<std::mutex> lock(d->mu);
  d->names[name] = type;
}

std::string DeviceTypeName(DLDeviceType type) {
  switch (type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLROCM: return "rocm";
    default: return "device" + std::to_string(static_cast<int>(type));
  }
}

DLDeviceType ParseDeviceType(const std::string& name) {
  DeviceNames* d = DeviceNames::Global();
  {
    std::lock_guard<std::mutex> lock(d->mu);
    auto it = d->names.find(name);
    if (it != d->names.end()) return it->second;
  }
  TESSERA_THROW(ValueError) << "unknown device name '" << name
                            << "' (expected 'cpu', 'llvm', 'cuda' or 'gpu')";
}

std::string Device::str() const {
  return DeviceTypeName(device_type) + "(" + std::to_string(device_id) + ")";
}

}  // namespace tessera
