// Parsing and printing of DataType strings (see data_type.h).
#include "runtime/data_type.h"

#include <cctype>
#include <ostream>

#include "runtime/error.h"

namespace tessera {
namespace {

bool ParseUInt(const std::string& s, size_t pos, size_t end, int* out) {
  if (pos >= end) return false;
  long v = 0;
  for (size_t i = pos; i < end; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
    if (v > 65535) return false;
  }
  *out = static_cast<int>(v);
  return true;
}

[[noreturn]] void BadDType(const std::string& s) {
  TESSERA_THROW(ValueError) << "unknown dtype '" << s
                            << "' (expected e.g. float32, int8, uint16, bool, bfloat16, "
                               "float16x4, handle)";
}

}  // namespace

DataType::DataType(const std::string& s) {
  if (s.compare(0, 4, "bool") == 0) {
    int lanes = 1;
    if (s.size() > 4 && (s[4] != 'x' || !ParseUInt(s, 5, s.size(), &lanes) || lanes <= 0)) BadDType(s);
    *this = Bool(lanes);
    return;
  }
  if (s == "void") {
    *this = Void();
    return;
  }
  if (s == "handle") {
    *this = Handle();
    return;
  }
  struct Prefix {
    const char* name;
    uint8_t code;
    int default_bits;
  };
  static const Prefix kPrefixes[] = {
      {"bfloat", kBFloat, 16}, {"float", kFloat, 32}, {"uint", kUInt, 32}, {"int", kInt, 32}};
  for (const Prefix& p : kPrefixes) {
    std::string name = p.name;
    if (s.compare(0, name.size(), name) != 0) continue;
    size_t pos = name.size();
    size_t x = s.find('x', pos);
    size_t bits_end = x == std::string::npos ? s.size() : x;
    int bits = p.default_bits;
    if (bits_end > pos && !ParseUInt(s, pos, bits_end, &bits)) BadDType(s);
    int lanes = 1;
    if (x != std::string::npos && !ParseUInt(s, x + 1, s.size(), &lanes)) BadDType(s);
    if (bits <= 0 || bits > 128 || lanes <= 0) BadDType(s);
    if (p.code == kFloat && bits != 16 && bits != 32 && bits != 64) BadDType(s);
    if (p.code == kBFloat && bits != 16) BadDType(s);
    if ((p.code == kInt || p.code == kUInt) && bits != 1 && bits != 4 && bits != 8 &&
        bits != 16 && bits != 32 && bits != 64) {
      BadDType(s);
    }
    code_ = p.code;
    bits_ = static_cast<uint8_t>(bits);
    lanes_ = static_cast<uint16_t>(lanes);
    return;
  }
  BadDType(s);
}

std::string DataType::str() const {
  if (is_void()) return "void";
  if (code_ == kHandle) return "handle";
  std::string base;
  if (is_bool()) {
    base = "bool";
  } else {
    switch (code_) {
      case kInt: base = "int"; break;
      case kUInt: base = "uint"; break;
      case kFloat: base = "float"; break;
      case kBFloat: base = "bfloat"; break;
      default: base = "unknown" + std::to_string(code_) + "_"; break;
    }
    base += std::to_string(bits_);
  }
  if (lanes_ != 1) base += "x" + std::to_string(lanes_);
  return base;
}

DLDataType DataType::ToDLPack() const {
  if (is_bool()) return DLDataType{kDLPackBool, 8, lanes_};
  return DLDataType{code_, bits_, lanes_};
}

DataType DataType::FromDLPack(DLDataType t) {
  if (t.code == kDLPackBool) {
    if (t.bits != 8) TESSERA_THROW(TypeError) << "unsupported DLPack bool width " << int(t.bits);
    return Bool(t.lanes);
  }
  if (t.code == kDLComplex) {
    TESSERA_THROW(TypeError) << "complex dtypes are not supported by Tessera";
  }
  if (t.code > kDLBfloat) {
    TESSERA_THROW(TypeError) << "unsupported DLPack type code " << int(t.code);
  }
  return DataType(t.code, t.bits, t.lanes);
}

}  // namespace tessera
