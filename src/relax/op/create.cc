// Tensor-creation Relax operators (TVM's relax/op/tensor/create.cc subset):
// zeros and ones, R.zeros(shape, dtype), whose operand is the shape (a
// ShapeExpr or a shape var; TVMScript also takes a tuple of dims) and whose
// attribute is the dtype; full(shape, fill_value, dtype) (a 0-d tensor's value); tril and triu(x, k), which keep the lower/upper
// triangle of the last two dimensions (k: the diagonal offset, a PrimValue).
// Relax IR layer; the legalizations (a constant te.compute; TOPI trilu) are in
// python/tessera/relax/op/create.py.
#include <cmath>

#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

// The result shape of a creation op from its operand 0 (a ShapeExpr, or a shape var whose values are
// known or not); nullopt when only the rank (or nothing) is known.
std::optional<RelaxExpr> InferFilledShape(const Call& call) {
  const auto* shape = ArgSInfoAs<ShapeStructInfoNode>(call, 0, "shape", "a shape (R.shape or a shape var)");
  if (const auto* se = call->args[0].as<ShapeExprNode>()) {
    for (const PrimExpr& d : se->values) {
      const auto* imm = d.as<IntImmNode>();
      if (imm != nullptr && imm->value < 0) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operand 'shape' has the negative dimension " << imm->value;
      }
    }
    return RelaxExpr(call->args[0]);
  }
  if (shape->values) return RelaxExpr(ShapeExpr(*shape->values));
  if (shape->ndim != StructInfoNode::kUnknownNDim) return RelaxExpr(call->args[0]);
  return std::nullopt;
}

StructInfo InferFilled(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  DataType dtype = AttrDType(call, "dtype");
  if (dtype.is_void()) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'dtype' must name a dtype";
  auto shape = InferFilledShape(call);
  if (shape.has_value()) return TensorStructInfo(*shape, dtype);
  return TensorStructInfo(dtype, StructInfoNode::kUnknownNDim);
}

// full(shape, fill_value) with attribute dtype (None: fill_value's): a tensor of the shape holding the
// 0-d tensor fill_value (cast to dtype) everywhere.
StructInfo InferFull(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* value = ArgSInfoAs<TensorStructInfoNode>(call, 1, "fill_value", "a 0-d tensor");
  if (!value->IsUnknownNdim() && value->ndim != 0) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'fill_value' must be a 0-d tensor, got "
                              << value->ndim << " dimensions";
  }
  if (AttrDType(call, "dtype").is_void() && value->dtype.is_void()) {
    TESSERA_THROW(ValueError) << OpName(call) << ": the dtype is unknown (give attribute 'dtype')";
  }
  DataType dtype = AttrDType(call, "dtype").is_void() ? value->dtype : AttrDType(call, "dtype");
  // The shape rules are those of zeros/ones (operand 0), with the dtype decided here.
  auto filled = InferFilledShape(call);
  if (filled.has_value()) return TensorStructInfo(*filled, dtype);
  const auto* shape = GetStructInfo(call->args[0]).as<ShapeStructInfoNode>();
  return TensorStructInfo(dtype, shape->ndim);
}

StructInfo InferTrilu(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  const auto* k = ArgSInfoAs<PrimStructInfoNode>(call, 1, "k", "an integer scalar (PrimValue)");
  if (!k->dtype.is_void() && !k->dtype.is_int() && !k->dtype.is_uint()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'k' must be an integer, got " << k->dtype;
  }
  if (!x->IsUnknownNdim() && x->ndim < 2) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'x' must have at least 2 dimensions, got " << x->ndim;
  }
  if (auto shape = x->GetShape()) return TensorStructInfo(ShapeExpr(*shape), x->dtype);
  return TensorStructInfo(x->dtype, x->ndim);
}

// arange(start, end, step) (PrimValues) with attribute dtype: a 1-d tensor of ceil((end - start) / step)
// elements; the length is known when the three are constants, else only the rank is.
StructInfo InferArange(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 3);
  static const char* const kNames[] = {"start", "end", "step"};
  double v[3];
  bool known = true;
  for (int i = 0; i < 3; ++i) {
    ArgSInfoAs<PrimStructInfoNode>(call, i, kNames[i], "a scalar (PrimValue)");
    const auto* pv = call->args[i].as<PrimValueNode>();
    const auto* ii = pv ? pv->value.as<IntImmNode>() : nullptr;
    const auto* fi = pv ? pv->value.as<FloatImmNode>() : nullptr;
    if (ii) v[i] = static_cast<double>(ii->value);
    else if (fi) v[i] = fi->value;
    else known = false;
  }
  DataType dtype = AttrDType(call, "dtype");
  if (dtype.is_void()) dtype = GetStructInfo(call->args[0]).as<PrimStructInfoNode>()->dtype;
  if (!known) return TensorStructInfo(dtype, 1);
  if (v[2] == 0) TESSERA_THROW(ValueError) << OpName(call) << ": operand 'step' must not be 0";
  double n = std::ceil((v[1] - v[0]) / v[2]);
  int64_t len = n > 0 ? static_cast<int64_t>(n) : 0;
  return TensorStructInfo(ShapeExpr({PrimExpr(IntImm(DataType::Int(64), len))}), dtype);
}

static auto& reg_arange = SetAttrSignature(
    SetRelaxOp(SetPrimOperands(OpRegEntry::RegisterOrGet("relax.arange"), {0, 1, 2}).set_num_inputs(3).describe(
                   "The 1-d tensor start, start + step, ... below end (PrimValue operands; attribute dtype)."),
               InferArange, true),
    {{"dtype", Any()}});

static auto& reg_tril = SetRelaxOp(SetPrimOperands(OpRegEntry::RegisterOrGet("relax.tril"), {1}).set_num_inputs(2).describe(
                                       "x with the elements above diagonal k of the last two dims set to 0."),
                                   InferTrilu, true);
static auto& reg_triu = SetRelaxOp(SetPrimOperands(OpRegEntry::RegisterOrGet("relax.triu"), {1}).set_num_inputs(2).describe(
                                       "x with the elements below diagonal k of the last two dims set to 0."),
                                   InferTrilu, true);

static auto& reg_full_shape =
    OpRegEntry::RegisterOrGet("relax.full").set_attr("TScriptShapeOperands", Any(Array<Any>{Any(int64_t{0})}));
static auto& reg_full = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.full").set_num_inputs(2).describe(
                   "A tensor of the given shape holding the 0-d tensor fill_value (cast to attribute dtype; None: "
                   "fill_value's dtype)."),
               InferFull, true),
    {{"dtype", Any()}});

#define TESSERA_RELAX_CREATE_OP(NAME, DESC)                                                                          \
  static auto& reg_create_##NAME##_shape =                                                                          \
      OpRegEntry::RegisterOrGet("relax." #NAME).set_attr("TScriptShapeOperands", Any(Array<Any>{Any(int64_t{0})})); \
  static auto& reg_create_##NAME = SetAttrSignature(                                                                \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(1).describe(DESC), InferFilled, true),   \
      {{"dtype", {}}})

TESSERA_RELAX_CREATE_OP(zeros, "A tensor of the given shape and dtype filled with 0.");
TESSERA_RELAX_CREATE_OP(ones, "A tensor of the given shape and dtype filled with 1.");

#undef TESSERA_RELAX_CREATE_OP

}  // namespace

}  // namespace relax
}  // namespace tessera
