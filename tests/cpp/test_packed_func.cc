// PackedFunc, typed wrappers, Any conversions and the global registry.
#include <gtest/gtest.h>

#include "runtime/array.h"
#include "runtime/ndarray.h"
#include "runtime/registry.h"

namespace tessera {
namespace {

TEST(Any, HoldsEachKindAndChecksCasts) {
  EXPECT_EQ(Any(int64_t{5}).cast<int>(), 5);
  EXPECT_EQ(Any(2.5).cast<double>(), 2.5);
  EXPECT_EQ(Any(3).cast<double>(), 3.0);  // ints widen to float
  EXPECT_TRUE(Any(true).cast<bool>());
  EXPECT_EQ(Any("abc").cast<std::string>(), "abc");
  EXPECT_EQ(Any("float16").cast<DataType>(), DataType::Float(16));  // dtype strings parse
  EXPECT_EQ(Any(CUDA(2)).cast<Device>(), CUDA(2));
  EXPECT_TRUE(Any().is_none());
  EXPECT_THROW(Any("abc").cast<int>(), TypeError);
  EXPECT_THROW(Any(1.5).cast<int>(), TypeError);  // no silent truncation
  EXPECT_THROW(Any(1).cast<NDArray>(), TypeError);
  EXPECT_FALSE(Any().cast<NDArray>().defined());  // None -> undefined reference
  EXPECT_EQ(Any("abc").try_cast<int>(), std::nullopt);
  try {
    Any("abc").cast<int>();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "expected int but got str");
  }
}

TEST(PackedFunc, TypedWrapperConvertsAndNamesBadArguments) {
  PackedFunc add = PackedFunc::FromTyped([](int64_t a, double b) { return a + b; }, "add");
  EXPECT_EQ(add(int64_t{2}, 0.5).cast<double>(), 2.5);
  try {
    add(1, "x");
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "add: argument 1: expected float but got str");
  }
  try {
    add(1);
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "add expects 2 arguments but got 1");
  }
  PackedFunc noret = PackedFunc::FromTyped([](std::string) {});
  EXPECT_TRUE(noret("x").is_none());
}

TEST(PackedFunc, TypedWrapperRefusesNoneForObjectsUnlessOptional) {
  auto f = PackedFunc::FromTyped([](NDArray a) -> int64_t { return a.ndim(); }, "takes_array");
  try {
    f(Any());
    FAIL() << "None was accepted for an NDArray parameter";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("takes_array: argument 0 must not be None"), std::string::npos) << e.what();
  }
  auto g = PackedFunc::FromTyped([](std::optional<NDArray> a) -> bool { return a.has_value(); }, "optional_array");
  EXPECT_FALSE(g(Any()).cast<bool>());
  auto h = PackedFunc::FromTyped([](ObjectRef x) -> bool { return x.defined(); }, "any_object");
  EXPECT_THROW(h(Any()), TypeError);
}

TEST(PackedFunc, ErrorsPropagateWithKindAndMessage) {
  PackedFunc f([](PackedArgs) -> Any { TESSERA_THROW(ValueError) << "bad shape " << 3; });
  try {
    f();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_STREQ(e.what(), "bad shape 3");
  }
  EXPECT_THROW(ThrowErrorOfKind("KeyError", "k"), KeyError);
  try {
    ThrowErrorOfKind("MyCustomError", "m");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "MyCustomError");
  }
}

TEST(Registry, RegisterLookupOverrideRemove) {
  Registry::Set("test.cpp.f", PackedFunc::FromTyped([](int64_t x) { return x * 2; }));
  ASSERT_TRUE(Registry::Get("test.cpp.f").has_value());
  EXPECT_EQ((*Registry::Get("test.cpp.f"))(21).cast<int64_t>(), 42);
  EXPECT_THROW(Registry::Set("test.cpp.f", PackedFunc::FromTyped([](int64_t x) { return x; })), ValueError);
  Registry::Set("test.cpp.f", PackedFunc::FromTyped([](int64_t x) { return x + 1; }), /*override=*/true);
  EXPECT_EQ(Registry::GetOrThrow("test.cpp.f")(1).cast<int64_t>(), 2);
  auto names = Registry::ListNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "test.cpp.f"), names.end());
  EXPECT_TRUE(Registry::Remove("test.cpp.f"));
  EXPECT_FALSE(Registry::Get("test.cpp.f").has_value());
  EXPECT_THROW(Registry::GetOrThrow("test.cpp.f"), ValueError);
}

TEST(Registry, StaticallyRegisteredTestingFunctions) {
  PackedFunc echo = Registry::GetOrThrow("testing.echo");
  EXPECT_EQ(echo(7).cast<int>(), 7);
  NDArray a = NDArray::Empty({3}, DataType::Float(32), CPU());
  float v[3] = {1, 2, 3};
  a.CopyFromBytes(v, sizeof(v));
  Registry::GetOrThrow("testing.ndarray_scale_f32")(a, 2.0);
  a.CopyToBytes(v, sizeof(v));
  EXPECT_EQ(v[2], 6.0f);
  EXPECT_EQ(Registry::GetOrThrow("testing.array_size")(Array<Any>{1, "x", 2.0}).cast<int>(), 3);
}

}  // namespace
}  // namespace tessera
