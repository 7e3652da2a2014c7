// LowerCrossThreadReduction (TVM's tir.transform.LowerCrossThreadReduction):
// a reduction block whose reduction loops are bound to threadIdx becomes an
// allreduce over those threads: an optional in-thread reduction (over the
// serial reduction loops inside them) into a "local" buffer, a block holding
// T.attr(reducer, "reduce_scope") + T.tvm_thread_allreduce(...), and a
// write-back block run by the first thread. First lowering pass (blocks still
// present); a no-op for functions without thread-bound reductions (the CPU).
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// Raises NotImplementedError naming the block for a thread-bound reduction it cannot lower (a reduction update
// that is not `B[i] = B[i] op value` with op +, *, max, min; a spatial loop or a serial reduction loop around the
// thread-bound ones).
PrimFunc LowerCrossThreadReduction(PrimFunc func);

namespace transform {
tessera::transform::Pass LowerCrossThreadReduction();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
