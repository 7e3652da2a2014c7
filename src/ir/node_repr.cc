// Field-driven text of IR values (see node_repr.h).
#include "ir/node_repr.h"

#include <sstream>

#include "ir/expr.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"

namespace tessera {

std::string ReprByFields(const Any& value, int depth) {
  CheckStack("object");
  if (!value.is_object()) return value.repr();
  const ObjectRef& obj = value.raw_object();
  if (obj.as<StringObj>()) return value.repr();
  std::ostringstream os;
  if (const auto* arr = obj.as<ArrayObj>()) {
    os << "[";
    for (size_t i = 0; i < arr->data.size(); ++i) {
      if (i) os << ", ";
      if (depth <= 0) {
        os << "...";
        break;
      }
      os << ReprByFields(arr->data[i], depth - 1);
    }
    os << "]";
    return os.str();
  }
  if (const auto* map = obj.as<MapObj>()) {
    os << "{";
    bool first = true;
    for (const auto& kv : map->data) {
      if (!first) os << ", ";
      first = false;
      if (depth <= 0) {
        os << "...";
        break;
      }
      os << ReprByFields(kv.first, depth - 1) << ": " << ReprByFields(kv.second, depth - 1);
    }
    os << "}";
    return os.str();
  }
  // Constants as their value (int32 / float32 bare, other dtypes named).
  if (const auto* imm = obj.as<IntImmNode>()) {
    if (imm->dtype == DataType::Int(32)) return std::to_string(imm->value);
    return imm->dtype.str() + "(" + std::to_string(imm->value) + ")";
  }
  if (const auto* imm = obj.as<FloatImmNode>()) {
    std::ostringstream v;
    v << imm->value;
    return imm->dtype.str() + "(" + v.str() + ")";
  }
  if (auto name = Reflection::GetField(obj.get(), "name_hint")) {
    if (auto s = name->try_cast<std::string>()) {
      return obj->GetTypeKey() + "(" + *s + ")";
    }
  }
  os << obj->GetTypeKey() << "(";
  const NodeInfo* info = Reflection::Find(obj->type_index());
  if (info != nullptr && depth > 0) {
    bool first = true;
    for (const FieldInfo* f : info->fields) {
      if (f->role == FieldRole::kIgnored) continue;
      if (!first) os << ", ";
      first = false;
      os << f->name << "=" << ReprByFields(f->getter(obj.get()), depth - 1);
    }
  } else if (depth <= 0) {
    os << "...";
  }
  os << ")";
  return os.str();
}

TESSERA_REGISTER_GLOBAL("ir.ReprByFields").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 1 || args.size() == 2, TypeError)
      << "ir.ReprByFields expects (value[, depth]) but got " << args.size() << " arguments";
  return ReprByFields(args[0], args.size() == 2 ? args[1].cast<int>() : 4);
});

}  // namespace tessera
