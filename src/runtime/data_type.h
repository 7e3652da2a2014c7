// DataType: the scalar/vector element type of tensors and expressions, with
// TVM's string spelling ("float32", "int8", "bool", "float32x4", "handle").
// Runtime layer; the layout follows DLPack's DLDataType (code, bits, lanes).
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace tessera {

class DataType {
 public:
  enum Code : uint8_t {
    kInt = kDLInt,
    kUInt = kDLUInt,
    kFloat = kDLFloat,
    kHandle = kDLOpaqueHandle,
    kBFloat = kDLBfloat,
  };
  // DLPack >= 0.8 spells bool as its own code; we accept it at the boundary.
  static constexpr uint8_t kDLPackBool = 6;

  constexpr DataType() : code_(kHandle), bits_(0), lanes_(0) {}  // void
  constexpr DataType(uint8_t code, uint8_t bits, uint16_t lanes)
      : code_(code), bits_(bits), lanes_(lanes) {}
  // Parses TVM's spelling; raises ValueError naming the bad string.
  explicit DataType(const std::string& s);

  static constexpr DataType Int(int bits, int lanes = 1) { return DataType(kInt, bits, lanes); }
  static constexpr DataType UInt(int bits, int lanes = 1) { return DataType(kUInt, bits, lanes); }
  static constexpr DataType Float(int bits, int lanes = 1) { return DataType(kFloat, bits, lanes); }
  static constexpr DataType BFloat(int bits, int lanes = 1) { return DataType(kBFloat, bits, lanes); }
  static constexpr DataType Bool(int lanes = 1) { return DataType(kUInt, 1, lanes); }
  static constexpr DataType Handle() { return DataType(kHandle, 64, 1); }
  static constexpr DataType Void() { return DataType(kHandle, 0, 0); }

  uint8_t code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  bool is_int() const { return code_ == kInt; }
  bool is_uint() const { return code_ == kUInt && bits_ != 1; }
  bool is_bool() const { return code_ == kUInt && bits_ == 1; }
  bool is_float() const { return code_ == kFloat; }
  bool is_bfloat16() const { return code_ == kBFloat && bits_ == 16; }
  bool is_handle() const { return code_ == kHandle && bits_ != 0; }
  bool is_void() const { return code_ == kHandle && bits_ == 0 && lanes_ == 0; }
  bool is_scalar() const { return lanes_ == 1; }
  bool is_vector() const { return lanes_ > 1; }
  // Bytes one element occupies in memory (each bool lane takes a byte).
  int bytes() const { return is_bool() ? lanes_ : (bits_ * lanes_ + 7) / 8; }
  DataType element_of() const { return DataType(code_, bits_, 1); }
  DataType with_lanes(int lanes) const { return DataType(code_, bits_, lanes); }
  DataType with_bits(int bits) const { return DataType(code_, bits, lanes_); }

  bool operator==(const DataType& o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
  }
  bool operator!=(const DataType& o) const { return !(*this == o); }

  std::string str() const;

  // DLPack interop: bool travels as DLPack's bool code (8 bits), as NumPy and
  // PyTorch expect.
  DLDataType ToDLPack() const;
  static DataType FromDLPack(DLDataType t);

 private:
  uint8_t code_;
  uint8_t bits_;
  uint16_t lanes_;
};

inline std::ostream& operator<<(std::ostream& os, const DataType& t) { return os << t.str(); }

}  // namespace tessera
