// LowerThreadAllreduce (TVM's tir.transform.LowerThreadAllreduce): each
// T.attr(reducer, "reduce_scope") + T.tvm_thread_allreduce(n, values...,
// cond, results..., thread vars...) in a GPU kernel becomes code every thread
// of the block runs: warp shuffles (__shfl_down_sync) within a warp, partial
// results staged in "shared" memory across warps (or a shared-memory tree
// when the reduction's threads are not whole warps), the result broadcast to
// every thread's result buffers. Device pass, run by target.build.cuda after
// SplitHostDevice and before ThreadSync.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// Raises NotImplementedError naming the function when an allreduce's threads do not all reach it (a thread
// loop narrower than the launch, a branch on the thread index) or an extent is not constant.
PrimFunc LowerThreadAllreduce(PrimFunc func);

namespace transform {
tessera::transform::Pass LowerThreadAllreduce();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
