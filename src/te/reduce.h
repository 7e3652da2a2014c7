// Commutative reductions of tensor expressions: the combiner (TIR's
// CommReducer, as te.comm_reducer builds it) and Reduce (a reduction of a source expression over reduce axes, te.sum etc.).
// TE layer; a Reduce may only be the whole body of a compute (compute_op.h).
#pragma once

#include "te/tensor.h"
#include "tir/comm_reducer.h"

namespace tessera {
namespace te {

// The combiner is TIR's CommReducer (tir/comm_reducer.h); TE supports
// single-value reducers only (te.comm_reducer refuses more).
using tir::CommReducer;
using tir::CommReducerNode;

// The combiner's result with lhs := a, rhs := b (single-value reducers).
PrimExpr CombineReducer(const CommReducer& reducer, const PrimExpr& a, const PrimExpr& b);

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
