// The tensor-core GEMM schedule: the steps that put a block C[i, j] +=
// A[i, k] * B[k, j] onto warp-level 16x16 intrinsics (fill, ldmatrix loads,
// mma.sync, store) with block tiles of A and B staged in shared memory. One
// place used by the hand schedule (python tir/tensor_intrin/cuda_gemm.py:
// schedule_fp16_gemm, fixed tiles) and the MultiLevelTilingTensorCore
// schedule rule (sampled tiles). TIR schedule layer, on the primitives.
#pragma once

#include <functional>
#include <string>

#include "tir/schedule/schedule.h"

namespace tessera {
namespace tir {

// The intrinsic names of one group (TVM's intrin_groups entry).
struct TensorCoreIntrinGroup {
  std::string init, load_a, load_b, compute, store;
};

// How the shared-memory copies are split over the block's threads.
struct TensorCoreFetch {
  // > 0: split over threadIdx.y (threads / 32) x threadIdx.x (32) x `vector` (vectorized) right away;
  // 0: the fused copy loop is annotated meta_schedule.cooperative_fetch = `vector` (a constant or a sampled
  // variable), for the RewriteCooperativeFetch postprocessor.
  int64_t threads = 0;
  Any vector;
};

// Tiles `block` (loops i, j, k, extents multiples of 16; A = read `a_index`, B = read `b_index`): each loop
// split by 16 for the intrinsics, then `factors(outer_loop, n)` gives the split of the outer part: i and j
// into n = 3 (thread-block tiles on blockIdx.x, warps on threadIdx.y, 16x16 fragments per warp), k into
// n = 2 (shared-memory steps, fragments per step). Factors are constants or sampled variables.
void ScheduleTensorCoreGemm(const Schedule& sch, const BlockRV& block, int a_index, int b_index,
                            const TensorCoreIntrinGroup& group, const TensorCoreFetch& fetch,
                            const std::function<Array<Any>(const LoopRV& outer, int n)>& factors);

}  // namespace tir
}  // namespace tessera
