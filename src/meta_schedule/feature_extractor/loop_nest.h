// LoopNest: the loops enclosing the statement the per-store feature extractor
// is visiting (outermost first), with the loops of each kind and the
// auto-unroll pragmas in scope. Pushed/popped by the collector in
// per_store_feature.cc; read by the feature groups (feature_group.h).
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace tessera {
namespace meta_schedule {

using ForVec = std::vector<const tir::ForNode*>;

// The constant extent of `loop`, or nullptr when it is symbolic.
const int64_t* LoopConstExtent(const tir::ForNode* loop);
// The constant extent of `loop` (0 when it is negative: the loop never runs), or 1 when it is symbolic.
double LoopExtentOr1(const tir::ForNode* loop);

struct LoopNest {
  double prod = 1;            // product of the constant extents (symbolic ones count 1)
  ForVec loops;               // all loops, outermost first
  std::vector<int64_t> auto_unroll;  // positive pragma_auto_unroll_max_step values in scope
  ForVec parallel, vectorize, unroll;
  ForVec thread_x, thread_y, thread_z, block_x, block_y, block_z, vthread;

  // Enters `loop`; returns the kind list it joined (nullptr: none), for Pop.
  ForVec* Push(const tir::ForNode* loop);
  void Pop(const tir::ForNode* loop, ForVec* kind_list);

 private:
  std::vector<double> prefix_prod_;  // prod after each loop (popping never divides by 0)
};

}  // namespace meta_schedule
}  // namespace tessera
