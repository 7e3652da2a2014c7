// CommReducer (`tvm.tir.CommReducer`): a commutative reduction written as a
// combiner over two groups of variables, `lambda x, y: x + y`, with one
// identity element per value. AttrStmt "reduce_scope" and
// tvm_thread_allreduce carry one (TVMScript: T.comm_reducer). TIR layer.
#pragma once

#include "tir/expr.h"

namespace tessera {
namespace tir {

class CommReducerNode : public Object {
 public:
  Array<Var> lhs;                   // the left operands (definitions)
  Array<Var> rhs;                   // the right operands (definitions)
  Array<PrimExpr> result;           // the combined values, over lhs and rhs
  Array<PrimExpr> identity_element;  // one per value
  TESSERA_DECLARE_FINAL_OBJECT_INFO(CommReducerNode, Object, "tir.CommReducer");
};

class CommReducer : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(CommReducer, ObjectRef, CommReducerNode);
  // ValueError unless lhs, rhs, result and identity_element have one entry per
  // value, with matching dtypes.
  CommReducer(Array<Var> lhs, Array<Var> rhs, Array<PrimExpr> result, Array<PrimExpr> identity_element);
};

}  // namespace tir
}  // namespace tessera
