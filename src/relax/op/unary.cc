// Elementwise unary Relax operators (TVM's relax/op/tensor/unary.cc subset):
// exp, log, sqrt, rsqrt, tanh, sigmoid, negative, abs, the trigonometric and
// hyperbolic functions, rounding (ceil, floor, round, trunc),
// sign, square, erf, the predicates isnan/isinf/isfinite (bool result),
// bitwise_not, logical_not, and clip(x, min, max); the result has the operand's struct info. Relax IR layer; legalization to TOPI is registered
// next to the Python constructors (python/tessera/relax/op/unary.py).
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

StructInfo SameAsOperand(const Call& call) {
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  if (x->shape) return TensorStructInfo(*x->shape, x->dtype);
  return TensorStructInfo(x->dtype, x->ndim);
}

StructInfo InferUnary(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  return SameAsOperand(call);
}

// The unary result, refusing an operand whose (known) dtype fails `ok`; `expected` says what it must have.
StructInfo InferUnaryOfKind(const Call& call, const BlockBuilder& ctx, bool (*ok)(DataType), const char* expected) {
  StructInfo s = InferUnary(call, ctx);
  const auto* x = s.as<TensorStructInfoNode>();
  if (!x->IsUnknownDtype() && !ok(x->dtype)) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'x' must have " << expected << ", got " << x->dtype;
  }
  return s;
}

// Float-only ops refuse integer tensors (TVM's FloatUnary check); bitwise_not takes
// integers (bool included), logical_not booleans.
StructInfo InferFloatUnary(const Call& call, const BlockBuilder& ctx) {
  return InferUnaryOfKind(call, ctx, [](DataType t) { return t.is_float(); }, "a float dtype");
}
StructInfo InferIntUnary(const Call& call, const BlockBuilder& ctx) {
  return InferUnaryOfKind(call, ctx, [](DataType t) { return t.is_int() || t.is_uint() || t.is_bool(); },
                          "an integer dtype");
}
StructInfo InferBoolUnary(const Call& call, const BlockBuilder& ctx) {
  return InferUnaryOfKind(call, ctx, [](DataType t) { return t.is_bool(); }, "dtype bool");
}

// Predicates (isnan, isinf, isfinite): a bool tensor of the operand's shape.
StructInfo InferPredicate(const Call& call, const BlockBuilder& ctx) {
  StructInfo s = InferUnary(call, ctx);
  const auto* x = s.as<TensorStructInfoNode>();
  if (x->shape) return TensorStructInfo(*x->shape, DataType::Bool());
  return TensorStructInfo(DataType::Bool(), x->ndim);
}

// clip(x, min, max): min and max are scalar PrimValues (TVM v0.18's form).
StructInfo InferClip(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 3);
  StructInfo out = SameAsOperand(call);
  ArgSInfoAs<PrimStructInfoNode>(call, 1, "min", "a scalar (PrimValue)");
  ArgSInfoAs<PrimStructInfoNode>(call, 2, "max", "a scalar (PrimValue)");
  return out;
}

#define TESSERA_RELAX_UNARY_OP(NAME, INFER, DESC)                                                         \
  static auto& reg_unary_##NAME =                                                                        \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(1).describe(DESC), INFER, true)

TESSERA_RELAX_UNARY_OP(exp, InferFloatUnary, "Elementwise e ** x.");
TESSERA_RELAX_UNARY_OP(log, InferFloatUnary, "Elementwise natural logarithm.");
TESSERA_RELAX_UNARY_OP(sqrt, InferFloatUnary, "Elementwise square root.");
TESSERA_RELAX_UNARY_OP(rsqrt, InferFloatUnary, "Elementwise 1 / sqrt(x).");
TESSERA_RELAX_UNARY_OP(tanh, InferFloatUnary, "Elementwise hyperbolic tangent.");
TESSERA_RELAX_UNARY_OP(sigmoid, InferFloatUnary, "Elementwise 1 / (1 + exp(-x)).");
TESSERA_RELAX_UNARY_OP(negative, InferUnary, "Elementwise -x.");
TESSERA_RELAX_UNARY_OP(abs, InferUnary, "Elementwise |x|.");
TESSERA_RELAX_UNARY_OP(sin, InferFloatUnary, "Elementwise sine.");
TESSERA_RELAX_UNARY_OP(cos, InferFloatUnary, "Elementwise cosine.");
TESSERA_RELAX_UNARY_OP(tan, InferFloatUnary, "Elementwise tangent.");
TESSERA_RELAX_UNARY_OP(asin, InferFloatUnary, "Elementwise arcsine.");
TESSERA_RELAX_UNARY_OP(acos, InferFloatUnary, "Elementwise arccosine.");
TESSERA_RELAX_UNARY_OP(atan, InferFloatUnary, "Elementwise arctangent.");
TESSERA_RELAX_UNARY_OP(sinh, InferFloatUnary, "Elementwise hyperbolic sine.");
TESSERA_RELAX_UNARY_OP(cosh, InferFloatUnary, "Elementwise hyperbolic cosine.");
TESSERA_RELAX_UNARY_OP(asinh, InferFloatUnary, "Elementwise inverse hyperbolic sine.");
TESSERA_RELAX_UNARY_OP(acosh, InferFloatUnary, "Elementwise inverse hyperbolic cosine.");
TESSERA_RELAX_UNARY_OP(atanh, InferFloatUnary, "Elementwise inverse hyperbolic tangent.");
TESSERA_RELAX_UNARY_OP(ceil, InferUnary, "Elementwise ceiling (integers unchanged).");
TESSERA_RELAX_UNARY_OP(floor, InferUnary, "Elementwise floor (integers unchanged).");
TESSERA_RELAX_UNARY_OP(round, InferUnary, "Elementwise rounding to the nearest integer, halves to even.");
TESSERA_RELAX_UNARY_OP(trunc, InferUnary, "Elementwise truncation toward zero (integers unchanged).");
TESSERA_RELAX_UNARY_OP(sign, InferUnary, "Elementwise sign: -1, 0 or 1.");
TESSERA_RELAX_UNARY_OP(square, InferUnary, "Elementwise x * x.");
TESSERA_RELAX_UNARY_OP(erf, InferFloatUnary, "Elementwise error function.");
TESSERA_RELAX_UNARY_OP(isnan, InferPredicate, "Elementwise x is NaN (bool).");
TESSERA_RELAX_UNARY_OP(isinf, InferPredicate, "Elementwise x is infinite (bool).");
TESSERA_RELAX_UNARY_OP(isfinite, InferPredicate, "Elementwise x is finite (bool).");
TESSERA_RELAX_UNARY_OP(bitwise_not, InferIntUnary, "Elementwise bitwise complement of an integer tensor.");
TESSERA_RELAX_UNARY_OP(logical_not, InferBoolUnary, "Elementwise logical negation of a bool tensor.");
static auto& reg_unary_clip = SetRelaxOp(
    SetPrimOperands(OpRegEntry::RegisterOrGet("relax.clip"), {1, 2}).set_num_inputs(3).describe(
        "Elementwise min(max(x, min), max)."),
    InferClip, true);

}  // namespace

}  // namespace relax
}  // namespace tessera
