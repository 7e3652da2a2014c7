// Commutative reductions of tensor expressions: CommReducer (a combiner
// x, y -> result with an identity element, as te.comm_reducer builds it) and
// Reduce (a reduction of a source expression over reduce axes, te.sum etc.).
// TE layer; a Reduce may only be the whole body of a compute (compute_op.h).
#pragma once

#include "te/tensor.h"

namespace tessera {
namespace te {

class CommReducerNode : public Object {
 public:
  Array<Var> lhs;
  Array<Var> rhs;
  Array<PrimExpr> result;
  Array<PrimExpr> identity_element;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(CommReducerNode, Object, "tir.CommReducer");
};
class CommReducer : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(CommReducer, ObjectRef, CommReducerNode);
  // Raises ValueError unless lhs, rhs, result and identity_element have one
  // entry each (multi-value reducers are not supported) of the same dtype.
  CommReducer(Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result, Array<PrimExpr> identity_element);
  // result with lhs := a, rhs := b.
  PrimExpr Combine(const PrimExpr& a, const PrimExpr& b) const;
};

class ReduceNode : public PrimExprNode {
 public:
  CommReducer combiner;
  Array<PrimExpr> source;
  Array<IterVar> axis;
  PrimExpr condition;
  int value_index = 0;
  Array<PrimExpr> init;  // empty: start from the identity element
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ReduceNode, PrimExprNode, "tir.Reduce");
};
class Reduce : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Reduce, PrimExpr, ReduceNode);
  // Raises ValueError when axis is empty or holds a non-reduce IterVar, when
  // the source dtype differs from the combiner's, or the condition is not bool.
  Reduce(CommReducer combiner, Array<PrimExpr> source, Array<IterVar> axis, PrimExpr condition, int value_index,
         Array<PrimExpr> init);
};

}  // namespace te
}  // namespace tessera
