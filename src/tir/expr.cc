// Constructors (with dtype checks), reflection and FFI constructors of TIR
// expressions (see expr.h).
#include "tir/expr.h"

#include "runtime/reflection.h"
#include "runtime/registry.h"

namespace tessera {
namespace tir {
namespace {

void CheckSameType(const char* op, const PrimExpr& a, const PrimExpr& b) {
  TESSERA_CHECK_OR_THROW(a.defined() && b.defined(), ValueError) << op << ": operand is undefined";
  if (a.dtype() != b.dtype()) {
    TESSERA_THROW(TypeError) << op << ": operands have different dtypes " << a.dtype() << " and " << b.dtype()
                             << " (cast one side first)";
  }
}

template <typename NodeT>
ObjectPtr<Object> MakeBinary(const char* op, PrimExpr a, PrimExpr b, DataType dtype, Span span) {
  auto n = make_object<NodeT>();
  n->a = std::move(a);
  n->b = std::move(b);
  n->dtype = dtype;
  n->span = std::move(span);
  return ObjectPtr<Object>(std::move(n));
}

}  // namespace

Var::Var(std::string name_hint, DataType dtype, Span span) {
  auto n = make_object<VarNode>();
  n->name_hint = std::move(name_hint);
  n->dtype = dtype;
  n->span = std::move(span);
  data_ = std::move(n);
}

Var Var::copy_with_suffix(const std::string& suffix) const {
  auto n = make_object<VarNode>(*get());
  n->name_hint += suffix;
  return Var(ObjectPtr<Object>(std::move(n)));
}

SizeVar::SizeVar(std::string name_hint, DataType dtype, Span span) {
  auto n = make_object<SizeVarNode>();
  n->name_hint = std::move(name_hint);
  n->dtype = dtype;
  n->span = std::move(span);
  data_ = std::move(n);
}

StringImm::StringImm(std::string value, Span span) {
  auto n = make_object<StringImmNode>();
  n->value = std::move(value);
  n->dtype = DataType::Handle();
  n->span = std::move(span);
  data_ = std::move(n);
}

Cast::Cast(DataType dtype, PrimExpr value, Span span) {
  TESSERA_CHECK_OR_THROW(value.defined(), ValueError) << "Cast of an undefined value";
  TESSERA_CHECK_OR_THROW(dtype.lanes() == value.dtype().lanes(), ValueError)
      << "Cast from " << value.dtype() << " to " << dtype << " changes the number of lanes";
  auto n = make_object<CastNode>();
  n->dtype = dtype;
  n->value = std::move(value);
  n->span = std::move(span);
  data_ = std::move(n);
}

#define TESSERA_TIR_ARITH_CTOR(Name)                                            \
  Name::Name(PrimExpr a, PrimExpr b, Span span) {                               \
    CheckSameType(#Name, a, b);                                                 \
    DataType t = a.dtype();                                                     \
    data_ = MakeBinary<Name##Node>(#Name, std::move(a), std::move(b), t, span); \
  }
#define TESSERA_TIR_CMP_CTOR(Name)                                                            \
  Name::Name(PrimExpr a, PrimExpr b, Span span) {                                             \
    CheckSameType(#Name, a, b);                                                               \
    DataType t = DataType::Bool(a.dtype().lanes());                                           \
    data_ = MakeBinary<Name##Node>(#Name, std::move(a), std::move(b), t, span);               \
  }
#define TESSERA_TIR_LOGIC_CTOR(Name)                                                          \
  Name::Name(PrimExpr a, PrimExpr b, Span span) {                                             \
    CheckSameType(#Name, a, b);                                                               \
    TESSERA_CHECK_OR_THROW(a.dtype().is_bool(), TypeError)                                    \
        << #Name << " needs bool operands, got " << a.dtype();                                \
    DataType t = a.dtype();                                                                   \
    data_ = MakeBinary<Name##Node>(#Name, std::move(a), std::move(b), t, span);               \
  }

TESSERA_TIR_ARITH_CTOR(Add)
TESSERA_TIR_ARITH_CTOR(Sub)
TESSERA_TIR_ARITH_CTOR(Mul)
TESSERA_TIR_ARITH_CTOR(Div)
TESSERA_TIR_ARITH_CTOR(Mod)
TESSERA_TIR_ARITH_CTOR(FloorDiv)
TESSERA_TIR_ARITH_CTOR(FloorMod)
TESSERA_TIR_ARITH_CTOR(Min)
TESSERA_TIR_ARITH_CTOR(Max)
TESSERA_TIR_CMP_CTOR(EQ)
TESSERA_TIR_CMP_CTOR(NE)
TESSERA_TIR_CMP_CTOR(LT)
TESSERA_TIR_CMP_CTOR(LE)
TESSERA_TIR_CMP_CTOR(GT)
TESSERA_TIR_CMP_CTOR(GE)
TESSERA_TIR_LOGIC_CTOR(And)
TESSERA_TIR_LOGIC_CTOR(Or)

Not::Not(PrimExpr a, Span span) {
  TESSERA_CHECK_OR_THROW(a.defined() && a.dtype().is_bool(), TypeError)
      << "Not needs a bool operand" << (a.defined() ? ", got " + a.dtype().str() : std::string());
  auto n = make_object<NotNode>();
  n->dtype = a.dtype();
  n->a = std::move(a);
  n->span = std::move(span);
  data_ = std::move(n);
}

Select::Select(PrimExpr condition, PrimExpr true_value, PrimExpr false_value, Span span) {
  TESSERA_CHECK_OR_THROW(condition.defined() && condition.dtype().is_bool(), TypeError)
      << "Select condition must be bool";
  CheckSameType("Select", true_value, false_value);
  auto n = make_object<SelectNode>();
  n->dtype = true_value.dtype();
  n->condition = std::move(condition);
  n->true_value = std::move(true_value);
  n->false_value = std::move(false_value);
  n->span = std::move(span);
  data_ = std::move(n);
}

Let::Let(Var var, PrimExpr value, PrimExpr body, Span span) {
  TESSERA_CHECK_OR_THROW(var.defined() && value.defined() && body.defined(), ValueError) << "Let with undefined parts";
  TESSERA_CHECK_OR_THROW(var.dtype() == value.dtype(), TypeError)
      << "Let: variable " << var->name_hint << " is " << var.dtype() << " but the value is " << value.dtype();
  auto n = make_object<LetNode>();
  n->dtype = body.dtype();
  n->var = std::move(var);
  n->value = std::move(value);
  n->body = std::move(body);
  n->span = std::move(span);
  data_ = std::move(n);
}

Ramp::Ramp(PrimExpr base, PrimExpr stride, int lanes, Span span) {
  CheckSameType("Ramp", base, stride);
  TESSERA_CHECK_OR_THROW(base.dtype().is_scalar() && lanes > 1, ValueError)
      << "Ramp needs a scalar base and more than one lane";
  auto n = make_object<RampNode>();
  n->dtype = base.dtype().with_lanes(lanes);
  n->base = std::move(base);
  n->stride = std::move(stride);
  n->lanes = lanes;
  n->span = std::move(span);
  data_ = std::move(n);
}

Broadcast::Broadcast(PrimExpr value, int lanes, Span span) {
  TESSERA_CHECK_OR_THROW(value.defined() && value.dtype().is_scalar() && lanes > 1, ValueError)
      << "Broadcast needs a scalar value and more than one lane";
  auto n = make_object<BroadcastNode>();
  n->dtype = value.dtype().with_lanes(lanes);
  n->value = std::move(value);
  n->lanes = lanes;
  n->span = std::move(span);
  data_ = std::move(n);
}

Call::Call(DataType dtype, BaseExpr op, Array<PrimExpr> args, Span span) {
  TESSERA_CHECK_OR_THROW(op.defined(), ValueError) << "Call of an undefined operator";
  auto n = make_object<CallNode>();
  n->dtype = dtype;
  n->op = std::move(op);
  n->args = std::move(args);
  n->span = std::move(span);
  data_ = std::move(n);
}

const char* IterVarTypeName(int type) {
  switch (type) {
    case kDataPar: return "DataPar";
    case kThreadIndex: return "ThreadIndex";
    case kCommReduce: return "CommReduce";
    case kOrdered: return "Ordered";
    case kOpaque: return "Opaque";
    case kUnrolled: return "Unrolled";
    case kVectorized: return "Vectorized";
    case kParallelized: return "Parallelized";
    case kTensorized: return "Tensorized";
    default: return "Unknown";
  }
}

IterVar::IterVar(Range dom, Var var, int iter_type, std::string thread_tag, Span span) {
  TESSERA_CHECK_OR_THROW(var.defined(), ValueError) << "IterVar needs a variable";
  TESSERA_CHECK_OR_THROW(iter_type >= kDataPar && iter_type <= kTensorized, ValueError)
      << "unknown IterVar type " << iter_type;
  auto n = make_object<IterVarNode>();
  n->dom = std::move(dom);
  n->var = std::move(var);
  n->iter_type = iter_type;
  n->thread_tag = std::move(thread_tag);
  n->span = std::move(span);
  data_ = std::move(n);
}

// ---- type registration, reflection, FFI constructors ------------------------
TESSERA_REGISTER_OBJECT_TYPE(VarNode);
TESSERA_REGISTER_OBJECT_TYPE(SizeVarNode);
TESSERA_REGISTER_OBJECT_TYPE(StringImmNode);
TESSERA_REGISTER_OBJECT_TYPE(CastNode);
TESSERA_REGISTER_OBJECT_TYPE(BinaryOpNode);
TESSERA_REGISTER_OBJECT_TYPE(AddNode);
TESSERA_REGISTER_OBJECT_TYPE(SubNode);
TESSERA_REGISTER_OBJECT_TYPE(MulNode);
TESSERA_REGISTER_OBJECT_TYPE(DivNode);
TESSERA_REGISTER_OBJECT_TYPE(ModNode);
TESSERA_REGISTER_OBJECT_TYPE(FloorDivNode);
TESSERA_REGISTER_OBJECT_TYPE(FloorModNode);
TESSERA_REGISTER_OBJECT_TYPE(MinNode);
TESSERA_REGISTER_OBJECT_TYPE(MaxNode);
TESSERA_REGISTER_OBJECT_TYPE(EQNode);
TESSERA_REGISTER_OBJECT_TYPE(NENode);
TESSERA_REGISTER_OBJECT_TYPE(LTNode);
TESSERA_REGISTER_OBJECT_TYPE(LENode);
TESSERA_REGISTER_OBJECT_TYPE(GTNode);
TESSERA_REGISTER_OBJECT_TYPE(GENode);
TESSERA_REGISTER_OBJECT_TYPE(AndNode);
TESSERA_REGISTER_OBJECT_TYPE(OrNode);
TESSERA_REGISTER_OBJECT_TYPE(NotNode);
TESSERA_REGISTER_OBJECT_TYPE(SelectNode);
TESSERA_REGISTER_OBJECT_TYPE(LetNode);
TESSERA_REGISTER_OBJECT_TYPE(RampNode);
TESSERA_REGISTER_OBJECT_TYPE(BroadcastNode);
TESSERA_REGISTER_OBJECT_TYPE(CallNode);
TESSERA_REGISTER_OBJECT_TYPE(IterVarNode);

// Fields of each expression, with their role in structural equality (see
// runtime/reflection.h); the dtype comes from PrimExprNode (ir/expr.cc).
// Variables: the dtype is compared, the name is free.
TESSERA_REGISTER_NODE(VarNode)
    .kind(SEqualKind::kVar)
    .ignore("name_hint", &VarNode::name_hint)
    .field("type_annotation", &VarNode::type_annotation);
TESSERA_REGISTER_NODE(StringImmNode).field("value", &StringImmNode::value);
TESSERA_REGISTER_NODE(CastNode).field("value", &CastNode::value);
// Add, Sub, ..., Or share this layout; the node type itself is compared first.
TESSERA_REGISTER_NODE(BinaryOpNode).field("a", &BinaryOpNode::a).field("b", &BinaryOpNode::b);
TESSERA_REGISTER_NODE(NotNode).field("a", &NotNode::a);
TESSERA_REGISTER_NODE(SelectNode)
    .field("condition", &SelectNode::condition)
    .field("true_value", &SelectNode::true_value)
    .field("false_value", &SelectNode::false_value);
TESSERA_REGISTER_NODE(LetNode).def("var", &LetNode::var).field("value", &LetNode::value).field("body", &LetNode::body);
TESSERA_REGISTER_NODE(RampNode)
    .field("base", &RampNode::base)
    .field("stride", &RampNode::stride)
    .field("lanes", &RampNode::lanes);
TESSERA_REGISTER_NODE(BroadcastNode).field("value", &BroadcastNode::value).field("lanes", &BroadcastNode::lanes);
TESSERA_REGISTER_NODE(CallNode).field("op", &CallNode::op).field("args", &CallNode::args);
TESSERA_REGISTER_NODE(IterVarNode)
    .field("dom", &IterVarNode::dom)
    .def("var", &IterVarNode::var)
    .field("iter_type", &IterVarNode::iter_type)
    .field("thread_tag", &IterVarNode::thread_tag)
    .ignore("span", &IterVarNode::span);

TESSERA_REGISTER_GLOBAL("tir.Var").set_body_typed([](std::string name, DataType dtype) { return Var(name, dtype); });
// Var(name, PointerType(...)): a handle typed by what it points to (TVM's Var with a type annotation).
TESSERA_REGISTER_GLOBAL("tir.VarWithTypeAnnotation").set_body_typed([](std::string name, ObjectRef annotation) {
  TESSERA_CHECK_OR_THROW(annotation.defined() && annotation->GetTypeKey() == "PointerType", TypeError)
      << "a variable's type annotation must be a PointerType";
  auto n = make_object<VarNode>();
  n->name_hint = std::move(name);
  n->dtype = DataType::Handle();
  n->type_annotation = std::move(annotation);
  return Var(ObjectPtr<Object>(std::move(n)));
});
TESSERA_REGISTER_GLOBAL("tir.SizeVar").set_body_typed([](std::string name, DataType dtype) { return SizeVar(name, dtype); });
TESSERA_REGISTER_GLOBAL("tir.StringImm").set_body_typed([](std::string v) { return StringImm(v); });
TESSERA_REGISTER_GLOBAL("tir.Cast").set_body_typed([](DataType t, PrimExpr v) { return Cast(t, v); });
#define TESSERA_TIR_REGISTER_BINARY(Name) \
  TESSERA_REGISTER_GLOBAL("tir." #Name).set_body_typed([](PrimExpr a, PrimExpr b) { return Name(a, b); });
TESSERA_TIR_REGISTER_BINARY(Add)
TESSERA_TIR_REGISTER_BINARY(Sub)
TESSERA_TIR_REGISTER_BINARY(Mul)
TESSERA_TIR_REGISTER_BINARY(Div)
TESSERA_TIR_REGISTER_BINARY(Mod)
TESSERA_TIR_REGISTER_BINARY(FloorDiv)
TESSERA_TIR_REGISTER_BINARY(FloorMod)
TESSERA_TIR_REGISTER_BINARY(Min)
TESSERA_TIR_REGISTER_BINARY(Max)
TESSERA_TIR_REGISTER_BINARY(EQ)
TESSERA_TIR_REGISTER_BINARY(NE)
TESSERA_TIR_REGISTER_BINARY(LT)
TESSERA_TIR_REGISTER_BINARY(LE)
TESSERA_TIR_REGISTER_BINARY(GT)
TESSERA_TIR_REGISTER_BINARY(GE)
TESSERA_TIR_REGISTER_BINARY(And)
TESSERA_TIR_REGISTER_BINARY(Or)
#undef TESSERA_TIR_REGISTER_BINARY
TESSERA_REGISTER_GLOBAL("tir.Not").set_body_typed([](PrimExpr a) { return Not(a); });
TESSERA_REGISTER_GLOBAL("tir.Select").set_body_typed([](PrimExpr c, PrimExpr t, PrimExpr f) { return Select(c, t, f); });
TESSERA_REGISTER_GLOBAL("tir.Let").set_body_typed([](Var v, PrimExpr value, PrimExpr body) { return Let(v, value, body); });
TESSERA_REGISTER_GLOBAL("tir.Ramp").set_body_typed([](PrimExpr b, PrimExpr s, int lanes) { return Ramp(b, s, lanes); });
TESSERA_REGISTER_GLOBAL("tir.Broadcast").set_body_typed([](PrimExpr v, int lanes) { return Broadcast(v, lanes); });
TESSERA_REGISTER_GLOBAL("tir.Call").set_body_typed([](DataType t, Any op, Array<PrimExpr> args) {
  BaseExpr callee = op.as<StringObj>() ? BaseExpr(Op::Get(op.cast<std::string>())) : op.cast<BaseExpr>();
  return Call(t, callee, args);
});
TESSERA_REGISTER_GLOBAL("tir.IterVar").set_body_typed([](std::optional<Range> dom, Var var, int iter_type, std::string tag) {
  return IterVar(dom.value_or(Range()), var, iter_type, tag);
});

}  // namespace tir
}  // namespace tessera
