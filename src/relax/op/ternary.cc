// Ternary elementwise Relax operators: ewise_fma(x1, x2, x3) = x1 * x2 + x3
// (the MLC course's example op, TVM's relax/op/tensor/ternary.cc): operands of
// one shape and dtype, no broadcasting. Relax IR layer; legalization to TOPI
// in python/tessera/relax/op/ternary.py.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferEwiseFMA(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 3);
  const char* names[] = {"x1", "x2", "x3"};
  std::vector<const TensorStructInfoNode*> ts;
  for (size_t i = 0; i < 3; ++i) ts.push_back(ArgSInfoAs<TensorStructInfoNode>(call, i, names[i], "a tensor"));
  DataType dtype = SameDType(call, ts, {"x1", "x2", "x3"});
  int ndim = StructInfoNode::kUnknownNDim;
  for (size_t i = 0; i < 3; ++i) {
    if (ts[i]->IsUnknownNdim()) continue;
    if (ndim != StructInfoNode::kUnknownNDim && ts[i]->ndim != ndim) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operands must have the same number of dimensions, '"
                                << names[i] << "' has " << ts[i]->ndim << ", the first " << ndim;
    }
    ndim = ts[i]->ndim;
  }
  std::optional<Array<PrimExpr>> shape;
  for (size_t i = 0; i < 3; ++i) {
    auto s = ts[i]->GetShape();
    if (!s) continue;
    if (!shape) {
      shape = s;
      continue;
    }
    for (size_t d = 0; d < s->size(); ++d) {
      auto a = ConstDim((*shape)[d]), b = ConstDim((*s)[d]);
      if ((a && b && *a != *b)) {
        TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << names[i] << "' "
                                  << StructInfoText(ArgSInfo(call, i)) << " does not have the shape of the others ("
                                  << StructInfoText(ArgSInfo(call, 0)) << "); ewise_fma does not broadcast";
      }
    }
  }
  return TensorSInfo(shape, dtype, ndim);
}
static auto& reg_ewise_fma = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.ewise_fma").set_num_inputs(3).describe("x1 * x2 + x3 elementwise."),
    InferEwiseFMA, true);

}  // namespace

}  // namespace relax
}  // namespace tessera
