// Relax operators that replicate or reverse a tensor's elements (TVM's
// relax/op/tensor/manipulate.cc part): tile(data; repeats), repeat(data;
// repeats, axis=None: of the flattened data) and flip(data; axis), with their
// struct-info inference. Relax IR layer; legalization to TE in
// python/tessera/relax/op/replicate.py.
#include <algorithm>

#include "arith/analyzer.h"
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

using tir::operator*;

const TensorStructInfoNode* Data(const Call& call) {
  CheckNumArgs(call, 1, 1);
  return ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
}

std::optional<Array<PrimExpr>> LiteralShape(const TensorStructInfoNode* t) {
  if (!t->shape) return std::nullopt;
  if (const auto* s = t->shape->as<ShapeExprNode>()) return s->values;
  return std::nullopt;
}

// tile: repeats aligned to the trailing dims (the shorter side padded with 1s, as numpy.tile).
StructInfo InferTile(const Call& call, const BlockBuilder&) {
  const auto* x = Data(call);
  std::vector<int64_t> reps = *AttrOptInts(call, "repeats");
  for (int64_t r : reps) {
    if (r < 0) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'repeats' must be >= 0, got " << r;
  }
  bool ones = std::all_of(reps.begin(), reps.end(), [](int64_t r) { return r == 1; });
  if (ones && (x->IsUnknownNdim() || static_cast<int>(reps.size()) <= x->ndim)) return GetRef<StructInfo>(x);
  if (x->IsUnknownNdim()) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
  int l = static_cast<int>(reps.size());
  int out_ndim = std::max(x->ndim, l);
  auto shape = LiteralShape(x);
  if (!shape) return TensorStructInfo(x->dtype, out_ndim);
  arith::Analyzer ana;
  Array<PrimExpr> out;
  for (int i = 0; i < out_ndim; ++i) {
    int xi = i - (out_ndim - x->ndim), ri = i - (out_ndim - l);
    PrimExpr d = xi >= 0 ? (*shape)[xi] : Dim(1);
    int64_t r = ri >= 0 ? reps[ri] : 1;
    out.push_back(r == 1 ? d : ana.Simplify(d * Dim(r)));
  }
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}

// repeat: each element `repeats` times along axis (None: of the flattened data, a 1-D result).
StructInfo InferRepeat(const Call& call, const BlockBuilder&) {
  const auto* x = Data(call);
  int64_t repeats = AttrInt(call, "repeats");
  if (repeats < 0) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'repeats' must be >= 0, got " << repeats;
  std::optional<int64_t> axis = AttrOptInt(call, "axis");
  if (axis && !x->IsUnknownNdim()) NormalizeAxis(call, *axis, x->ndim, "axis", "data");
  if (axis && repeats == 1) return GetRef<StructInfo>(x);
  auto shape = LiteralShape(x);
  arith::Analyzer ana;
  if (!axis) {
    if (!shape) return TensorStructInfo(x->dtype, 1);
    PrimExpr total = Dim(repeats);
    if (!shape->empty()) {
      total = (*shape)[0];
      for (size_t i = 1; i < shape->size(); ++i) total = total * (*shape)[i];
      total = total * Dim(repeats);
    }
    return TensorStructInfo(ShapeExpr(Array<PrimExpr>{ana.Simplify(total)}), x->dtype);
  }
  if (x->IsUnknownNdim()) return TensorStructInfo(x->dtype, StructInfoNode::kUnknownNDim);
  if (!shape) return TensorStructInfo(x->dtype, x->ndim);
  int a = NormalizeAxis(call, *axis, x->ndim, "axis", "data");
  Array<PrimExpr> out = *shape;
  out.Set(a, ana.Simplify(out[a] * Dim(repeats)));
  return TensorStructInfo(ShapeExpr(out), x->dtype);
}

// flip: data reversed along axis; its struct info unchanged.
StructInfo InferFlip(const Call& call, const BlockBuilder&) {
  const auto* x = Data(call);
  int64_t axis = AttrInt(call, "axis");
  if (!x->IsUnknownNdim()) NormalizeAxis(call, axis, x->ndim, "axis", "data");
  return GetRef<StructInfo>(x);
}

#define TESSERA_RELAX_REPLICATE_OP(NAME, INFER, DESC, ...)                                                     \
  static auto& reg_replicate_##NAME = SetAttrSignature(                                                       \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(1).describe(DESC), INFER, true), \
      __VA_ARGS__)

TESSERA_RELAX_REPLICATE_OP(tile, InferTile, "data repeated `repeats` times per (trailing) dimension, as numpy.tile.",
                           {{"repeats", std::nullopt}});
// R.tile(x, 2) is R.tile(x, [2]) (TVM's constructor makes an int the list of it).
static auto& list_attrs_tile = SetListAttrs(OpRegEntry::RegisterOrGet("relax.tile"), {"repeats"});
TESSERA_RELAX_REPLICATE_OP(repeat, InferRepeat,
                           "Each element repeated `repeats` times along axis (None: the flattened data).",
                           {{"repeats", std::nullopt}, {"axis", Any()}});
TESSERA_RELAX_REPLICATE_OP(flip, InferFlip, "data reversed along axis.", {{"axis", std::nullopt}});

}  // namespace

}  // namespace relax
}  // namespace tessera
