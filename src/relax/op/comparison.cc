// Elementwise comparisons (TVM's relax/op/tensor/binary.cc comparison part):
// equal, not_equal, less, less_equal, greater, greater_equal with NumPy
// broadcasting (operands tensors or scalar R.Prim values); the result is bool. Relax IR layer; legalization to TOPI in
// python/tessera/relax/op/comparison.py.
#include "relax/op/binary.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferCompare(const Call& call, const BlockBuilder&) { return InferBinaryElementwise(call, true); }

#define TESSERA_RELAX_COMPARE_OP(NAME, DESC)                                                                 \
  static auto& reg_compare_##NAME = SetRelaxOp(                                                             \
      OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(2).describe(DESC), InferCompare, true)

TESSERA_RELAX_COMPARE_OP(equal, "x1 == x2 elementwise (bool), with broadcasting.");
TESSERA_RELAX_COMPARE_OP(not_equal, "x1 != x2 elementwise (bool), with broadcasting.");
TESSERA_RELAX_COMPARE_OP(less, "x1 < x2 elementwise (bool), with broadcasting.");
TESSERA_RELAX_COMPARE_OP(less_equal, "x1 <= x2 elementwise (bool), with broadcasting.");
TESSERA_RELAX_COMPARE_OP(greater, "x1 > x2 elementwise (bool), with broadcasting.");
TESSERA_RELAX_COMPARE_OP(greater_equal, "x1 >= x2 elementwise (bool), with broadcasting.");

}  // namespace

}  // namespace relax
}  // namespace tessera
