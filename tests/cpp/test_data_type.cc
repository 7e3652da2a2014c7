// DataType: parsing/printing of TVM dtype strings and DLPack mapping.
#include <gtest/gtest.h>

#include "runtime/data_type.h"
#include "runtime/device.h"
#include "runtime/error.h"

namespace tessera {
namespace {

TEST(DataType, ParsesAndPrintsEveryScalarType) {
  struct Case {
    const char* s;
    uint8_t code;
    int bits;
  };
  const Case cases[] = {
      {"bool", DataType::kUInt, 1},     {"int8", DataType::kInt, 8},      {"int16", DataType::kInt, 16},
      {"int32", DataType::kInt, 32},    {"int64", DataType::kInt, 64},    {"uint8", DataType::kUInt, 8},
      {"uint16", DataType::kUInt, 16},  {"uint32", DataType::kUInt, 32},  {"uint64", DataType::kUInt, 64},
      {"float16", DataType::kFloat, 16}, {"float32", DataType::kFloat, 32}, {"float64", DataType::kFloat, 64},
      {"bfloat16", DataType::kBFloat, 16},
  };
  for (const Case& c : cases) {
    DataType t(c.s);
    EXPECT_EQ(t.code(), c.code) << c.s;
    EXPECT_EQ(t.bits(), c.bits) << c.s;
    EXPECT_EQ(t.lanes(), 1) << c.s;
    EXPECT_EQ(t.str(), c.s);
  }
  EXPECT_TRUE(DataType("bool").is_bool());
  EXPECT_EQ(DataType("bool").bytes(), 1);
  EXPECT_EQ(DataType("float16").bytes(), 2);
}

TEST(DataType, VectorLanesAndAliases) {
  DataType v("float32x4");
  EXPECT_EQ(v.lanes(), 4);
  EXPECT_EQ(v.bits(), 32);
  EXPECT_EQ(v.bytes(), 16);
  EXPECT_EQ(v.str(), "float32x4");
  EXPECT_EQ(v.element_of(), DataType::Float(32));
  EXPECT_EQ(DataType("int8x16").str(), "int8x16");
  EXPECT_EQ(DataType("int").str(), "int32");
  EXPECT_EQ(DataType("float").str(), "float32");
  EXPECT_EQ(DataType("handle"), DataType::Handle());
  EXPECT_TRUE(DataType("void").is_void());
}

TEST(DataType, RejectsBadSpellings) {
  for (const char* bad : {"", "floaty", "float31", "int7", "float32x", "float32x0", "x4", "bfloat32", "complex64",
                          "int99999"}) {
    EXPECT_THROW(DataType{std::string(bad)}, ValueError) << bad;
  }
  try {
    DataType("floaty");
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'floaty'"), std::string::npos);
  }
}

TEST(DataType, DLPackBoolTravelsAsBoolCode) {
  DLDataType d = DataType::Bool().ToDLPack();
  EXPECT_EQ(d.code, DataType::kDLPackBool);
  EXPECT_EQ(d.bits, 8);
  EXPECT_EQ(DataType::FromDLPack(d), DataType::Bool());
  EXPECT_EQ(DataType::FromDLPack(DataType::Float(16).ToDLPack()), DataType::Float(16));
  EXPECT_THROW(DataType::FromDLPack(DLDataType{kDLComplex, 64, 1}), TypeError);
}

TEST(Device, NamesAndPrinting) {
  EXPECT_EQ(CPU(0).str(), "cpu(0)");
  EXPECT_EQ(CUDA(1).str(), "cuda(1)");
  EXPECT_EQ(ParseDeviceType("llvm"), kDLCPU);
  EXPECT_EQ(ParseDeviceType("gpu"), kDLCUDA);
  EXPECT_THROW(ParseDeviceType("tpu"), ValueError);
}

}  // namespace
}  // namespace tessera
