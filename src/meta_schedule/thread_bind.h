// Binding a block's loops to GPU threads, shared by the AutoBind schedule
// rule and the RewriteUnboundBlock postprocessor (TVM's BindBlockThreadIdx):
// the leading spatial loops of a top-level block that no thread binding
// covers are fused and split into blockIdx.x x threadIdx.x (plus a serial
// loop inside when the extent exceeds max_threadblocks blocks of the largest
// thread count). Also the GPU limits the rules read from a target.
// Meta-schedule layer.
#pragma once

#include <functional>

#include "meta_schedule/block_analysis.h"

namespace tessera {
namespace meta_schedule {

// What the GPU rules read from a CUDA-like target: max_threads_per_block
// (else max_num_threads, else 1024) and thread_warp_size (else 32); a target
// that is not a GPU (keys without "gpu") raises ValueError.
struct GPUThreadLimits {
  int64_t max_threads_per_block = 1024;
  int64_t thread_warp_size = 32;
  static GPUThreadLimits FromTarget(const Target& target);
};

// Whether `block` sits directly under the root block (no enclosing block
// other than the root) with no thread-bound loop above it.
bool IsUnboundTopLevelBlock(const tir::Schedule& sch, const tir::BlockRV& block);

// TVM's BindBlockThreadIdx for a top-level block whose nest binds threadIdx
// but no blockIdx (CrossThreadReduction's result): the serial spatial loops
// above the first thread-bound loop (up to the first loop with several
// children) are fused and bound to blockIdx.x (a unit loop when there are
// none). Returns false, schedule unchanged, for any other block.
bool BindBlockIdxAboveThreads(const tir::Schedule& sch, const tir::BlockRV& block);

// Binds `block`'s leading spatial loops (a unit loop added when it has none)
// as described above; `thread_extent(n)` gives the threadIdx.x extent for a
// fused extent of n threads at most (a constant or a sampled variable).
// Returns false (schedule unchanged) when the fused extent is not constant.
bool BindBlockThreadIdx(const tir::Schedule& sch, const tir::BlockRV& block, int64_t max_threadblocks,
                        int64_t max_threads_per_block, const std::function<Any(int64_t)>& thread_extent);

}  // namespace meta_schedule
}  // namespace tessera
