// NDArray: allocation, alignment, copies and DLPack ownership.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/device_api.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace {

TEST(NDArray, EmptyIsAlignedAndSized) {
  for (int64_t n : {0, 1, 7, 1000}) {
    NDArray a = NDArray::Empty({n, 3}, DataType::Float(32), CPU());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.DataPtr()) % kTensorAlignment, 0u);
    EXPECT_EQ(a.NumElements(), n * 3);
    EXPECT_EQ(a.NBytes(), static_cast<size_t>(n * 3 * 4));
    EXPECT_EQ(a.ndim(), 2);
    EXPECT_EQ(a.Shape(), (std::vector<int64_t>{n, 3}));
  }
  EXPECT_EQ(NDArray::Empty({5}, DataType::Bool(), CPU()).NBytes(), 5u);
  EXPECT_EQ(NDArray::Empty({2}, DataType::Float(32, 4), CPU()).NBytes(), 32u);
}

TEST(NDArray, RejectsBadRequests) {
  EXPECT_THROW(NDArray::Empty({2, -1}, DataType::Float(32), CPU()), ValueError);
  EXPECT_THROW(NDArray::Empty({2}, DataType::Void(), CPU()), TypeError);
  EXPECT_THROW(NDArray::Empty({2}, DataType::Float(32), CPU(3)), ValueError);
}

TEST(NDArray, RefusesOverflowingShapesAndUnallocatableSizes) {
  const int64_t big = int64_t{1} << 32;
  EXPECT_THROW(NDArray::Empty({big, big}, DataType::Float(32), CPU()), ValueError);  // 2^64 elements
  EXPECT_THROW(NDArray::Empty({int64_t{1} << 62, 4}, DataType::Int(8), CPU()), ValueError);
  EXPECT_THROW(NDArray::Empty({int64_t{1} << 61}, DataType::Float(64), CPU()), ValueError);  // 2^64 bytes
  EXPECT_THROW(NDArray::Empty({3, -1}, DataType::Float(32), CPU()), ValueError);
  EXPECT_EQ(NDArray::Empty({0, int64_t{1} << 62}, DataType::Float(32), CPU()).NBytes(), 0u);
}

TEST(NDArray, CopiesRoundTrip) {
  std::vector<float> src(12);
  std::iota(src.begin(), src.end(), 0.5f);
  NDArray a = NDArray::Empty({3, 4}, DataType::Float(32), CPU());
  a.CopyFromBytes(src.data(), src.size() * sizeof(float));
  NDArray b = a.CopyTo(CPU());
  EXPECT_NE(a.DataPtr(), b.DataPtr());
  std::vector<float> dst(12, 0.f);
  b.CopyToBytes(dst.data(), dst.size() * sizeof(float));
  EXPECT_EQ(src, dst);
  EXPECT_THROW(a.CopyFromBytes(src.data(), 4), ValueError);
  NDArray wrong_shape = NDArray::Empty({4, 3}, DataType::Float(32), CPU());
  EXPECT_THROW(wrong_shape.CopyFrom(a), ValueError);
  NDArray wrong_dtype = NDArray::Empty({3, 4}, DataType::Int(32), CPU());
  EXPECT_THROW(wrong_dtype.CopyFrom(a), TypeError);
}

TEST(NDArray, DLPackExportSharesMemoryAndKeepsArrayAlive) {
  DLManagedTensor* t = nullptr;
  const void* data = nullptr;
  {
    NDArray a = NDArray::Empty({4}, DataType::Int(32), CPU());
    int32_t v[4] = {1, 2, 3, 4};
    a.CopyFromBytes(v, sizeof(v));
    t = a.ToDLPack();
    data = a.DataPtr();
    EXPECT_EQ(a.use_count(), 2);  // the export holds a reference
  }
  ASSERT_EQ(t->dl_tensor.data, data);
  EXPECT_EQ(static_cast<int32_t*>(t->dl_tensor.data)[3], 4);  // still alive
  // Re-import the exported view: same memory, ownership returns to an NDArray.
  NDArray back = NDArray::FromDLPack(t);
  EXPECT_EQ(back.DataPtr(), data);
  EXPECT_EQ(back.dtype(), DataType::Int(32));
}

struct ForeignTensor {
  static inline int deleted = 0;
  std::vector<int64_t> shape, strides;
  std::vector<float> storage;
  DLManagedTensor managed{};
};

DLManagedTensor* MakeForeign(std::vector<int64_t> shape, std::vector<int64_t> strides) {
  auto* f = new ForeignTensor();
  f->shape = std::move(shape);
  f->strides = std::move(strides);
  f->storage.assign(64, 1.0f);
  f->managed.dl_tensor.data = f->storage.data();
  f->managed.dl_tensor.device = DLDevice{kDLCPU, 0};
  f->managed.dl_tensor.ndim = static_cast<int32_t>(f->shape.size());
  f->managed.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
  f->managed.dl_tensor.shape = f->shape.data();
  f->managed.dl_tensor.strides = f->strides.empty() ? nullptr : f->strides.data();
  f->managed.manager_ctx = f;
  f->managed.deleter = [](DLManagedTensor* self) {
    ++ForeignTensor::deleted;
    delete static_cast<ForeignTensor*>(self->manager_ctx);
  };
  return &f->managed;
}

TEST(NDArray, DLPackImportOwnsAndReleasesForeignMemory) {
  ForeignTensor::deleted = 0;
  {
    NDArray a = NDArray::FromDLPack(MakeForeign({2, 3}, {3, 1}));
    EXPECT_EQ(a.Shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(ForeignTensor::deleted, 0);
  }
  EXPECT_EQ(ForeignTensor::deleted, 1);
  // Size-1 dimensions may carry any stride and still count as contiguous.
  NDArray::FromDLPack(MakeForeign({2, 1, 3}, {3, 99, 1}));
  EXPECT_EQ(ForeignTensor::deleted, 2);
}

TEST(NDArray, DLPackImportRejectsNonContiguousAndReleases) {
  ForeignTensor::deleted = 0;
  try {
    NDArray::FromDLPack(MakeForeign({3, 2}, {1, 3}));  // a transposed view
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("non-contiguous"), std::string::npos);
  }
  EXPECT_EQ(ForeignTensor::deleted, 1);
}

TEST(DeviceAPI, CudaIsAbsentWithoutADriverAndSaysWhy) {
  DeviceAPI* cuda = DeviceAPI::Get(kDLCUDA);
  if (cuda->Exists(0)) GTEST_SKIP() << "a GPU is present";
  EXPECT_THROW(NDArray::Empty({4}, DataType::Float(32), CUDA(0)), ValueError);
  EXPECT_TRUE(cuda->GetAttr(CUDA(0), "name").is_none());
}

}  // namespace
}  // namespace tessera
