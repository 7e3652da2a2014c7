// Base expression nodes shared by both IR levels: PrimExpr (scalar index
// and value expressions, with a dtype), integer/float immediates, Range,
// RelaxExpr (graph-level expressions, with struct info), GlobalVar (a
// module-level function name) and BaseFunc (anything an IRModule maps a
// GlobalVar to). IR layer, above the runtime.
#pragma once

#include <optional>

#include "runtime/any.h"
#include "runtime/array.h"
#include "runtime/map.h"
#include "runtime/string.h"

namespace tessera {

// Source location of a node (file:line:col), for diagnostics.
class SpanNode : public Object {
 public:
  std::string source_name;
  int line = 0, column = 0, end_line = 0, end_column = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(SpanNode, Object, "ir.Span");
};
class Span : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Span, ObjectRef, SpanNode);
  Span(std::string source_name, int line, int column, int end_line = 0, int end_column = 0);
};

class BaseExprNode : public Object {
 public:
  Span span;
  TESSERA_DECLARE_OBJECT_INFO(BaseExprNode, Object, "ir.BaseExpr");
};
class BaseExpr : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(BaseExpr, ObjectRef, BaseExprNode);
};

// A scalar (or vector) expression of a known dtype.
class PrimExprNode : public BaseExprNode {
 public:
  DataType dtype;
  TESSERA_DECLARE_OBJECT_INFO(PrimExprNode, BaseExprNode, "ir.PrimExpr");
};
class PrimExpr : public BaseExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PrimExpr, BaseExpr, PrimExprNode);
  // Integer constants convert implicitly to int32 (or int64 when large),
  // floats to float32, as TVM does.
  PrimExpr(int value);      // NOLINT
  PrimExpr(int64_t value);  // NOLINT
  PrimExpr(double value);   // NOLINT
  DataType dtype() const { return get()->dtype; }
};

class IntImmNode : public PrimExprNode {
 public:
  int64_t value = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IntImmNode, PrimExprNode, "ir.IntImm");
};
class IntImm : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IntImm, PrimExpr, IntImmNode);
  // Raises ValueError when `value` does not fit `dtype` or dtype is not an integer/bool.
  IntImm(DataType dtype, int64_t value, Span span = Span());
};

class FloatImmNode : public PrimExprNode {
 public:
  double value = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(FloatImmNode, PrimExprNode, "ir.FloatImm");
};
class FloatImm : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(FloatImm, PrimExpr, FloatImmNode);
  FloatImm(DataType dtype, double value, Span span = Span());
};

// Half-open interval [min, min + extent).
class RangeNode : public Object {
 public:
  PrimExpr min;
  PrimExpr extent;
  Span span;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RangeNode, Object, "ir.Range");
};
class Range : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Range, ObjectRef, RangeNode);
  Range(PrimExpr begin, PrimExpr end, Span span = Span());  // [begin, end)
  static Range FromMinExtent(PrimExpr min, PrimExpr extent, Span span = Span());
};

// A graph-level (Relax) expression: GlobalVar, Op, functions, and the Relax
// nodes to come. `struct_info_` is its structure information (a
// relax.StructInfo once that layer exists), filled by inference; undefined
// until then. It is derived data: structural equality ignores it.
class RelaxExprNode : public BaseExprNode {
 public:
  mutable ObjectRef struct_info_;
  TESSERA_DECLARE_OBJECT_INFO(RelaxExprNode, BaseExprNode, "ir.RelaxExpr");
};
class RelaxExpr : public BaseExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(RelaxExpr, BaseExpr, RelaxExprNode);
};

// The name of a function in an IRModule.
class GlobalVarNode : public RelaxExprNode {
 public:
  std::string name_hint;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(GlobalVarNode, RelaxExprNode, "ir.GlobalVar");
};
class GlobalVar : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(GlobalVar, RelaxExpr, GlobalVarNode);
  explicit GlobalVar(std::string name_hint, Span span = Span());
};

// Function attributes, as in TVM's DictAttrs.
using Attrs = Map<String, Any>;

// Base of PrimFunc (tir) and relax.Function. Each function type registers
// `attrs` among its own fields, at the position it is compared.
class BaseFuncNode : public RelaxExprNode {
 public:
  Attrs attrs;
  TESSERA_DECLARE_OBJECT_INFO(BaseFuncNode, RelaxExprNode, "ir.BaseFunc");
};
class BaseFunc : public RelaxExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(BaseFunc, RelaxExpr, BaseFuncNode);
  TESSERA_DEFINE_OBJECT_REF_COW_METHOD(BaseFuncNode);
  std::optional<Any> GetAttr(const std::string& key) const { return get()->attrs.Get(key); }
};

// Returns a copy of `func` with attribute `key` set (copy-on-write).
template <typename FuncRef>
FuncRef WithAttr(FuncRef func, const std::string& key, Any value) {
  auto* n = func.CopyOnWrite();
  n->attrs.Set(key, value);
  return func;
}

// Python numbers convert to PrimExpr constants where a PrimExpr is expected:
// int -> int32 (int64 when large), float -> float32, bool -> bool, as TVM.
template <>
struct AnyConverter<PrimExpr> {
  static bool Check(const Any& v) {
    return v.is_none() || v.kind() == Any::Kind::kInt || v.kind() == Any::Kind::kFloat ||
           v.kind() == Any::Kind::kBool || (v.is_object() && v.raw_object()->IsInstance<PrimExprNode>());
  }
  static PrimExpr Convert(const Any& v) {
    switch (v.kind()) {
      case Any::Kind::kInt: return PrimExpr(v.raw_int());
      case Any::Kind::kFloat: return PrimExpr(v.raw_float());
      case Any::Kind::kBool: return IntImm(DataType::Bool(), v.raw_int() != 0);
      case Any::Kind::kNone: return PrimExpr(ObjectPtr<Object>(nullptr));
      default:
        if (!Check(v)) ThrowAnyCastError(v, "PrimExpr");
        return PrimExpr(v.raw_object().data());
    }
  }
};

// Helpers on constants.
// A pointer to the value inside the node: only for expressions that outlive the
// pointer, so temporaries are refused at compile time (the node of a temporary,
// e.g. a fresh Simplify result, is freed at the end of the statement). Use
// ConstIntValue on temporaries.
inline const int64_t* AsConstInt(const PrimExpr& e) {
  if (const auto* n = e.as<IntImmNode>()) return &n->value;
  return nullptr;
}
const int64_t* AsConstInt(PrimExpr&& e) = delete;
// The value of an integer constant (a copy: safe on temporaries), or nullopt.
inline std::optional<int64_t> ConstIntValue(const PrimExpr& e) {
  if (const auto* n = e.as<IntImmNode>()) return n->value;
  return std::nullopt;
}
inline bool IsConstInt(const PrimExpr& e, int64_t value) {
  const int64_t* v = AsConstInt(e);
  return v != nullptr && *v == value;
}
// An immediate of `dtype` holding `value` (IntImm or FloatImm).
PrimExpr MakeConst(DataType dtype, double value);

}  // namespace tessera
