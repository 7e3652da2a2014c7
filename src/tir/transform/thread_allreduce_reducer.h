// The reduction a cross-thread reduction block performs, read from its init
// and update (`B[i] = init`, `B[i] = B[i] op value`, op one of +, *, max,
// min, or max / min where a NaN wins as topi argmax writes it): the output
// buffer and indices, the value, the CommReducer (for the "reduce_scope" attr
// and tvm_thread_allreduce) and its identity. TIR layer; used by
// LowerCrossThreadReduction and the GPU default schedule.
#pragma once

#include <optional>

#include "tir/buffer.h"
#include "tir/comm_reducer.h"
#include "tir/stmt.h"

namespace tessera {
namespace tir {

struct ReductionUpdate {
  Buffer buffer;
  Array<PrimExpr> indices;
  PrimExpr value;     // the reduced value (over the block's iteration variables)
  PrimExpr init;      // the init's value
  PrimExpr identity;  // the combiner's identity element
  CommReducer reducer;
  // The combiner applied to `a` and `b`.
  PrimExpr Combine(const PrimExpr& a, const PrimExpr& b) const;
  // Whether the init is the identity (then the write-back stores the allreduce's result as is).
  bool InitIsIdentity() const;
};

// nullopt when `init`/`body` do not have the form above.
std::optional<ReductionUpdate> MatchReductionUpdate(const Stmt& init, const Stmt& body);

// The combiner of `reducer` applied to `a` and `b` (one value each, a single-value reducer).
PrimExpr ApplyReducer(const CommReducer& reducer, const Array<PrimExpr>& a, const Array<PrimExpr>& b, size_t i);

}  // namespace tir
}  // namespace tessera
