// Constructors and reflection of the base expression nodes (see expr.h).
#include "ir/expr.h"

#include <cmath>
#include <limits>

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {

Span::Span(std::string source_name, int line, int column, int end_line, int end_column) {
  auto n = make_object<SpanNode>();
  n->source_name = std::move(source_name);
  n->line = line;
  n->column = column;
  n->end_line = end_line;
  n->end_column = end_column;
  data_ = std::move(n);
}

PrimExpr::PrimExpr(int value) : PrimExpr(IntImm(DataType::Int(32), value)) {}
PrimExpr::PrimExpr(int64_t value)
    : PrimExpr(value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()
                   ? IntImm(DataType::Int(32), value)
                   : IntImm(DataType::Int(64), value)) {}
PrimExpr::PrimExpr(double value) : PrimExpr(FloatImm(DataType::Float(32), value)) {}

IntImm::IntImm(DataType dtype, int64_t value, Span span) {
  TESSERA_CHECK_OR_THROW(dtype.is_scalar(), ValueError) << "IntImm needs a scalar dtype, got " << dtype;
  TESSERA_CHECK_OR_THROW(dtype.is_int() || dtype.is_uint() || dtype.is_bool(), ValueError)
      << "IntImm needs an integer or bool dtype, got " << dtype;
  if (dtype.is_bool()) {
    TESSERA_CHECK_OR_THROW(value == 0 || value == 1, ValueError) << "bool constant must be 0 or 1, got " << value;
  } else if (dtype.is_uint()) {
    TESSERA_CHECK_OR_THROW(value >= 0, ValueError) << "negative value " << value << " for unsigned " << dtype;
    if (dtype.bits() < 64) {
      TESSERA_CHECK_OR_THROW(value < (int64_t{1} << dtype.bits()), ValueError)
          << "value " << value << " does not fit in " << dtype;
    }
  } else if (dtype.bits() < 64) {
    int64_t lo = -(int64_t{1} << (dtype.bits() - 1)), hi = (int64_t{1} << (dtype.bits() - 1)) - 1;
    TESSERA_CHECK_OR_THROW(value >= lo && value <= hi, ValueError)
        << "value " << value << " does not fit in " << dtype << " [" << lo << ", " << hi << "]";
  }
  auto n = make_object<IntImmNode>();
  n->dtype = dtype;
  n->value = value;
  n->span = std::move(span);
  data_ = std::move(n);
}

FloatImm::FloatImm(DataType dtype, double value, Span span) {
  TESSERA_CHECK_OR_THROW(dtype.is_scalar() && (dtype.is_float() || dtype.is_bfloat16()), ValueError)
      << "FloatImm needs a scalar float dtype, got " << dtype;
  auto n = make_object<FloatImmNode>();
  n->dtype = dtype;
  n->value = value;
  n->span = std::move(span);
  data_ = std::move(n);
}

Range::Range(PrimExpr begin, PrimExpr end, Span span) {
  auto n = make_object<RangeNode>();
  n->min = begin;
  const int64_t* b = AsConstInt(begin);
  if (b != nullptr && *b == 0) {
    n->extent = end;
  } else {
    const int64_t* e = AsConstInt(end);
    if (b != nullptr && e != nullptr) {
      n->extent = IntImm(end.dtype(), *e - *b);
    } else {
      auto sub = Registry::GetOrThrow("tir._OpSub");
      n->extent = sub(end, begin).cast<PrimExpr>();
    }
  }
  n->span = std::move(span);
  data_ = std::move(n);
}

Range Range::FromMinExtent(PrimExpr min, PrimExpr extent, Span span) {
  auto n = make_object<RangeNode>();
  n->min = std::move(min);
  n->extent = std::move(extent);
  n->span = std::move(span);
  return Range(ObjectPtr<Object>(std::move(n)));
}

GlobalVar::GlobalVar(std::string name_hint, Span span) {
  auto n = make_object<GlobalVarNode>();
  n->name_hint = std::move(name_hint);
  n->span = std::move(span);
  data_ = std::move(n);
}

PrimExpr MakeConst(DataType dtype, double value) {
  if (dtype.is_float() || dtype.is_bfloat16()) return FloatImm(dtype, value);
  // A float for an integer dtype is truncated toward zero (as in TVM), but
  // only when it is finite and the result fits in int64: the cast is
  // undefined otherwise; IntImm then checks the dtype's own range.
  TESSERA_CHECK_OR_THROW(std::isfinite(value) && value >= -9223372036854775808.0 && value < 9223372036854775808.0,
                         ValueError)
      << "value " << value << " does not fit in " << dtype;
  return IntImm(dtype, static_cast<int64_t>(value));
}

TESSERA_REGISTER_OBJECT_TYPE(SpanNode);
TESSERA_REGISTER_OBJECT_TYPE(BaseExprNode);
TESSERA_REGISTER_OBJECT_TYPE(PrimExprNode);
TESSERA_REGISTER_OBJECT_TYPE(IntImmNode);
TESSERA_REGISTER_OBJECT_TYPE(FloatImmNode);
TESSERA_REGISTER_OBJECT_TYPE(RangeNode);
TESSERA_REGISTER_OBJECT_TYPE(RelaxExprNode);
TESSERA_REGISTER_OBJECT_TYPE(GlobalVarNode);
TESSERA_REGISTER_OBJECT_TYPE(BaseFuncNode);

TESSERA_REGISTER_NODE(SpanNode)
    .field("source_name", &SpanNode::source_name)
    .field("line", &SpanNode::line)
    .field("column", &SpanNode::column)
    .field("end_line", &SpanNode::end_line)
    .field("end_column", &SpanNode::end_column);
// Spans locate source text; they never take part in structural equality.
TESSERA_REGISTER_NODE(BaseExprNode).ignore("span", &BaseExprNode::span);
TESSERA_REGISTER_NODE(PrimExprNode).field("dtype", &PrimExprNode::dtype);
// A loaded constant goes through the checked constructor (dtype and range).
TESSERA_REGISTER_NODE(IntImmNode).field("value", &IntImmNode::value).on_load([](const ObjectRef& loaded) -> ObjectRef {
  const auto* n = static_cast<const IntImmNode*>(loaded.get());
  return IntImm(n->dtype, n->value, n->span);
});
TESSERA_REGISTER_NODE(FloatImmNode).field("value", &FloatImmNode::value);
TESSERA_REGISTER_NODE(RangeNode).field("min", &RangeNode::min).field("extent", &RangeNode::extent).ignore("span", &RangeNode::span);
// Struct info is inferred from the expression: derived, not compared.
TESSERA_REGISTER_NODE(RelaxExprNode).ignore("struct_info_", &RelaxExprNode::struct_info_);
// GlobalVars compare by name and correspond like variables (IRModules map them).
TESSERA_REGISTER_NODE(GlobalVarNode).kind(SEqualKind::kGlobalVar).field("name_hint", &GlobalVarNode::name_hint);

TESSERA_REGISTER_GLOBAL("ir.Span").set_body_typed([](std::string name, int line, int col, int end_line, int end_col) {
  return Span(name, line, col, end_line, end_col);
});
TESSERA_REGISTER_GLOBAL("ir.IntImm").set_body_typed([](DataType dtype, int64_t value) { return IntImm(dtype, value); });
TESSERA_REGISTER_GLOBAL("ir.FloatImm").set_body_typed([](DataType dtype, double value) { return FloatImm(dtype, value); });
TESSERA_REGISTER_GLOBAL("ir.Range").set_body_typed([](PrimExpr begin, std::optional<PrimExpr> end) {
  if (!end) return Range(IntImm(begin.dtype(), 0), begin);
  return Range(begin, *end);
});
TESSERA_REGISTER_GLOBAL("ir.Range_from_min_extent").set_body_typed([](PrimExpr min, PrimExpr extent) {
  return Range::FromMinExtent(min, extent);
});
TESSERA_REGISTER_GLOBAL("ir.GlobalVar").set_body_typed([](std::string name) { return GlobalVar(name); });
TESSERA_REGISTER_GLOBAL("ir.BaseFuncWithoutAttr").set_body_typed([](BaseFunc func, std::string key) {
  if (!func->attrs.Get(key)) return func;
  func.CopyOnWrite()->attrs.erase(key);  // the map copies itself when shared
  return func;
});
TESSERA_REGISTER_GLOBAL("ir.BaseFuncWithAttr").set_body_typed([](BaseFunc func, std::string key, Any value) {
  return WithAttr(func, key, value);
});

}  // namespace tessera
