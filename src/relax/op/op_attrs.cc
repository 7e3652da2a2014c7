// Attributes of Relax operator calls: the per-op attribute signature (names in
// TVM's Python signature order, with defaults), the one constructor of a call's
// attrs Map from it (MakeOpAttrs: the TVMScript parser, the Python op
// constructors and C++ rewrites all build attrs with it), and typed readers of
// a call's attrs Map for the struct-info inference of op/*.cc. Relax IR layer.
#include "relax/op/op_common.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {

Any AttrDefaultInt(int64_t v) { return Any(PrimExpr(v)); }
Any AttrDefaultBool(bool v) { return Any(PrimExpr(IntImm(DataType::Bool(), v ? 1 : 0))); }

OpRegEntry& SetAttrSignature(OpRegEntry& entry, const std::vector<AttrParam>& params) {
  Array<Any> sig;
  for (const AttrParam& p : params) {
    Array<Any> item;
    item.push_back(Any(String(p.name)));
    if (p.default_value) item.push_back(*p.default_value);
    sig.push_back(Any(item));
  }
  entry.set_attr("TScriptAttrSignature", Any(sig));
  return entry;
}

OpRegEntry& SetOperandSignature(OpRegEntry& entry, const std::vector<OperandParam>& params) {
  Array<Any> sig;
  for (const OperandParam& p : params) {
    Array<Any> item;
    item.push_back(Any(String(p.name)));
    item.push_back(Any(String(p.kind)));
    if (p.default_value) item.push_back(*p.default_value);
    sig.push_back(Any(item));
  }
  entry.set_attr("TScriptOperandSignature", Any(sig));
  return entry;
}

OpRegEntry& SetPrimOperands(OpRegEntry& entry, const std::vector<int64_t>& indices) {
  Array<Any> idx;
  for (int64_t i : indices) idx.push_back(Any(i));
  entry.set_attr("TScriptPrimOperands", Any(idx));
  return entry;
}

namespace {

// Registers `names` (attribute names) under op attribute `key` (SetListAttrs, SetFloatAttrs, SetDTypeAttrs).
OpRegEntry& SetAttrNames(OpRegEntry& entry, const char* key, const std::vector<std::string>& names) {
  Array<Any> out;
  for (const std::string& n : names) out.push_back(Any(String(n)));
  entry.set_attr(key, Any(out));
  return entry;
}

}  // namespace

OpRegEntry& SetListAttrs(OpRegEntry& entry, const std::vector<std::string>& names) {
  return SetAttrNames(entry, "TScriptListAttrs", names);
}

OpRegEntry& SetExpandAttrs(OpRegEntry& entry, const std::vector<std::pair<std::string, int64_t>>& lengths) {
  Array<Any> out;
  for (const auto& [name, length] : lengths) out.push_back(Any(Array<Any>{Any(String(name)), Any(length)}));
  entry.set_attr("TScriptExpandAttrs", Any(out));
  return entry;
}

OpRegEntry& SetDefaultFrom(OpRegEntry& entry, const std::vector<std::pair<std::string, std::string>>& sources) {
  Array<Any> out;
  for (const auto& [name, source] : sources) out.push_back(Any(Array<Any>{Any(String(name)), Any(String(source))}));
  entry.set_attr("TScriptDefaultFrom", Any(out));
  return entry;
}

OpRegEntry& SetFloatAttrs(OpRegEntry& entry, const std::vector<std::string>& names) {
  return SetAttrNames(entry, "TScriptFloatAttrs", names);
}

OpRegEntry& SetDTypeAttrs(OpRegEntry& entry, const std::vector<std::string>& names) {
  return SetAttrNames(entry, "TScriptDTypeAttrs", names);
}

