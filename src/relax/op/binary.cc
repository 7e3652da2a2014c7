// Elementwise binary Relax operators (TVM's relax/op/tensor/binary.cc subset):
// add, subtract, multiply, divide, floor_divide, power, maximum, minimum, with
// NumPy broadcasting struct-info inference over symbolic dims. Relax IR layer;
// their legalization to TOPI is registered next to the Python constructors
// (python/tessera/relax/op/binary.py, attribute "FLegalize").
#include "arith/analyzer.h"
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

bool IsConstOne(const PrimExpr& e) {
  const auto* i = e.as<IntImmNode>();
  return i != nullptr && i->value == 1;
}

StructInfo InferBinaryBroadcast(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* lhs = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x1", "a tensor");
  const auto* rhs = ArgSInfoAs<TensorStructInfoNode>(call, 1, "x2", "a tensor");
  DataType dtype;
  if (lhs->IsUnknownDtype() || rhs->IsUnknownDtype()) {
    dtype = DataType::Void();
  } else if (lhs->dtype != rhs->dtype) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operands 'x1' and 'x2' must have the same dtype, got "
                             << lhs->dtype << " and " << rhs->dtype;
  } else {
    dtype = lhs->dtype;
  }
  if (lhs->IsUnknownNdim() || rhs->IsUnknownNdim()) return TensorStructInfo(dtype, StructInfoNode::kUnknownNDim);
  int ndim = std::max(lhs->ndim, rhs->ndim);
  auto ls = lhs->GetShape();
  auto rs = rhs->GetShape();
  if (!ls || !rs) return TensorStructInfo(dtype, ndim);
  const Array<PrimExpr>& a = *ls;
  const Array<PrimExpr>& b = *rs;
  arith::Analyzer analyzer;
  std::vector<PrimExpr> out(ndim);
  for (int k = 1; k <= ndim; ++k) {
    int ia = static_cast<int>(a.size()) - k;
    int ib = static_cast<int>(b.size()) - k;
    if (ia < 0) {
      out[ndim - k] = b[ib];
      continue;
    }
    if (ib < 0) {
      out[ndim - k] = a[ia];
      continue;
    }
    const PrimExpr& da = a[ia];
    const PrimExpr& db = b[ib];
    if (IsConstOne(da)) {
      out[ndim - k] = db;
    } else if (IsConstOne(db)) {
      out[ndim - k] = da;
    } else if (da.same_as(db) || analyzer.CanProveEqual(da, db)) {
      out[ndim - k] = da;
    } else if (da.as<IntImmNode>() && db.as<IntImmNode>()) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operands 'x1' " << StructInfoText(ArgSInfo(call, 0))
                                << " and 'x2' " << StructInfoText(ArgSInfo(call, 1))
                                << " cannot be broadcast: dimension " << ia << " of x1 is " << da.as<IntImmNode>()->value
                                << ", dimension " << ib << " of x2 is " << db.as<IntImmNode>()->value;
    } else {
      // Symbolic dims not provably equal: shape unknown at compile time (TVM's rule).
      return TensorStructInfo(dtype, ndim);
    }
  }
  return TensorStructInfo(ShapeExpr(Array<PrimExpr>(out.begin(), out.end())), dtype);
}

#define TESSERA_RELAX_BINARY_OP(NAME, DESC)                                                                  \
  static auto& reg_binary_##NAME = SetRelaxOp(                                                              \
      OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(2).describe(DESC), InferBinaryBroadcast, true)

TESSERA_RELAX_BINARY_OP(add, "Elementwise x1 + x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(subtract, "Elementwise x1 - x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(multiply, "Elementwise x1 * x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(divide, "Elementwise x1 / x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(floor_divide, "Elementwise floor(x1 / x2) with broadcasting.");
TESSERA_RELAX_BINARY_OP(power, "Elementwise x1 ** x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(maximum, "Elementwise max(x1, x2) with broadcasting.");
TESSERA_RELAX_BINARY_OP(minimum, "Elementwise min(x1, x2) with broadcasting.");

}  // namespace

}  // namespace relax
}  // namespace tessera
