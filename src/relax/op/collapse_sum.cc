// Relax collapse_sum_like(data, collapse_target) and collapse_sum_to(data,
// shape) (TVM's relax/op/tensor/manipulate.cc part): data summed over the
// axes along which `shape` (or the target's shape) was broadcast to it, the
// inverse of broadcast_to in gradients. Struct-info inference with the
// broadcast check naming op and operands. Relax IR layer; legalization in
// python/tessera/relax/op/collapse_sum.py.
#include "arith/analyzer.h"
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

// `target` must broadcast to `data`: each trailing dim equal (provably) or 1.
void CheckBroadcastsTo(const Call& call, const Array<PrimExpr>& data, const Array<PrimExpr>& target) {
  if (target.size() > data.size()) {
    TESSERA_THROW(ValueError) << OpName(call) << ": the target shape has " << target.size()
                              << " dimensions, more than operand 'data' (" << data.size() << ")";
  }
  arith::Analyzer ana;
  size_t lead = data.size() - target.size();
  for (size_t i = 0; i < target.size(); ++i) {
    const PrimExpr& t = target[i];
    const PrimExpr& d = data[lead + i];
    if (ConstDim(t) == 1 || t.same_as(d) || ana.CanProveEqual(t, d)) continue;
    TESSERA_THROW(ValueError) << OpName(call) << ": the target shape does not broadcast to operand 'data': dimension "
                              << i << " of the target vs dimension " << lead + i << " of the data";
  }
}

StructInfo InferCollapseSum(const TensorStructInfoNode* data, const Call& call, const std::optional<RelaxExpr>& shape,
                            int target_ndim, std::optional<Array<PrimExpr>> target_dims) {
  if (auto dims = data->GetShape(); dims && target_dims) CheckBroadcastsTo(call, *dims, *target_dims);
  if (!data->IsUnknownNdim() && target_ndim != StructInfoNode::kUnknownNDim && target_ndim > data->ndim) {
    TESSERA_THROW(ValueError) << OpName(call) << ": the target shape has " << target_ndim
                              << " dimensions, more than operand 'data' (" << data->ndim << ")";
  }
  if (shape) return TensorStructInfo(*shape, data->dtype);
  return TensorStructInfo(data->dtype, target_ndim);
}

StructInfo InferCollapseSumLike(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* data = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  const auto* target = ArgSInfoAs<TensorStructInfoNode>(call, 1, "collapse_target", "a tensor");
  return InferCollapseSum(data, call, target->shape, target->ndim, target->GetShape());
}

StructInfo InferCollapseSumTo(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* data = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  const auto* shape = ArgSInfoAs<ShapeStructInfoNode>(call, 1, "shape", "a shape");
  return InferCollapseSum(data, call, call->args[1], shape->ndim, shape->values);
}

static auto& reg_collapse_sum_like = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.collapse_sum_like")
        .set_num_inputs(2)
        .describe("data summed over the axes along which collapse_target's shape broadcasts to it."),
    InferCollapseSumLike, true);
static auto& reg_collapse_sum_to = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.collapse_sum_to")
        .set_num_inputs(2)
        .describe("data summed over the axes along which shape broadcasts to it."),
    InferCollapseSumTo, true);

}  // namespace

}  // namespace relax
}  // namespace tessera
