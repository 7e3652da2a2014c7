// ComputeOp: a tensor defined elementwise by an expression of its axis
// variables (te.compute); when the body is a Reduce, its reduce axes are the
// op's reduce_axis. TE layer; create_prim_func.h turns each into one block.
#pragma once

#include <vector>

#include "te/placeholder_op.h"
#include "te/reduce.h"

namespace tessera {
namespace te {

class ComputeOpNode : public OperationNode {
 public:
  Array<IterVar> axis;
  Array<IterVar> reduce_axis;
  Array<PrimExpr> body;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ComputeOpNode, OperationNode, "te.ComputeOp");
};
class ComputeOp : public Operation {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ComputeOp, Operation, ComputeOpNode);
  // Raises (naming the compute) when body is not one expression, when a
  // Reduce is nested inside the body instead of being all of it, or when
  // an axis is not a data-parallel IterVar starting at 0.
  ComputeOp(std::string name, std::string tag, Map<String, Any> attrs, Array<IterVar> axis, Array<PrimExpr> body);
};

// The tensors read by `op` (ProducerLoads of its body), first use first;
// empty for a placeholder.
std::vector<Tensor> InputTensors(const Operation& op);

}  // namespace te
}  // namespace tessera
