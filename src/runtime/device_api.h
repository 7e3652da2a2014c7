// DeviceAPI: per-device-kind memory and synchronization services (allocate,
// free, copy, sync, query). NDArray and compiled modules use it; the CPU
// implementation is built in and the CUDA one loads the driver with dlopen,
// so nothing needs a GPU to build or run on the CPU. Runtime layer.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "runtime/any.h"
#include "runtime/device.h"

namespace tessera {

class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;
  // Whether device `id` of this kind is present and usable now.
  virtual bool Exists(int device_id) = 0;
  virtual void* Alloc(Device dev, size_t nbytes, size_t alignment) = 0;
  virtual void Free(Device dev, void* ptr) = 0;
  // Copies nbytes between two devices of which at least one is of this kind.
  virtual void Copy(const void* from, Device from_dev, void* to, Device to_dev, size_t nbytes) = 0;
  virtual void Sync(Device dev) = 0;
  // Named attribute ("name", "max_threads_per_block", "compute_version",
  // "warp_size", "multi_processor_count", ...); None when unknown.
  virtual Any GetAttr(Device dev, const std::string& attr) = 0;
  // Seconds the device spends on what `work` enqueues, measured on the device
  // (CUDA events around it); nullopt when the kind has no such timer (the
  // caller then times with the host clock and Sync).
  virtual std::optional<double> TimeOnDevice(Device dev, const std::function<void()>& work) {
    (void)dev;
    (void)work;
    return std::nullopt;
  }

  // The API for a device kind; raises ValueError for kinds without one.
  static DeviceAPI* Get(DLDeviceType type);
  static DeviceAPI* Get(Device dev) { return Get(dev.device_type); }
};

// Default alignment of tensor allocations (bytes).
constexpr size_t kTensorAlignment = 64;

DeviceAPI* CPUDeviceAPI();
DeviceAPI* CUDADeviceAPI();

}  // namespace tessera
