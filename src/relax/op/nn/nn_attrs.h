// Reading the attributes of Relax nn operator calls (a Map<String, Any> on the
// Call keyed by TVM's attrs field names; a missing one is its signature
// default, the only place defaults are written) with errors
// naming the op and the attribute (floats and length-checked int lists, which
// op_attrs.cc's readers lack), and the signature defaults of the nn ops;
// shared by op/nn/{nn,convolution,pooling}.cc. Relax IR layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/int_value.h"
#include "arith/expr_string.h"
#include "relax/op/op_common.h"
#include "runtime/map.h"

namespace tessera {
namespace relax {
namespace nn_attrs {

// The value of attribute `key`: the call's (unless None), else the op's signature
// default (unless None); nullopt when neither is given.
inline std::optional<Any> Find(const Call& call, const char* key) {
  if (call->attrs.defined()) {
    const auto* map = call->attrs.as<MapObj>();
    if (map == nullptr) {
      TESSERA_THROW(TypeError) << OpName(call) << ": attributes must be a map of names to values, got "
                               << call->attrs->GetTypeKey();
    }
    for (const auto& kv : map->data) {
      if (const auto* s = kv.first.as<StringObj>(); s && s->data == key && !kv.second.is_none()) return kv.second;
    }
  }
  std::optional<Any> def = SignatureDefault(call, key);
  if (def && !def->is_none()) return def;
  return std::nullopt;
}

// The value of attribute `key` (Find); ValueError naming op and attribute when there is none.
inline Any Get(const Call& call, const char* key) {
  std::optional<Any> v = Find(call, key);
  if (!v) TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << key << "' is required";
  return *v;
}

inline std::string Describe(const Any& v) {
  switch (v.kind()) {
    case Any::Kind::kFloat: return "a float";
    case Any::Kind::kDataType: return "a dtype";
    case Any::Kind::kObject: return v.raw_object()->GetTypeKey();
    default: return "a value of another kind";
  }
}

// Typed readers of attribute `key` (Find: the call's value, else the signature default; none of
// either is a ValueError); TypeError naming op and attribute for a value of another kind.
inline int64_t Int(const Call& call, const char* key) {
  Any v = Get(call, key);
  std::optional<int64_t> i = IntValue(v);
  if (!i) TESSERA_THROW(TypeError) << OpName(call) << ": attribute '" << key << "' must be an int, got " << Describe(v);
  return *i;
}

inline bool Bool(const Call& call, const char* key) { return Int(call, key) != 0; }

inline double Float(const Call& call, const char* key) {
  Any v = Get(call, key);
  if (v.kind() == Any::Kind::kFloat) return v.raw_float();
  if (const auto* f = v.as<FloatImmNode>()) return f->value;
  if (std::optional<int64_t> i = IntValue(v)) return static_cast<double>(*i);
  TESSERA_THROW(TypeError) << OpName(call) << ": attribute '" << key << "' must be a float, got " << Describe(v);
}

// A string attribute; "" when neither the call nor the signature gives one (out_dtype None).
inline std::string Str(const Call& call, const char* key) {
  std::optional<Any> v = Find(call, key);
  if (!v) return "";
  if (const auto* s = v->as<StringObj>()) return s->data;
  if (v->kind() == Any::Kind::kDataType) return v->raw_dtype().str();
  TESSERA_THROW(TypeError) << OpName(call) << ": attribute '" << key << "' must be a string, got " << Describe(*v);
}

// A list of ints whose length is one of `lengths` (any length when empty; an int
// is a 1-element list).
inline std::vector<int64_t> Ints(const Call& call, const char* key, const std::vector<size_t>& lengths) {
  Any value = Get(call, key);
  const Any* v = &value;
  std::vector<int64_t> out;
  if (std::optional<int64_t> i = IntValue(*v)) {
    out.push_back(*i);
  } else if (const auto* arr = v->as<ArrayObj>()) {
    for (const Any& x : arr->data) {
      std::optional<int64_t> i = IntValue(x);
      if (!i) {
        TESSERA_THROW(TypeError) << OpName(call) << ": attribute '" << key << "' must be a list of ints, got an element "
                                 << Describe(x);
      }
      out.push_back(*i);
    }
  } else {
    TESSERA_THROW(TypeError) << OpName(call) << ": attribute '" << key << "' must be a list of ints, got " << Describe(*v);
  }
  bool ok = lengths.empty();
  std::string allowed;
  for (size_t n : lengths) {
    ok = ok || out.size() == n;
    allowed += (allowed.empty() ? "" : " or ") + std::to_string(n);
  }
  if (!ok) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << key << "' must have " << allowed
                              << " elements, got " << out.size();
  }
  return out;
}


// An (h, w) pair of positive ints given as 1 or 2 values (strides, dilation,
// pool_size, output_size); errors name the op and the attribute.
inline std::vector<int64_t> PositivePair(const Call& call, const char* attr) {
  std::vector<int64_t> v = Ints(call, attr, {1, 2});
  if (v.size() == 1) v.push_back(v[0]);
  for (int64_t x : v) {
    if (x < 1) TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' must be >= 1, got " << x;
  }
  return v;
}
// A dimension in messages: 3, n, n + 1.
inline std::string DimText(const PrimExpr& e) {
  if (const int64_t* c = AsConstInt(e)) return std::to_string(*c);
  return arith::ExprToString(e);
}

// Signature defaults (SetAttrSignature, op_attrs.cc) in the form the TVMScript parser gives them.
inline Any DefaultInts(const std::vector<int64_t>& v) {
  Array<Any> out;
  for (int64_t x : v) out.push_back(AttrDefaultInt(x));
  return Any(out);
}
inline Any DefaultFloat(double v) { return Any(PrimExpr(v)); }
inline Any DefaultStr(const char* v) { return Any(String(v)); }

}  // namespace nn_attrs
}  // namespace relax
}  // namespace tessera
