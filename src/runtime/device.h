// Device: where a tensor lives or a kernel runs (kind + ordinal), with TVM's
// names ("cpu", "cuda", "gpu"; target kinds such as "llvm" add theirs). Runtime layer; layout is DLPack's
// DLDevice so arrays cross DLPack without translation.
#pragma once

#include <dlpack/dlpack.h>

#include <string>

namespace tessera {

struct Device {
  DLDeviceType device_type = kDLCPU;
  int device_id = 0;

  bool operator==(const Device& o) const {
    return device_type == o.device_type && device_id == o.device_id;
  }
  bool operator!=(const Device& o) const { return !(*this == o); }
  DLDevice ToDLPack() const { return DLDevice{device_type, device_id}; }
  static Device FromDLPack(DLDevice d) { return Device{d.device_type, d.device_id}; }

  // "cpu(0)", "cuda(1)" as TVM prints devices.
  std::string str() const;
};

inline Device CPU(int id = 0) { return Device{kDLCPU, id}; }
inline Device CUDA(int id = 0) { return Device{kDLCUDA, id}; }

// Short name of a device type ("cpu", "cuda", ...).
std::string DeviceTypeName(DLDeviceType type);
// Parses a device or target name; raises ValueError for unknown names.
DLDeviceType ParseDeviceType(const std::string& name);
// Makes `name` (a target kind: "llvm", "c", "nvptx") a name of `type`;
// target kinds register theirs with their device type (target_kind.h).
void RegisterDeviceName(const std::string& name, DLDeviceType type);

}  // namespace tessera