namespace {

bool Listed(const char* key, const Op& op, const std::string& name) {
  const OpAttrMap<Array<Any>> lists = Op::GetAttrMap<Array<Any>>(key);
  if (!lists.count(op)) return false;
  for (const Any& n : lists[op]) {
    if (n.cast<std::string>() == name) return true;
  }
  return false;
}

// An unset dtype ("") of attribute `name` as "void" where SetDTypeAttrs names it.
Any DTypeAttr(const Op& op, const std::string& name, const Any& v) {
  const auto* s = v.as<StringObj>();
  if (s == nullptr || !s->data.empty() || !Listed("TScriptDTypeAttrs", op, name)) return v;
  return Any(String("void"));
}

// `v` (normalized) with its ints made floats where SetFloatAttrs names attribute `name` of `op`.
Any FloatAttr(const Op& op, const std::string& name, const Any& v) {
  if (!Listed("TScriptFloatAttrs", op, name)) return v;
  if (const auto* arr = v.as<ArrayObj>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(FloatAttr(op, name, x));
    return Any(out);
  }
  if (const auto* imm = v.as<IntImmNode>(); imm != nullptr && !imm->dtype.is_bool()) {
    return Any(PrimExpr(static_cast<double>(imm->value)));
  }
  return v;
}

// `v` repeated to the length SetExpandAttrs gave attribute `name` of `op`, where its length divides it;
// otherwise `v` unchanged (the op's inference names a wrong length).
// The attribute whose value a missing `name` takes (SetDefaultFrom); "" when none.
std::string DefaultSource(const Op& op, const std::string& name) {
  static const OpAttrMap<Array<Any>> sources = Op::GetAttrMap<Array<Any>>("TScriptDefaultFrom");
  if (!sources.count(op)) return "";
  for (const Any& item : sources[op]) {
    Array<Any> pair = item.cast<Array<Any>>();
    if (pair[0].cast<std::string>() == name) return pair[1].cast<std::string>();
  }
  return "";
}

Any ExpandAttr(const Op& op, const std::string& name, const Any& v) {
  static const OpAttrMap<Array<Any>> expands = Op::GetAttrMap<Array<Any>>("TScriptExpandAttrs");
  if (!expands.count(op)) return v;
  for (const Any& item : expands[op]) {
    Array<Any> pair = item.cast<Array<Any>>();
    if (pair[0].cast<std::string>() != name) continue;
    const size_t length = static_cast<size_t>(pair[1].cast<int64_t>());
    Array<Any> values;
    if (const auto* arr = v.as<ArrayObj>()) {
      values = GetRef<Array<Any>>(arr);
    } else if (v.kind() == Any::Kind::kInt || v.as<IntImmNode>() != nullptr) {
      values.push_back(v);
    } else {
      return v;
    }
    if (values.empty() || values.size() >= length || length % values.size() != 0) return v;
    Array<Any> out;
    while (out.size() < length) {
      for (const Any& x : values) out.push_back(x);
    }
    return Any(out);
  }
  return v;
}

// Whether attribute `name` of `op` is a list of axes (SetListAttrs).
bool IsListAttr(const Op& op, const std::string& name) { return Listed("TScriptListAttrs", op, name); }

bool IsScalarInt(const Any& v) {
  if (v.kind() == Any::Kind::kInt) return true;
  const auto* imm = v.as<IntImmNode>();
  return imm != nullptr && !imm->dtype.is_bool();
}

}  // namespace

std::optional<std::vector<AttrParam>> AttrSignature(const Op& op) {
  static const OpAttrMap<Array<Any>> sigs = Op::GetAttrMap<Array<Any>>("TScriptAttrSignature");
  if (!sigs.count(op)) return std::nullopt;
  std::vector<AttrParam> out;
  for (const Any& item : sigs[op]) {
    Array<Any> pair = item.cast<Array<Any>>();
    out.push_back({pair[0].cast<std::string>(), pair.size() > 1 ? std::optional<Any>(pair[1]) : std::nullopt});
  }
  return out;
}

std::optional<Any> SignatureDefault(const Call& call, const std::string& name) {
  const auto* op = call->op.as<OpNode>();
  if (op == nullptr) return std::nullopt;
  std::optional<std::vector<AttrParam>> sig = AttrSignature(GetRef<Op>(op));
  if (!sig) return std::nullopt;
  for (const AttrParam& p : *sig) {
    if (p.name == name) return p.default_value;
  }
  return std::nullopt;
}

Any NormalizeAttrValue(const Any& v) {
  switch (v.kind()) {
    case Any::Kind::kBool: return Any(PrimExpr(IntImm(DataType::Bool(), v.raw_int() != 0)));
    case Any::Kind::kInt: return Any(PrimExpr(v.raw_int()));
    case Any::Kind::kFloat: return Any(PrimExpr(v.raw_float()));
    default: break;
  }
  if (const auto* arr = v.as<ArrayObj>()) {
    Array<Any> out;
    for (const Any& x : arr->data) out.push_back(NormalizeAttrValue(x));
    return Any(out);
  }
  return v;
}

Map<String, Any> MakeOpAttrs(const Op& op, const Map<String, Any>& given) {
  std::optional<std::vector<AttrParam>> sig = AttrSignature(op);
  Map<String, Any> out;
  if (sig) {
    for (const auto& [key, value] : given.items()) {
      bool known = false;
      for (const AttrParam& p : *sig) known |= p.name == std::string(key);
      if (!known) {
        std::string names;
        for (const AttrParam& p : *sig) names += (names.empty() ? "" : ", ") + p.name;
        TESSERA_THROW(TypeError) << op->name << " has no attribute '" << std::string(key)
                                 << "' (attributes: " << (names.empty() ? std::string("none") : names) << ")";
      }
    }
    for (const AttrParam& p : *sig) {
      std::optional<Any> v = given.Get(String(p.name));
      std::string source = DefaultSource(op, p.name);
      if (!source.empty() && (!v || v->is_none())) v = out.Get(String(source));
      if (!v) v = p.default_value;
      TESSERA_CHECK_OR_THROW(v.has_value(), ValueError) << op->name << " needs its attribute '" << p.name << "'";
      if (IsScalarInt(*v) && IsListAttr(op, p.name)) v = Any(Array<Any>{*v});
      v = ExpandAttr(op, p.name, *v);
      out.Set(String(p.name), DTypeAttr(op, p.name, FloatAttr(op, p.name, NormalizeAttrValue(*v))));
    }
    return out;
  }
  for (const auto& [key, value] : given.items()) out.Set(key, NormalizeAttrValue(value));
  return out;
}

