// Any's messages and identity comparison (see any.h).
#include "runtime/any.h"

#include <sstream>

#include "runtime/array.h"
#include "runtime/map.h"
#include "runtime/packed_func.h"

namespace tessera {

std::string Any::type_name() const {
  switch (kind_) {
    case Kind::kNone: return "None";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kBool: return "bool";
    case Kind::kDataType: return "dtype";
    case Kind::kDevice: return "Device";
    case Kind::kHandle: return "handle";
    case Kind::kObject:
      if (obj_.as<StringObj>()) return "str";
      return obj_->GetTypeKey();
  }
  return "?";
}

std::string Any::repr() const {
  std::ostringstream os;
  switch (kind_) {
    case Kind::kNone: os << "None"; break;
    case Kind::kInt: os << pod_.v_int; break;
    case Kind::kFloat: os << pod_.v_float; break;
    case Kind::kBool: os << (pod_.v_int ? "True" : "False"); break;
    case Kind::kDataType: os << pod_.v_dtype.str(); break;
    case Kind::kDevice: os << pod_.v_device.str(); break;
    case Kind::kHandle: os << "handle(" << pod_.v_handle << ")"; break;
    case Kind::kObject:
      if (const StringObj* s = obj_.as<StringObj>()) {
        os << '"' << s->data << '"';
      } else {
        os << obj_->GetTypeKey() << "(" << static_cast<const void*>(obj_.get()) << ")";
      }
      break;
  }
  return os.str();
}

bool Any::same_as(const Any& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNone: return true;
    case Kind::kInt:
    case Kind::kBool: return pod_.v_int == other.pod_.v_int;
    case Kind::kFloat: return pod_.v_float == other.pod_.v_float;
    case Kind::kDataType: return pod_.v_dtype == other.pod_.v_dtype;
    case Kind::kDevice: return pod_.v_device == other.pod_.v_device;
    case Kind::kHandle: return pod_.v_handle == other.pod_.v_handle;
    case Kind::kObject: {
      const StringObj* a = obj_.as<StringObj>();
      const StringObj* b = other.obj_.as<StringObj>();
      if (a && b) return a->data == b->data;
      return obj_.same_as(other.obj_);
    }
  }
  return false;
}

TESSERA_REGISTER_OBJECT_TYPE(StringObj);
TESSERA_REGISTER_OBJECT_TYPE(ArrayObj);
TESSERA_REGISTER_OBJECT_TYPE(MapObj);
TESSERA_REGISTER_OBJECT_TYPE(PackedFuncObj);

void ThrowAnyCastError(const Any& value, const char* expected) {
  TESSERA_THROW(TypeError) << "expected " << expected << " but got " << value.type_name();
}

void ThrowAnyRangeError(int64_t value, int bits, bool is_signed) {
  const std::string type = (is_signed ? "int" : "uint") + std::to_string(bits);
  std::string range;
  if (is_signed) {
    range = "[" + std::to_string(-(int64_t{1} << (bits - 1))) + ", " + std::to_string((int64_t{1} << (bits - 1)) - 1) + "]";
  } else {
    range = "[0, " + std::to_string(bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1) + "]";
  }
  TESSERA_THROW(OverflowError) << "integer " << value << " does not fit in " << type << " (range " << range << ")";
}

}  // namespace tessera
