// VM memory: Storage (one device allocation that tensors are carved from,
// what vm.builtin.alloc_storage returns) and the per-VM storage pool. A
// storage whose every tensor is dead is reused by the next allocation of the
// same size, and tensor views are reused the same way, so a program with
// static shapes allocates nothing in steady state. Runtime layer.
#pragma once

#include <vector>

#include "runtime/ndarray.h"
#include "runtime/shape_tuple.h"

namespace tessera::runtime::vm {

class StorageObj : public Object {
 public:
  NDArray buffer;  // 1-D uint8 array owning the bytes
  Device device;
  int64_t nbytes = 0;
  // Views made by AllocTensor; one whose only reference is this cache is free.
  std::vector<NDArray> view_cache;

  // A tensor of `shape` and `dtype` at byte `offset`, sharing this storage's
  // memory. ValueError when it does not fit or is misaligned for `dtype`.
  NDArray AllocTensor(int64_t offset, const std::vector<int64_t>& shape, DataType dtype);
  // Whether no tensor of this storage is referenced outside the cache.
  bool AllViewsFree() const;

  TESSERA_DECLARE_FINAL_OBJECT_INFO(StorageObj, Object, "vm.Storage");
};

class Storage : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Storage, ObjectRef, StorageObj);
  // A new storage of `nbytes` on `dev` (64-byte aligned).
  static Storage Create(int64_t nbytes, Device dev);
};

// The pooled allocator of one VM: reuses storages nobody references.
class StoragePool {
 public:
  Storage Alloc(int64_t nbytes, Device dev);
  size_t size() const { return pool_.size(); }
  void Clear() { pool_.clear(); }

 private:
  std::vector<Storage> pool_;
};

}  // namespace tessera::runtime::vm
