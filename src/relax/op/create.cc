// Tensor-creation Relax operators (TVM's relax/op/tensor/create.cc subset):
// zeros and ones, R.zeros(shape, dtype), whose operand is the shape (a
// ShapeExpr or a shape var; TVMScript also takes a tuple of dims) and whose
// attribute is the dtype; tril and triu(x, k), which keep the lower/upper
// triangle of the last two dimensions (k: the diagonal offset, a PrimValue).
// Relax IR layer; the legalizations (a constant te.compute; TOPI trilu) are in
// python/tessera/relax/op/create.py.
#include <cmath>

#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferFilled(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* shape = ArgSInfoAs<ShapeStructInfoNode>(call, 0, "shape", "a shape (R.shape or a shape var)");
  DataType dtype = AttrDType(call, "dtype");
  if (dtype.is_void()) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'dtype' must name a dtype";
  if (const auto* se = call->args[0].as<ShapeExprNode>()) {
    for (const PrimExpr& d : se->values) {
      const auto* imm = d.as<IntImmNode>();
      if (imm != nullptr && imm->value < 0) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operand 'shape' has the negative dimension " << imm->value;
      }
    }
    return TensorStructInfo(call->args[0], dtype);
  }
  if (shape->values) return TensorStructInfo(ShapeExpr(*shape->values), dtype);
  if (shape->ndim != StructInfoNode::kUnknownNDim) return TensorStructInfo(call->args[0], dtype);
  return TensorStructInfo(dtype, StructInfoNode::kUnknownNDim);
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
