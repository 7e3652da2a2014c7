// Any: the value type that crosses function boundaries (PackedFunc
// arguments and results, reflection, containers). It holds nothing, a POD
// (int, float, bool, DataType, Device, opaque pointer) or an ObjectRef.
// Runtime layer. Casts check the dynamic type and raise TypeError naming
// what was expected and what was found.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/data_type.h"
#include "runtime/device.h"
#include "runtime/object.h"
#include "runtime/string.h"

namespace tessera {

class Any;
template <typename T, typename = void>
struct AnyConverter;

class Any {
 public:
  enum class Kind : uint8_t { kNone, kInt, kFloat, kBool, kDataType, kDevice, kHandle, kObject };

  Any() : kind_(Kind::kNone) { pod_.v_int = 0; }
  Any(std::nullptr_t) : Any() {}  // NOLINT
  Any(bool v) : kind_(Kind::kBool) { pod_.v_int = v; }  // NOLINT
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Any(T v) : kind_(Kind::kInt) {  // NOLINT
    pod_.v_int = static_cast<int64_t>(v);
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Any(T v) : kind_(Kind::kFloat) {  // NOLINT
    pod_.v_float = static_cast<double>(v);
  }
  Any(DataType v) : kind_(Kind::kDataType) { pod_.v_dtype = v; }  // NOLINT
  Any(Device v) : kind_(Kind::kDevice) { pod_.v_device = v; }    // NOLINT
  Any(void* v) : kind_(Kind::kHandle) { pod_.v_handle = v; }     // NOLINT
  Any(const char* s) : Any(String(s)) {}                         // NOLINT
  Any(const std::string& s) : Any(String(s)) {}                  // NOLINT
  template <typename T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>, int> = 0>
  Any(const T& ref) : kind_(ref.defined() ? Kind::kObject : Kind::kNone), obj_(ref) {  // NOLINT
    pod_.v_int = 0;
  }
  template <typename T>
  Any(const std::optional<T>& v) : Any() {  // NOLINT
    if (v.has_value()) *this = Any(*v);
  }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_object() const { return kind_ == Kind::kObject; }

  // Raw accessors; callers check kind() first (or use cast<T>()).
  int64_t raw_int() const { return pod_.v_int; }
  double raw_float() const { return pod_.v_float; }
  DataType raw_dtype() const { return pod_.v_dtype; }
  Device raw_device() const { return pod_.v_device; }
  void* raw_handle() const { return pod_.v_handle; }
  const ObjectRef& raw_object() const { return obj_; }

  // Checked conversion; raises TypeError ("expected int but got str").
  template <typename T>
  T cast() const {
    return AnyConverter<T>::Convert(*this);
  }
  // Conversion that returns nullopt instead of raising.
  template <typename T>
  std::optional<T> try_cast() const {
    if (!AnyConverter<T>::Check(*this)) return std::nullopt;
    return AnyConverter<T>::Convert(*this);
  }
  template <typename T>
  const T* as() const {  // node pointer if this holds an object of node type T
    return kind_ == Kind::kObject ? obj_.as<T>() : nullptr;
  }

  // Human-readable name of the held type, for messages: "int", "str", "tir.Var".
  std::string type_name() const;
  // Short rendering for messages and debugging.
  std::string repr() const;

  // Identity comparison: PODs by value, strings by content, objects by address.
  bool same_as(const Any& other) const;

 private:
  Kind kind_;
  union Pod {
    int64_t v_int;
    double v_float;
    DataType v_dtype;
    Device v_device;
    void* v_handle;
    Pod() : v_int(0) {}
  } pod_;
  ObjectRef obj_;
};

[[noreturn]] void ThrowAnyCastError(const Any& value, const char* expected);
// Raises OverflowError: `value` does not fit the C++ integer type of `bits`
// bits (signed or not) that a parameter expects.
[[noreturn]] void ThrowAnyRangeError(int64_t value, int bits, bool is_signed);

// Integers are range-checked: a value that does not fit T (2**32 + 1 for an
// int parameter, -1 for an unsigned one) raises OverflowError instead of
// being narrowed silently.
template <typename T>
struct AnyConverter<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static bool Check(const Any& v) { return v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool; }
  static T Convert(const Any& v) {
    if (!Check(v)) ThrowAnyCastError(v, "int");
    const int64_t x = v.raw_int();
    if (!std::in_range<T>(x)) ThrowAnyRangeError(x, static_cast<int>(sizeof(T) * 8), std::is_signed_v<T>);
    return static_cast<T>(x);
  }
};
template <>
struct AnyConverter<bool> {
  static bool Check(const Any& v) { return v.kind() == Any::Kind::kBool || v.kind() == Any::Kind::kInt; }
  static bool Convert(const Any& v) {
    if (!Check(v)) ThrowAnyCastError(v, "bool");
    return v.raw_int() != 0;
  }
};
template <typename T>
struct AnyConverter<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static bool Check(const Any& v) {
    return v.kind() == Any::Kind::kFloat || v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kBool;
  }
  static T Convert(const Any& v) {
    if (v.kind() == Any::Kind::kFloat) return static_cast<T>(v.raw_float());
    if (!Check(v)) ThrowAnyCastError(v, "float");
    return static_cast<T>(v.raw_int());
  }
};
template <>
struct AnyConverter<std::string> {
  static bool Check(const Any& v) { return v.as<StringObj>() != nullptr; }
  static std::string Convert(const Any& v) {
    if (!Check(v)) ThrowAnyCastError(v, "str");
    return v.as<StringObj>()->data;
  }
};
template <>
struct AnyConverter<DataType> {
  static bool Check(const Any& v) { return v.kind() == Any::Kind::kDataType || v.as<StringObj>(); }
  static DataType Convert(const Any& v) {
    if (v.kind() == Any::Kind::kDataType) return v.raw_dtype();
    if (const StringObj* s = v.as<StringObj>()) return DataType(s->data);
    ThrowAnyCastError(v, "dtype");
  }
};
template <>
struct AnyConverter<Device> {
  static bool Check(const Any& v) { return v.kind() == Any::Kind::kDevice; }
  static Device Convert(const Any& v) {
    if (!Check(v)) ThrowAnyCastError(v, "Device");
    return v.raw_device();
  }
};
template <>
struct AnyConverter<void*> {
  static bool Check(const Any& v) { return v.kind() == Any::Kind::kHandle || v.is_none(); }
  static void* Convert(const Any& v) {
    if (!Check(v)) ThrowAnyCastError(v, "handle");
    return v.is_none() ? nullptr : v.raw_handle();
  }
};
template <>
struct AnyConverter<Any> {
  static bool Check(const Any&) { return true; }
  static Any Convert(const Any& v) { return v; }
};
// Arrays have their own converter (array.h): elements are normalized.
template <typename T>
struct IsArrayRef : std::false_type {};

// Object references: None converts to an undefined reference.
template <typename T>
struct AnyConverter<T, std::enable_if_t<std::is_base_of_v<ObjectRef, T> && !IsArrayRef<T>::value>> {
  using Node = typename T::ContainerType;
  static bool Check(const Any& v) {
    return v.is_none() || (v.is_object() && v.raw_object()->template IsInstance<Node>());
  }
  static T Convert(const Any& v) {
    if (v.is_none()) return T(ObjectPtr<Object>(nullptr));
    if (!Check(v)) ThrowAnyCastError(v, Node::_type_key);
    return T(v.raw_object().data());
  }
};
template <typename T>
struct AnyConverter<std::optional<T>> {
  static bool Check(const Any& v) { return v.is_none() || AnyConverter<T>::Check(v); }
  static std::optional<T> Convert(const Any& v) {
    if (v.is_none()) return std::nullopt;
    return AnyConverter<T>::Convert(v);
  }
};

}  // namespace tessera
