// DeviceAPI for host memory: aligned allocation and memcpy (see device_api.h).
#include <cstdlib>
#include <cstring>
#include <thread>

#include "runtime/device_api.h"

namespace tessera {
namespace {

class CPUDeviceAPIImpl final : public DeviceAPI {
 public:
  bool Exists(int device_id) override { return device_id == 0; }
  void* Alloc(Device, size_t nbytes, size_t alignment) override {
    if (alignment < kTensorAlignment) alignment = kTensorAlignment;
    size_t size = (nbytes + alignment - 1) / alignment * alignment;
    if (size == 0) size = alignment;
    void* p = std::aligned_alloc(alignment, size);
    if (p == nullptr) {
      TESSERA_THROW(RuntimeError) << "out of host memory allocating " << nbytes << " bytes";
    }
    return p;
  }
  void Free(Device, void* ptr) override { std::free(ptr); }
  void Copy(const void* from, Device from_dev, void* to, Device to_dev, size_t nbytes) override {
    if (from_dev.device_type == kDLCUDA || to_dev.device_type == kDLCUDA) {
      CUDADeviceAPI()->Copy(from, from_dev, to, to_dev, nbytes);
      return;
    }
    if (nbytes) std::memcpy(to, from, nbytes);
  }
  void Sync(Device) override {}
  Any GetAttr(Device, const std::string& attr) override {
    if (attr == "name") return std::string("cpu");
    if (attr == "num_cores") return static_cast<int64_t>(std::thread::hardware_concurrency());
    return Any();
  }
};

}  // namespace

DeviceAPI* CPUDeviceAPI() {
  static CPUDeviceAPIImpl* api = new CPUDeviceAPIImpl();
  return api;
}

}  // namespace tessera
