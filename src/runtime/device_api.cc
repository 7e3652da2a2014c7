// DeviceAPI dispatch by device kind (see device_api.h).
#include "runtime/device_api.h"

namespace tessera {

DeviceAPI* DeviceAPI::Get(DLDeviceType type) {
  switch (type) {
    case kDLCPU:
    case kDLCUDAHost: return CPUDeviceAPI();
    case kDLCUDA: return CUDADeviceAPI();
    default:
      TESSERA_THROW(ValueError) << "device kind '" << DeviceTypeName(type)
                                << "' is not supported (Tessera supports cpu and cuda)";
  }
}

}  // namespace tessera