TESSERA_REGISTER_GLOBAL("relax.op.MakeAttrs").set_body_typed([](std::string op_name, Map<String, Any> given) {
  return MakeOpAttrs(Op::Get(op_name), given);
});

namespace {

[[noreturn]] void BadAttr(const Call& call, const std::string& name, const char* expected, const Any& v) {
  TESSERA_THROW(TypeError) << OpName(call) << ": attribute '" << name << "' must be " << expected << ", got "
                           << (v.is_object() ? v.raw_object()->GetTypeKey() : v.type_name());
}

std::optional<int64_t> AsInt(const Any& v) {
  if (v.kind() == Any::Kind::kInt) return v.raw_int();
  if (const auto* imm = v.as<IntImmNode>(); imm != nullptr && !imm->dtype.is_bool()) return imm->value;
  return std::nullopt;
}

}  // namespace

Any CallAttr(const Call& call, const std::string& name) {
  if (call->attrs.defined()) {
    if (const auto* map = call->attrs.as<MapObj>()) {
      if (const Any* v = map->Find(Any(String(name)))) return *v;
    }
  }
  std::optional<Any> def = SignatureDefault(call, name);
  if (def) return *def;
  TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << name << "' is required but missing";
}

std::optional<int64_t> AttrOptInt(const Call& call, const std::string& name) {
  Any v = CallAttr(call, name);
  if (v.is_none()) return std::nullopt;
  std::optional<int64_t> i = AsInt(v);
  if (!i) BadAttr(call, name, "an int or None", v);
  return i;
}

int64_t AttrInt(const Call& call, const std::string& name) {
  Any v = CallAttr(call, name);
  std::optional<int64_t> i = AsInt(v);
  if (!i) BadAttr(call, name, "an int", v);
  return *i;
}

bool AttrBool(const Call& call, const std::string& name) {
  Any v = CallAttr(call, name);
  if (v.kind() == Any::Kind::kBool || v.kind() == Any::Kind::kInt) return v.raw_int() != 0;
  if (const auto* imm = v.as<IntImmNode>()) return imm->value != 0;
  BadAttr(call, name, "a bool", v);
}

std::string AttrStr(const Call& call, const std::string& name) {
  Any v = CallAttr(call, name);
  if (const auto* s = v.as<StringObj>()) return s->data;
  BadAttr(call, name, "a string", v);
}

std::optional<std::vector<int64_t>> AttrOptInts(const Call& call, const std::string& name) {
  Any v = CallAttr(call, name);
  if (v.is_none()) return std::nullopt;
  if (std::optional<int64_t> i = AsInt(v)) return std::vector<int64_t>{*i};
  const auto* arr = v.as<ArrayObj>();
  if (arr == nullptr) BadAttr(call, name, "a list of ints or None", v);
  std::vector<int64_t> out;
  for (const Any& x : arr->data) {
    std::optional<int64_t> i = AsInt(x);
    if (!i) BadAttr(call, name, "a list of ints or None", x);
    out.push_back(*i);
  }
  return out;
}

DataType AttrDType(const Call& call, const std::string& name) {
  Any v = CallAttr(call, name);
  if (v.kind() == Any::Kind::kDataType) return v.raw_dtype();
  if (v.is_none()) return DataType::Void();
  if (const auto* s = v.as<StringObj>()) {
    if (s->data.empty() || s->data == "void") return DataType::Void();
    try {
      return DataType(s->data);
    } catch (const std::exception&) {
      TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << name << "' is not a dtype: '" << s->data << "'";
    }
  }
  BadAttr(call, name, "a dtype string", v);
}

int NormalizeAxis(const Call& call, int64_t axis, int ndim, const std::string& attr, const char* operand) {
  if (axis < -ndim || axis >= ndim) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' = " << axis
                              << " is out of range for operand '" << operand << "' of " << ndim << " dimensions";
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> NormalizeAxes(const Call& call, const std::vector<int64_t>& axes, int ndim, const std::string& attr,
                               const char* operand) {
  std::vector<int> out;
  std::vector<bool> seen(ndim, false);
  for (int64_t a : axes) {
    int k = NormalizeAxis(call, a, ndim, attr, operand);
    if (seen[k]) {
      TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' repeats axis " << k
                                << " of operand '" << operand << "'";
    }
    seen[k] = true;
    out.push_back(k);
  }
  return out;
}

void CheckIntDType(const Call& call, const TensorStructInfoNode* t, const char* operand) {
  if (!t->IsUnknownDtype() && !(t->dtype.is_int() || t->dtype.is_uint())) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand '" << operand << "' must have an integer dtype, got "
                             << t->dtype;
  }
}

}  // namespace relax
}  // namespace tessera
