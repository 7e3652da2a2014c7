// Indexing Relax operators (TVM's relax/op/tensor/index.cc): take(x, indices,
// axis, mode) and strided_slice(x, axes, begin, end, strides, assume_inbound)
// with NumPy slicing semantics. Relax IR layer; legalization to TOPI in
// python/tessera/relax/op/index.py.
#include <algorithm>
#include <limits>

#include "arith/analyzer.h"
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

using tir::operator+;
using tir::operator-;
using tir::operator*;

namespace {

StructInfo InferTake(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  const auto* idx = ArgSInfoAs<TensorStructInfoNode>(call, 1, "indices", "a tensor");
  CheckIntDType(call, idx, "indices");
  if (!idx->IsUnknownDtype() && idx->dtype.is_bool()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'indices' must have an integer dtype, got bool";
  }
  auto axis_attr = AttrOptInt(call, "axis");
  std::string mode = AttrStr(call, "mode");
  if (mode != "fast" && mode != "clip" && mode != "wrap" && mode != "raise" && mode != "raise_nonnegative") {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'mode' must be \"fast\", \"clip\", \"wrap\", \"raise\" or "
                              << "\"raise_nonnegative\", got \"" << mode << "\"";
  }
  if (!axis_attr && !x->IsUnknownNdim() && x->ndim != 1) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'x' " << StructInfoText(ArgSInfo(call, 0))
                              << " must be 1-D when attribute 'axis' is None";
  }
  if (x->IsUnknownNdim() || idx->IsUnknownNdim()) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
  int axis = axis_attr ? NormalizeAxis(call, *axis_attr, x->ndim, "axis", "x") : 0;
  int out_ndim = x->ndim - 1 + idx->ndim;
  auto xs = x->GetShape();
  auto is = idx->GetShape();
  if (!xs || !is) return TensorStructInfo(x->dtype, out_ndim);
  Array<PrimExpr> out;
  for (int i = 0; i < axis; ++i) out.push_back((*xs)[i]);
  for (const PrimExpr& d : *is) out.push_back(d);
  for (int i = axis + 1; i < x->ndim; ++i) out.push_back((*xs)[i]);
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}
static auto& reg_take = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.take")
                   .set_num_inputs(2)
                   .describe("Elements of x at integer indices along axis."),
               InferTake, true),
    {{"axis", Any()}, {"mode", Any(String("fast"))}});

// Length of the NumPy slice begin:end:stride of a dimension of constant size n.
int64_t SliceLength(int64_t n, int64_t begin, int64_t end, int64_t stride) {
  auto norm = [n, stride](int64_t v) {
    if (v < 0) v += n;
    if (stride > 0) return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  int64_t b = norm(begin), e = norm(end);
  // ceil(distance / |stride|) as (distance - 1) / |stride| + 1: no
  // intermediate exceeds the distance (at most n + 1), whatever the stride.
  uint64_t step = stride > 0 ? static_cast<uint64_t>(stride) : uint64_t{0} - static_cast<uint64_t>(stride);
  int64_t distance = stride > 0 ? e - b : b - e;
  return distance > 0 ? static_cast<int64_t>(static_cast<uint64_t>(distance - 1) / step) + 1 : 0;
}

StructInfo InferStridedSlice(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  std::vector<int64_t> axes = *AttrOptInts(call, "axes");
  std::vector<int64_t> begin = *AttrOptInts(call, "begin");
  std::vector<int64_t> end = *AttrOptInts(call, "end");
  auto strides_opt = AttrOptInts(call, "strides");
  bool inbound = AttrBool(call, "assume_inbound");
  std::vector<int64_t> strides = strides_opt ? *strides_opt : std::vector<int64_t>(axes.size(), 1);
  for (auto [vals, name] : {std::pair{&begin, "begin"}, std::pair{&end, "end"}, std::pair{&strides, "strides"}}) {
    if (vals->size() != axes.size()) {
      TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << name << "' has " << vals->size()
                                << " entries, attribute 'axes' " << axes.size();
    }
  }
  for (int64_t s : strides) {
    if (s == 0) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'strides' has a zero stride";
  }
  if (x->IsUnknownNdim()) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
  std::vector<int> norm = NormalizeAxes(call, axes, x->ndim, "axes", "x");
  auto shape = x->GetShape();
  if (!shape) return TensorStructInfo(x->dtype, x->ndim);
  Array<PrimExpr> out = *shape;
  arith::Analyzer analyzer;
  for (size_t i = 0; i < norm.size(); ++i) {
    PrimExpr n = (*shape)[norm[i]];
    if (auto c = ConstDim(n)) {
      out.Set(norm[i], Dim(SliceLength(*c, begin[i], end[i], strides[i])));
    } else if (strides[i] > 0 && begin[i] >= 0 && end[i] >= std::numeric_limits<int32_t>::max()) {
      // x[begin:] of a symbolic dim: n - min(begin, n), divided by the stride.
      // ceil(len / stride) as floordiv(len - 1, stride) + 1 (0 for len 0), no overflow for huge strides.
      PrimExpr len = n - tir::min(Dim(begin[i]), n);
      out.Set(norm[i], analyzer.Simplify(tir::floordiv(len - Dim(1), Dim(strides[i])) + Dim(1)));
    } else if (inbound && begin[i] >= 0 && end[i] >= 0 && strides[i] > 0) {
      // In bounds by assumption: ceil((end - begin) / stride), without overflow.
      out.Set(norm[i], Dim(end[i] > begin[i] ? (end[i] - begin[i] - 1) / strides[i] + 1 : 0));
    } else {
      return TensorStructInfo(x->dtype, x->ndim);  // depends on the run-time size
    }
  }
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}
static auto& reg_strided_slice = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.strided_slice")
                   .set_num_inputs(1)
                   .describe("The NumPy slice begin:end:strides of x along axes."),
               InferStridedSlice, true),
    {{"axes", {}}, {"begin", {}}, {"end", {}}, {"strides", Any()}, {"assume_inbound", AttrDefaultBool(false)}});

}  // namespace

}  // namespace relax
}  // namespace tessera
