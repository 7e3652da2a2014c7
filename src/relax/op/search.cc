// Search Relax operators (TVM's relax/op/tensor/search.cc): where(condition,
// x1, x2) with broadcasting over all three, and argmax/argmin (int64 indices)
// over one axis (None: all) with keepdims. Relax IR layer; legalization to
// TOPI in python/tessera/relax/op/search.py.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferWhere(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 3);
  const auto* c = ArgSInfoAs<TensorStructInfoNode>(call, 0, "condition", "a tensor");
  const auto* a = ArgSInfoAs<TensorStructInfoNode>(call, 1, "x1", "a tensor");
  const auto* b = ArgSInfoAs<TensorStructInfoNode>(call, 2, "x2", "a tensor");
  if (!c->IsUnknownDtype() && !c->dtype.is_bool()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'condition' must have dtype bool, got " << c->dtype;
  }
  DataType dtype = SameDType(call, {a, b}, {"x1", "x2"});
  int ndim = 0;
  auto shape = BroadcastShapes(call, {c, a, b}, {"condition", "x1", "x2"}, &ndim);
  return TensorSInfo(shape, dtype, ndim);
}
static auto& reg_where = SetRelaxOp(OpRegEntry::RegisterOrGet("relax.where")
                                        .set_num_inputs(3)
                                        .describe("x1 where condition holds, else x2, with broadcasting."),
                                    InferWhere, true);

StructInfo InferArgReduce(const Call& call, const BlockBuilder&) {
  return InferReduction(call, DataType::Int(64), true, true);
}

static auto& reg_argmax = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.argmax").set_num_inputs(1).describe("Index of the maximum along axis."),
               InferArgReduce, true),
    {{"axis", Any()}, {"keepdims", AttrDefaultBool(false)}});
static auto& reg_argmin = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.argmin").set_num_inputs(1).describe("Index of the minimum along axis."),
               InferArgReduce, true),
    {{"axis", Any()}, {"keepdims", AttrDefaultBool(false)}});

}  // namespace

}  // namespace relax
}  // namespace tessera
