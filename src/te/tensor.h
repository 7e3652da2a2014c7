// Tensor expressions (te): an Operation produces Tensors; a Tensor is the
// value_index-th output of its op, and ProducerLoad reads one element of it
// inside the body of another compute. TE layer, above tir; te.create_prim_func
// (create_prim_func.h) lowers these to TensorIR blocks and buffers.
#pragma once

#include <string>

#include "tir/expr.h"

namespace tessera {
namespace te {

using tir::IterVar;
using tir::Var;
using tir::VarNode;

// Base of PlaceholderOp and ComputeOp.
class OperationNode : public Object {
 public:
  std::string name;
  std::string tag;
  Map<String, Any> attrs;
  TESSERA_DECLARE_OBJECT_INFO(OperationNode, Object, "te.Operation");
};
class Operation : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Operation, ObjectRef, OperationNode);
};

class TensorNode : public Object {
 public:
  Array<PrimExpr> shape;
  DataType dtype;
  Operation op;
  int value_index = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(TensorNode, Object, "te.Tensor");
};
class Tensor : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Tensor, ObjectRef, TensorNode);
  Tensor(Array<PrimExpr> shape, DataType dtype, Operation op, int value_index);
};

// Checks a shape given to placeholder/compute: every dimension an integer
// expression, constants non-negative. `what` names the culprit in errors.
void CheckShape(const Array<PrimExpr>& shape, const std::string& what);

// tensor[indices]: one element of a Tensor (TVM's tir.ProducerLoad).
class ProducerLoadNode : public PrimExprNode {
 public:
  Tensor producer;
  Array<PrimExpr> indices;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ProducerLoadNode, PrimExprNode, "tir.ProducerLoad");
};
class ProducerLoad : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ProducerLoad, PrimExpr, ProducerLoadNode);
  // Raises IndexError naming the tensor when the index count differs from
  // its rank, TypeError when an index is not an integer expression.
  ProducerLoad(Tensor producer, Array<PrimExpr> indices);
};

}  // namespace te
}  // namespace tessera
