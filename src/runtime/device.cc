// Device naming (see device.h).
#include "runtime/device.h"

#include "runtime/error.h"

namespace tessera {

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
  if (name == "cpu" || name == "llvm" || name == "c" || name == "stackvm") return kDLCPU;
  if (name == "cuda" || name == "gpu" || name == "nvptx") return kDLCUDA;
  if (name == "cuda_host") return kDLCUDAHost;
  if (name == "opencl" || name == "cl") return kDLOpenCL;
  if (name == "vulkan") return kDLVulkan;
  if (name == "metal") return kDLMetal;
  if (name == "rocm") return kDLROCM;
  TESSERA_THROW(ValueError) << "unknown device name '" << name
                            << "' (expected 'cpu', 'llvm', 'cuda' or 'gpu')";
}

std::string Device::str() const {
  return DeviceTypeName(device_type) + "(" + std::to_string(device_id) + ")";
}

}  // namespace tessera
