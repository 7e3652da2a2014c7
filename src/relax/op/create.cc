// Tensor-creation Relax operators (TVM's relax/op/tensor/create.cc subset):
// tril and triu(x, k), which keep the lower/upper triangle of the last two
// dimensions (k: the diagonal offset, a PrimValue). Relax IR layer; the
// legalization to TOPI is in python/tessera/relax/op/create.py.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

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

static auto& reg_tril = SetRelaxOp(OpRegEntry::RegisterOrGet("relax.tril").set_num_inputs(2).describe(
                                       "x with the elements above diagonal k of the last two dims set to 0."),
                                   InferTrilu, true);
static auto& reg_triu = SetRelaxOp(OpRegEntry::RegisterOrGet("relax.triu").set_num_inputs(2).describe(
                                       "x with the elements below diagonal k of the last two dims set to 0."),
                                   InferTrilu, true);

}  // namespace

}  // namespace relax
}  // namespace tessera
