// NDArray allocation, copies and DLPack exchange (see ndarray.h).
#include "runtime/ndarray.h"

#include <cstdint>
#include <new>
#include <sstream>

#include "runtime/device_api.h"

namespace tessera {
namespace {

std::string ShapeStr(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) os << ",";
  os << ")";
  return os.str();
}

// Number of bytes of an array of `shape` and `dtype`; raises ValueError for a
// negative dimension and for an element count or byte size that does not fit
// in int64 (the shape is named), so no later copy or view works with a
// wrapped-around size. `what` names the operation ("empty", "from_dlpack").
size_t CheckedByteSize(const char* what, const std::vector<int64_t>& shape, DataType dtype) {
  int64_t elems = 1;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    TESSERA_CHECK_OR_THROW(shape[i] >= 0, ValueError)
        << what << ": NDArray shape " << ShapeStr(shape) << " has a negative dimension at axis " << i;
    overflow = overflow || __builtin_mul_overflow(elems, shape[i], &elems);
  }
  int64_t bytes = 0;
  if (!overflow && elems != 0) {
    // The same per-element size as NBytes() (DataType::bytes()), in 128 bits.
    const unsigned __int128 total = static_cast<unsigned __int128>(elems) * static_cast<unsigned>(dtype.bytes());
    overflow = total > static_cast<unsigned __int128>(INT64_MAX);
    if (!overflow) bytes = static_cast<int64_t>(total);
  }
  TESSERA_CHECK_OR_THROW(!overflow, ValueError)
      << what << ": NDArray shape " << ShapeStr(shape) << " of dtype " << dtype.str()
      << " has a byte size that overflows int64";
  return static_cast<size_t>(bytes);
}

void CheckDeviceExists(Device dev) {
  DeviceAPI* api = DeviceAPI::Get(dev);
  if (!api->Exists(dev.device_id)) {
    TESSERA_THROW(ValueError) << "device " << dev.str() << " does not exist on this machine";
  }
}

// DLPack export context: keeps the array alive while the consumer holds the view.
struct ExportContext {
  NDArray array;
  DLManagedTensor managed;
};

}  // namespace

NDArrayObj::~NDArrayObj() {
  if (foreign_release) {
    foreign_release();
  } else if (owns_data && dl.data != nullptr) {
    DeviceAPI::Get(Device::FromDLPack(dl.device))->Free(Device::FromDLPack(dl.device), dl.data);
  }
}

bool IsContiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  for (int i = 0; i < t.ndim; ++i)
    if (t.shape[i] == 0) return true;  // no elements: any strides describe it
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DataType dtype, Device dev) {
  TESSERA_CHECK_OR_THROW(!dtype.is_void() && dtype.code() != DataType::kHandle, TypeError)
      << "cannot allocate an NDArray of dtype " << dtype.str();
  const size_t nbytes = CheckedByteSize("empty", shape, dtype);
  CheckDeviceExists(dev);
  auto n = make_object<NDArrayObj>();
  n->shape = shape;
  n->dl.ndim = static_cast<int32_t>(shape.size());
  n->dl.shape = n->shape.data();
  n->dl.strides = nullptr;
  n->dl.dtype = dtype.ToDLPack();
  n->dl.device = dev.ToDLPack();
  n->dl.byte_offset = 0;
  NDArray arr(ObjectPtr<Object>(std::move(n)));
  auto* node = const_cast<NDArrayObj*>(arr.get());
  // Sizes the allocator could never satisfy (beyond PTRDIFF_MAX, or so large
  // that rounding up to the alignment wraps) are refused before calling it.
  TESSERA_CHECK_OR_THROW(nbytes <= static_cast<size_t>(PTRDIFF_MAX) - kTensorAlignment, MemoryError)
      << "empty: cannot allocate " << nbytes << " bytes for an NDArray of shape " << ShapeStr(shape) << " and dtype "
      << dtype.str();
  void* data = nullptr;
  try {
    data = DeviceAPI::Get(dev)->Alloc(dev, nbytes, kTensorAlignment);
  } catch (const std::bad_alloc&) {
    data = nullptr;
  } catch (const RuntimeError& e) {
    TESSERA_THROW(MemoryError) << "empty: allocating an NDArray of shape " << ShapeStr(shape) << " and dtype "
                               << dtype.str() << " (" << nbytes << " bytes) failed: " << e.what();
  }
  TESSERA_CHECK_OR_THROW(data != nullptr, MemoryError)
      << "empty: out of memory allocating an NDArray of shape " << ShapeStr(shape) << " and dtype " << dtype.str()
      << " (" << nbytes << " bytes) on " << dev.str();
  node->dl.data = data;
  node->owns_data = true;
  return arr;
}

