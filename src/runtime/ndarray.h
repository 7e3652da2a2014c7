// NDArray: an n-dimensional tensor on a device, the runtime's data
// container. Memory comes from the device's DeviceAPI (64-byte aligned) or
// from a foreign framework through DLPack, zero copy in both directions.
// Runtime layer; compiled functions take NDArrays as arguments.
#pragma once

#include <dlpack/dlpack.h>

#include <functional>
#include <vector>

#include "runtime/data_type.h"
#include "runtime/device.h"
#include "runtime/object.h"

// DLPack 1.0's versioned managed tensor (the system header may predate it;
// the layout is fixed by the DLPack ABI).
#ifndef DLPACK_MAJOR_VERSION
extern "C" {
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#endif

namespace tessera {

class NDArrayObj : public Object {
 public:
  NDArrayObj() = default;
  NDArrayObj(const NDArrayObj&) = delete;
  ~NDArrayObj() override;

  DLTensor dl{};                  // shape/strides point into the vectors below
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;   // empty when compact (row major)
  bool owns_data = false;              // allocated through DeviceAPI
  std::function<void()> foreign_release;  // imported through DLPack: calls its deleter

  TESSERA_DECLARE_FINAL_OBJECT_INFO(NDArrayObj, Object, "runtime.NDArray");
};

class NDArray : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(NDArray, ObjectRef, NDArrayObj);

  // Allocates an uninitialized compact array. Raises ValueError on negative
  // dimensions and for devices that do not exist.
  static NDArray Empty(const std::vector<int64_t>& shape, DataType dtype, Device dev);
  // Takes ownership of a DLPack tensor (zero copy). Non-contiguous tensors
  // and unsupported dtypes are rejected (the tensor is released) with a
  // message naming the problem.
  static NDArray FromDLPack(DLManagedTensor* tensor);
  // Same for DLPack >= 1.0 tensors; read-only tensors are rejected too.
  static NDArray FromDLPackVersioned(DLManagedTensorVersioned* tensor);
  // Exports a DLPack view sharing this array's memory; the view keeps the
  // array alive until its deleter runs.
  DLManagedTensor* ToDLPack() const;
  DLManagedTensorVersioned* ToDLPackVersioned() const;

  const std::vector<int64_t>& Shape() const { return get()->shape; }
  DataType dtype() const { return DataType::FromDLPack(get()->dl.dtype); }
  Device device() const { return Device::FromDLPack(get()->dl.device); }
  int ndim() const { return get()->dl.ndim; }
  int64_t NumElements() const;
  size_t NBytes() const;
  // Pointer to the first element (data + byte_offset).
  void* DataPtr() const;
  const DLTensor* dltensor() const { return &get()->dl; }

  // Copies between arrays of equal shape and dtype, across devices.
  void CopyFrom(const NDArray& other) const;
  void CopyTo(const NDArray& other) const { other.CopyFrom(*this); }
  NDArray CopyTo(Device dev) const;
  // Raw byte copies from/to host memory; nbytes must equal NBytes().
  void CopyFromBytes(const void* data, size_t nbytes) const;
  void CopyToBytes(void* data, size_t nbytes) const;
};

// Row-major shape check of a DLTensor (size-1 dimensions may carry any stride).
bool IsContiguous(const DLTensor& t);

}  // namespace tessera
