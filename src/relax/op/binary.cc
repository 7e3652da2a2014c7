// Elementwise binary Relax operators (TVM's relax/op/tensor/binary.cc subset):
// add, subtract, multiply, divide, floor_divide, power, maximum, minimum, with
// NumPy broadcasting struct-info inference over symbolic dims. Relax IR layer;
// their legalization to TOPI is registered next to the Python constructors
// (python/tessera/relax/op/binary.py, attribute "FLegalize").
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferBinaryBroadcast(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* lhs = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x1", "a tensor");
  const auto* rhs = ArgSInfoAs<TensorStructInfoNode>(call, 1, "x2", "a tensor");
  DataType dtype = SameDType(call, {lhs, rhs}, {"x1", "x2"});
  int ndim = 0;
  auto shape = BroadcastShapes(call, {lhs, rhs}, {"x1", "x2"}, &ndim);
  return TensorSInfo(shape, dtype, ndim);
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