namespace {

// Validates a foreign DLTensor and wraps it; `release` frees the foreign
// tensor and is called on rejection too.
NDArray WrapForeign(const DLTensor& t, std::function<void()> release, bool read_only) {
  try {
    DataType dtype = DataType::FromDLPack(t.dtype);  // validates the dtype
    TESSERA_CHECK_OR_THROW(t.ndim >= 0 && t.ndim <= 64, ValueError)
        << "from_dlpack: the tensor has ndim=" << t.ndim << " (need 0 to 64)";
    TESSERA_CHECK_OR_THROW(t.ndim == 0 || t.shape != nullptr, ValueError)
        << "from_dlpack: the tensor has ndim=" << t.ndim << " but no shape";
    const size_t nbytes = CheckedByteSize("from_dlpack", std::vector<int64_t>(t.shape, t.shape + t.ndim), dtype);
    TESSERA_CHECK_OR_THROW(nbytes == 0 || t.data != nullptr, ValueError)
        << "from_dlpack: the tensor holds " << nbytes << " bytes but its data pointer is null";
    if (t.dtype.lanes != 1) {
      TESSERA_THROW(TypeError) << "from_dlpack: vector dtypes (lanes=" << t.dtype.lanes << ") are not supported";
    }
    if (read_only) {
      TESSERA_THROW(ValueError) << "from_dlpack: the tensor is read-only; Tessera arrays are writable, so copy "
                                   "it instead (tvm.nd.array(...))";
    }
    if (!IsContiguous(t)) {
      std::vector<int64_t> shape(t.shape, t.shape + t.ndim), strides(t.strides, t.strides + t.ndim);
      TESSERA_THROW(ValueError) << "from_dlpack: the tensor of shape " << ShapeStr(shape)
                                << " has non-contiguous strides " << ShapeStr(strides)
                                << "; Tessera shares only row-major contiguous memory (make it "
                                   "contiguous first, e.g. tensor.contiguous())";
    }
  } catch (...) {
    release();
    throw;
  }
  auto n = make_object<NDArrayObj>();
  n->shape.assign(t.shape, t.shape + t.ndim);
  n->dl = t;
  n->dl.shape = n->shape.data();
  n->dl.strides = nullptr;
  n->foreign_release = std::move(release);
  return NDArray(ObjectPtr<Object>(std::move(n)));
}

}  // namespace

NDArray NDArray::FromDLPack(DLManagedTensor* tensor) {
  TESSERA_CHECK_OR_THROW(tensor != nullptr, ValueError) << "from_dlpack got a null tensor";
  return WrapForeign(tensor->dl_tensor, [tensor] { if (tensor->deleter) tensor->deleter(tensor); }, false);
}

NDArray NDArray::FromDLPackVersioned(DLManagedTensorVersioned* tensor) {
  TESSERA_CHECK_OR_THROW(tensor != nullptr, ValueError) << "from_dlpack got a null tensor";
  auto release = [tensor] { if (tensor->deleter) tensor->deleter(tensor); };
  if (tensor->version.major != 1) {
    uint32_t major = tensor->version.major;
    release();
    TESSERA_THROW(ValueError) << "from_dlpack: unsupported DLPack major version " << major;
  }
  return WrapForeign(tensor->dl_tensor, release, (tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
}

DLManagedTensor* NDArray::ToDLPack() const {
  auto* ctx = new ExportContext{*this, {}};
  ctx->managed.dl_tensor = get()->dl;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  return &ctx->managed;
}

namespace {
struct ExportContextVersioned {
  NDArray array;
  DLManagedTensorVersioned managed;
};
}  // namespace

DLManagedTensorVersioned* NDArray::ToDLPackVersioned() const {
  auto* ctx = new ExportContextVersioned{*this, {}};
  ctx->managed.version = DLPackVersion{1, 0};
  ctx->managed.flags = 0;
  ctx->managed.dl_tensor = get()->dl;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensorVersioned* self) {
    delete static_cast<ExportContextVersioned*>(self->manager_ctx);
  };
  return &ctx->managed;
}

// Every construction path (Empty, WrapForeign) checked that the shape's
// element count and byte size fit in int64, so these cannot overflow.
int64_t NDArray::NumElements() const {
  int64_t n = 1;
  for (int64_t d : get()->shape) n *= d;
  return n;
}

size_t NDArray::NBytes() const {
  return static_cast<size_t>(NumElements()) * static_cast<size_t>(dtype().bytes());
}

void* NDArray::DataPtr() const {
  return static_cast<char*>(get()->dl.data) + get()->dl.byte_offset;
}

void NDArray::CopyFrom(const NDArray& other) const {
  if (Shape() != other.Shape()) {
    TESSERA_THROW(ValueError) << "copy between arrays of different shapes: " << ShapeStr(other.Shape())
                              << " into " << ShapeStr(Shape());
  }
  if (dtype() != other.dtype()) {
    TESSERA_THROW(TypeError) << "copy between arrays of different dtypes: " << other.dtype()
                             << " into " << dtype();
  }
  Device from = other.device(), to = device();
  DeviceAPI* api = DeviceAPI::Get(from.device_type == kDLCUDA ? from : to);
  api->Copy(other.DataPtr(), from, DataPtr(), to, NBytes());
}

NDArray NDArray::CopyTo(Device dev) const {
  NDArray out = Empty(Shape(), dtype(), dev);
  out.CopyFrom(*this);
  return out;
}

void NDArray::CopyFromBytes(const void* data, size_t nbytes) const {
  TESSERA_CHECK_OR_THROW(nbytes == NBytes(), ValueError)
      << "copy of " << nbytes << " bytes into an array of " << NBytes() << " bytes";
  DeviceAPI::Get(device())->Copy(data, CPU(), DataPtr(), device(), nbytes);
}

void NDArray::CopyToBytes(void* data, size_t nbytes) const {
  TESSERA_CHECK_OR_THROW(nbytes == NBytes(), ValueError)
      << "copy of an array of " << NBytes() << " bytes into " << nbytes << " bytes";
  DeviceAPI::Get(device())->Copy(DataPtr(), device(), data, CPU(), nbytes);
}

TESSERA_REGISTER_OBJECT_TYPE(NDArrayObj);

}  // namespace tessera
