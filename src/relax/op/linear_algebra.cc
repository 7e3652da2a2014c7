// Linear-algebra Relax operators (TVM's relax/op/tensor/linear_algebra.cc):
// matmul with NumPy semantics (batch dims broadcast; a 1-D operand is a
// vector) and out_dtype. Relax IR layer; legalization to TOPI and the
// relax.op.linear helper are in python/tessera/relax/op/linear_algebra.py.
#include "arith/analyzer.h"
#include "relax/op/op_common.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferMatmul(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* a = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x1", "a tensor");
  const auto* b = ArgSInfoAs<TensorStructInfoNode>(call, 1, "x2", "a tensor");
  DataType out_dtype = AttrDType(call, "out_dtype");
  DataType in_dtype = SameDType(call, {a, b}, {"x1", "x2"});
  DataType dtype = out_dtype.is_void() ? in_dtype : out_dtype;
  for (auto [t, name] : {std::pair{a, "x1"}, std::pair{b, "x2"}}) {
    if (t->ndim == 0) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << name
                                << "' must have at least 1 dimension, got a 0-d tensor";
    }
  }
  if (a->IsUnknownNdim() || b->IsUnknownNdim()) return TensorStructInfo(dtype, StructInfoNode::kUnknownNDim);
  bool a_vec = a->ndim == 1, b_vec = b->ndim == 1;
  int a_nd = std::max(a->ndim, 2), b_nd = std::max(b->ndim, 2);
  int out_ndim = std::max(a_nd, b_nd) - (a_vec ? 1 : 0) - (b_vec ? 1 : 0);
  auto as = a->GetShape();
  auto bs = b->GetShape();
  if (!as || !bs) return TensorStructInfo(dtype, out_ndim);
  Array<PrimExpr> ash = *as, bsh = *bs;
  if (a_vec) ash = Array<PrimExpr>{Dim(1), ash[0]};
  if (b_vec) bsh = Array<PrimExpr>{bsh[0], Dim(1)};
  PrimExpr ka = ash[ash.size() - 1], kb = bsh[bsh.size() - 2];
  auto ca = ConstDim(ka), cb = ConstDim(kb);
  if (ca && cb && *ca != *cb) {
    TESSERA_THROW(ValueError) << OpName(call) << ": the reduction dimension of operand 'x1' "
                              << StructInfoText(ArgSInfo(call, 0)) << " (" << *ca << ") differs from that of operand 'x2' "
                              << StructInfoText(ArgSInfo(call, 1)) << " (" << *cb << ")";
  }
  if (!(ca && cb) && ka.dtype() == kb.dtype()) {
    // Symbolic lengths provably different (k vs k + 1) are refused too, as TVM does.
    arith::Analyzer ana;
    PrimExpr diff = ana.Simplify(tir::sub(ka, kb));
    if (auto c = ConstDim(diff); c && *c != 0) {
      TESSERA_THROW(ValueError) << OpName(call) << ": the reduction dimension of operand 'x1' "
                                << StructInfoText(ArgSInfo(call, 0)) << " differs from that of operand 'x2' "
                                << StructInfoText(ArgSInfo(call, 1)) << " by " << *c;
    }
  }
  // Batch dims broadcast as elementwise ops do.
  Array<PrimExpr> a_batch, b_batch;
  for (size_t i = 0; i + 2 < ash.size(); ++i) a_batch.push_back(ash[i]);
  for (size_t i = 0; i + 2 < bsh.size(); ++i) b_batch.push_back(bsh[i]);
  auto ta = TensorStructInfo(ShapeExpr(a_batch), in_dtype);
  auto tb = TensorStructInfo(ShapeExpr(b_batch), in_dtype);
  int batch_nd = 0;
  auto batch = BroadcastShapes(call, {ta.as<TensorStructInfoNode>(), tb.as<TensorStructInfoNode>()}, {"x1", "x2"},
                               &batch_nd);
  if (!batch) return TensorStructInfo(dtype, out_ndim);
  Array<PrimExpr> out = *batch;
  if (!a_vec) out.push_back(ash[ash.size() - 2]);
  if (!b_vec) out.push_back(bsh[bsh.size() - 1]);
  return TensorStructInfo(ShapeExpr(out), dtype);
}

static auto& reg_matmul = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.matmul")
                   .set_num_inputs(2)
                   .describe("Matrix product of x1 and x2 with NumPy semantics (batch dims broadcast)."),
               InferMatmul, true),
    {{"out_dtype", Any(String("void"))}});

}  // namespace

}  // namespace relax
}  // namespace tessera
