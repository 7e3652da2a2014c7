// Struct-info inference shared by the elementwise binary operators
// (binary.cc) and the comparisons (comparison.cc): NumPy broadcasting of two
// tensors, where either operand may also be a scalar R.Prim. Relax IR layer.
#pragma once

#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

// x1 op x2: two R.Prim give an R.Prim; an R.Prim and a tensor the tensor's
// shape; two tensors their broadcast shape (a shared shape variable kept).
// The dtype is the operands' common one (TypeError when they differ), or bool
// when `result_bool` (a comparison, whose operands may differ in dtype, as TVM's).
StructInfo InferBinaryElementwise(const Call& call, bool result_bool);

}  // namespace relax
}  // namespace tessera
