// Reductions over axes (TVM's relax/op/tensor/statistical.cc): sum, mean,
// max, min, prod with axis (None: all) and keepdims; the scans cumsum and
// cumprod (axis, dtype, exclusive). Relax IR layer;
// legalization to TOPI in python/tessera/relax/op/statistical.py.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

StructInfo InferReduction(const Call& call, DataType out_dtype, bool axis_is_single, bool needs_nonempty) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  std::optional<std::vector<int64_t>> axes;
  if (axis_is_single) {
    if (auto a = AttrOptInt(call, "axis")) axes = std::vector<int64_t>{*a};
  } else {
    axes = AttrOptInts(call, "axis");
  }
  bool keepdims = AttrBool(call, "keepdims");
  DataType dtype = out_dtype.is_void() ? x->dtype : out_dtype;
  if (x->IsUnknownNdim()) {
    if (keepdims || !axes) return TensorStructInfo(dtype, keepdims ? StructInfoNode::kUnknownNDim : 0);
    return TensorStructInfo(dtype, StructInfoNode::kUnknownNDim);
  }
  std::vector<bool> reduced(x->ndim, !axes.has_value());
  if (axes) {
    for (int a : NormalizeAxes(call, *axes, x->ndim, "axis", "x")) reduced[a] = true;
  }
  int out_ndim = 0;
  for (int i = 0; i < x->ndim; ++i) out_ndim += (keepdims || !reduced[i]) ? 1 : 0;
  auto shape = x->GetShape();
  if (!shape) return TensorStructInfo(dtype, out_ndim);
  for (int i = 0; needs_nonempty && i < x->ndim; ++i) {
    if (reduced[i] && ConstDim((*shape)[i]) == 0) {
      TESSERA_THROW(ValueError) << OpName(call) << ": cannot reduce over axis " << i << " of x, whose extent is 0 (the "
                                << OpName(call).substr(6) << " of an empty sequence is undefined, as in NumPy)";
    }
  }
  Array<PrimExpr> out;
  for (int i = 0; i < x->ndim; ++i) {
    if (!reduced[i]) {
      out.push_back((*shape)[i]);
    } else if (keepdims) {
      out.push_back(Dim(1));
    }
  }
  return TensorStructInfo(ShapeExpr(out), dtype);
}

namespace {

StructInfo InferStatistical(const Call& call, const BlockBuilder&) {
  return InferReduction(call, DataType::Void(), false, false);
}
StructInfo InferExtremum(const Call& call, const BlockBuilder&) {  // max, min: no identity
  return InferReduction(call, DataType::Void(), false, true);
}

#define TESSERA_RELAX_STAT_OP(NAME, INFER, DESC)                                                      \
  static auto& reg_stat_##NAME = SetAttrSignature(                                                    \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(1).describe(DESC), INFER, true), \
      {{"axis", Any()}, {"keepdims", AttrDefaultBool(false)}})

// cumsum / cumprod(data; axis, dtype, exclusive): the shape of data, or 1-D of its
// size when axis is None (the flattened scan); dtype None keeps data's.
StructInfo InferScan(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  DataType dtype = AttrDType(call, "dtype");
  if (dtype.is_void()) dtype = x->dtype;
  std::optional<int64_t> axis = AttrOptInt(call, "axis");
  if (!axis) {
    if (auto shape = x->GetShape()) return TensorStructInfo(ShapeExpr(Array<PrimExpr>{ShapeProduct(*shape)}), dtype);
    return TensorStructInfo(dtype, 1);
  }
  if (!x->IsUnknownNdim()) NormalizeAxis(call, *axis, x->ndim, "axis", "data");
  if (auto shape = x->GetShape()) return TensorStructInfo(ShapeExpr(*shape), dtype);
  return TensorStructInfo(dtype, x->ndim);
}

#define TESSERA_RELAX_SCAN_OP(NAME, DESC)                                                             \
  static auto& reg_scan_##NAME = SetAttrSignature(                                                    \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(1).describe(DESC), InferScan, true), \
      {{"axis", Any()}, {"dtype", Any()}, {"exclusive", AttrDefaultBool(false)}})

TESSERA_RELAX_SCAN_OP(cumsum, "Cumulative sum of data along axis (None: of the flattened data).");
TESSERA_RELAX_SCAN_OP(cumprod, "Cumulative product of data along axis (None: of the flattened data).");

TESSERA_RELAX_STAT_OP(sum, InferStatistical, "Sum of x over axis (None: all); 0 over an empty axis.");
TESSERA_RELAX_STAT_OP(mean, InferStatistical, "Mean of x over axis (None: all).");
TESSERA_RELAX_STAT_OP(max, InferExtremum, "Maximum of x over axis (None: all).");
TESSERA_RELAX_STAT_OP(min, InferExtremum, "Minimum of x over axis (None: all).");
TESSERA_RELAX_STAT_OP(prod, InferStatistical, "Product of x over axis (None: all); 1 over an empty axis.");

}  // namespace

}  // namespace relax
}  // namespace tessera
