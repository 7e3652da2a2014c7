// Storage, tensor views into it and the storage pool (see memory.h).
#include "runtime/vm/memory.h"

namespace tessera::runtime::vm {

namespace {
constexpr size_t kMaxCachedViews = 8;
constexpr size_t kMaxPooledStorages = 1024;
}  // namespace

Storage Storage::Create(int64_t nbytes, Device dev) {
  TESSERA_CHECK_OR_THROW(nbytes >= 0, ValueError) << "alloc_storage: negative size " << nbytes << " bytes";
  auto n = make_object<StorageObj>();
  n->buffer = NDArray::Empty({nbytes}, DataType("uint8"), dev);
  n->device = dev;
  n->nbytes = nbytes;
  return Storage(ObjectPtr<Object>(std::move(n)));
}

bool StorageObj::AllViewsFree() const {
  // The buffer is referenced by this storage and by each live view.
  if (buffer.use_count() != 1 + static_cast<int32_t>(view_cache.size())) return false;
  for (const NDArray& v : view_cache) {
    if (v.use_count() != 1) return false;
  }
  return true;
}

NDArray StorageObj::AllocTensor(int64_t offset, const std::vector<int64_t>& shape, DataType dtype) {
  TESSERA_CHECK_OR_THROW(!dtype.is_void() && dtype.code() != DataType::kHandle, TypeError)
      << "alloc_tensor: cannot make a tensor of dtype " << dtype.str();
  TESSERA_CHECK_OR_THROW(offset >= 0, ValueError) << "alloc_tensor: negative offset " << offset;
  const int64_t elem = std::max(1, dtype.bytes());
  TESSERA_CHECK_OR_THROW(offset % elem == 0, ValueError)
      << "alloc_tensor: offset " << offset << " is not a multiple of the size of " << dtype.str() << " (" << elem
      << " bytes)";
  int64_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    TESSERA_CHECK_OR_THROW(shape[i] >= 0, ValueError)
        << "alloc_tensor: shape " << ShapeString(shape) << " has a negative dimension at axis " << i;
    TESSERA_CHECK_OR_THROW(!__builtin_mul_overflow(count, shape[i], &count), ValueError)
        << "alloc_tensor: shape " << ShapeString(shape) << " is too large";
  }
  int64_t bytes = 0;
  TESSERA_CHECK_OR_THROW(!__builtin_mul_overflow(count, static_cast<int64_t>(dtype.bytes()), &bytes) &&
                             bytes <= nbytes && offset <= nbytes - bytes,
                         ValueError)
      << "alloc_tensor: a tensor of shape " << ShapeString(shape) << " and dtype " << dtype.str() << " at offset "
      << offset << " does not fit in a storage of " << nbytes << " bytes";
  const DLDataType dl_dtype = dtype.ToDLPack();
  for (const NDArray& v : view_cache) {
    const DLTensor& t = v->dl;
    if (v.use_count() == 1 && static_cast<int64_t>(t.byte_offset) == offset && v->shape == shape &&
        t.dtype.code == dl_dtype.code && t.dtype.bits == dl_dtype.bits && t.dtype.lanes == dl_dtype.lanes) {
      return v;
    }
  }
  auto n = make_object<NDArrayObj>();
  n->shape = shape;
  n->dl.ndim = static_cast<int32_t>(shape.size());
  n->dl.shape = n->shape.data();
  n->dl.strides = nullptr;
  n->dl.dtype = dl_dtype;
  n->dl.device = buffer->dl.device;
  n->dl.data = buffer->dl.data;
  n->dl.byte_offset = static_cast<uint64_t>(offset);
  n->owns_data = false;
  // The view keeps the bytes alive (not the storage: the cache would make a cycle).
  n->foreign_release = [keep = buffer]() {};
  NDArray view(ObjectPtr<Object>(std::move(n)));
  if (view_cache.size() < kMaxCachedViews) view_cache.push_back(view);
  return view;
}

Storage StoragePool::Alloc(int64_t nbytes, Device dev) {
  for (const Storage& s : pool_) {
    if (s.use_count() == 1 && s->nbytes == nbytes && s->device == dev && s->AllViewsFree()) return s;
  }
  Storage s = Storage::Create(nbytes, dev);
  if (pool_.size() >= kMaxPooledStorages) {
    // Full: forget a free storage (its memory goes back to the device), if any.
    for (size_t i = 0; i < pool_.size(); ++i) {
      if (pool_[i].use_count() == 1 && pool_[i]->AllViewsFree()) {
        pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
  if (pool_.size() < kMaxPooledStorages) pool_.push_back(s);
  return s;
}

TESSERA_REGISTER_OBJECT_TYPE(StorageObj);

}  // namespace tessera::runtime::vm
