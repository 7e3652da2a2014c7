// The C++ per-store feature extractor (src/meta_schedule/feature_extractor) on
// a loop built by hand: C[i] = A[i] + B[i] for i in a vectorized loop of 64.
// Expected values are computed by hand (log2(1 + x) of counts and bytes).
#include <gtest/gtest.h>

#include <cmath>

#include "meta_schedule/feature_extractor/per_store_feature.h"
#include "tir/buffer.h"
#include "tir/function.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace tessera {
namespace meta_schedule {
namespace {

using namespace tir;

double L(double x) { return std::log2(x + 1); }

IRModule VecAdd(int64_t n, ForKind kind) {
  Buffer a = decl_buffer({IntImm(DataType::Int(64), n)}, DataType::Float(32), "A");
  Buffer b = decl_buffer({IntImm(DataType::Int(64), n)}, DataType::Float(32), "B");
  Buffer c = decl_buffer({IntImm(DataType::Int(64), n)}, DataType::Float(32), "C");
  Var i("i", DataType::Int(64));
  Stmt store = BufferStore(c, add(BufferLoad(a, {i}), BufferLoad(b, {i})), {i});
  Stmt loop = For(i, IntImm(DataType::Int(64), 0), IntImm(DataType::Int(64), n), kind, store);
  Var pa("pa", DataType::Handle()), pb("pb", DataType::Handle()), pc("pc", DataType::Handle());
  PrimFunc f({pa, pb, pc}, loop, {{pa, a}, {pb, b}, {pc, c}});
  return IRModule({{GlobalVar("main"), f}});
}

TEST(PerStoreFeature, LengthOfTheDefaultConfigurationIsTVMs) {
  PerStoreFeatureConfig config;
  EXPECT_EQ(PerStoreFeatureLength(config, false), 164);
  EXPECT_EQ(PerStoreFeatureLength(config, true), 172);
  config.buffers_per_store = 0;
  EXPECT_THROW(PerStoreFeatureLength(config, false), ValueError);
}

TEST(PerStoreFeature, VectorizedAdd) {
  auto rows = ExtractPerStoreFeatures(VecAdd(64, ForKind::kVectorized), PerStoreFeatureConfig());
  ASSERT_EQ(rows.size(), 1u);
  const std::vector<double>& r = rows[0];
  ASSERT_EQ(r.size(), 164u);
  EXPECT_DOUBLE_EQ(r[1], L(64));  // float add, 64 iterations
  EXPECT_DOUBLE_EQ(r[2], 0.0);
  EXPECT_DOUBLE_EQ(r[16], L(1));   // one vectorized loop
  EXPECT_DOUBLE_EQ(r[18], L(64));  // of length 64
  EXPECT_DOUBLE_EQ(r[38], 0.0);    // no parallel loop
  // the written buffer C: 256 bytes, 4 cache lines of 64 bytes, unit stride
  bool found_write = false;
  for (int k = 0; k < 3; ++k) {
    const double* b = &r[57 + 18 * k];
    if (b[1] != 1.0) continue;
    found_write = true;
    EXPECT_DOUBLE_EQ(b[3], L(256));
    EXPECT_DOUBLE_EQ(b[5], L(4));
    EXPECT_DOUBLE_EQ(b[17], L(1));
  }
  EXPECT_TRUE(found_write);
  EXPECT_DOUBLE_EQ(r[161], L(64));  // outer loop product
}

TEST(PerStoreFeature, SymbolicAndHugeExtentsStayFinite) {
  auto rows = ExtractPerStoreFeatures(VecAdd(int64_t{1} << 40, ForKind::kSerial), PerStoreFeatureConfig());
  ASSERT_EQ(rows.size(), 1u);
  for (double v : rows[0]) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NEAR(rows[0][161], 40.0, 1e-9);
}

}  // namespace
}  // namespace meta_schedule
}  // namespace tessera
