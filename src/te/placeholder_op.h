// PlaceholderOp: an input tensor of a tensor-expression program (te.placeholder);
// it computes nothing and becomes a function parameter in te.create_prim_func.
// TE layer.
#pragma once

#include "te/tensor.h"

namespace tessera {
namespace te {

class PlaceholderOpNode : public OperationNode {
 public:
  Array<PrimExpr> shape;
  DataType dtype;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(PlaceholderOpNode, OperationNode, "te.PlaceholderOp");
};
class PlaceholderOp : public Operation {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(PlaceholderOp, Operation, PlaceholderOpNode);
  // Raises TypeError/ValueError naming the placeholder for a bad shape.
  PlaceholderOp(std::string name, Array<PrimExpr> shape, DataType dtype);
};

// te.placeholder: the single output of a new PlaceholderOp.
Tensor placeholder(Array<PrimExpr> shape, DataType dtype, std::string name);

}  // namespace te
}  // namespace tessera
