// The schedule primitives as pure functions on a PrimFunc: each checks its
// preconditions first (raising ScheduleError naming the block or loop, the
// function untouched) and then returns the transformed function. The
// Schedule class (schedule.h) resolves random variables, records the trace
// and commits the result. TIR schedule layer.
#pragma once

#include "tir/index_map.h"
#include "tir/schedule/analysis.h"

namespace tessera {
namespace tir {

// ---- loops (loop_transformation.cc) ----
// Splits `loop` into loops of `factors` (product >= extent; a larger product
// adds a predicate unless `disable_predication`, the caller's promise that the
// extra iterations are harmless). A symbolic extent needs one symbolic factor
// (ceildiv(n, k), inferred from None); the predicate then guards the last
// tile. Returns the new loop variables, outermost first.
PrimFunc SplitLoop(const PrimFunc& func, const ForNode* loop, const std::vector<PrimExpr>& factors,
                   bool preserve_unit_iters, bool disable_predication, std::vector<Var>* new_loop_vars);
// Fuses a chain of directly nested loops (outermost first) into one. Without
// `preserve_unit_iters`, the fused loops of extent 1 are bound as 0 in the body.
PrimFunc FuseLoops(const PrimFunc& func, const std::vector<const ForNode*>& loops, bool preserve_unit_iters,
                   Var* fused_var);
// Reorders loops of one nest into the given order.
PrimFunc ReorderLoops(const PrimFunc& func, const std::vector<const ForNode*>& order);
// Adds a loop of extent 1 above `stmt` (a loop or a block realize).
PrimFunc AddUnitLoop(const PrimFunc& func, const Object* stmt, Var* new_var);

// ---- loop kinds and annotations (for_kind.cc) ----
PrimFunc SetLoopKind(const PrimFunc& func, const ForNode* loop, ForKind kind, const std::string& primitive,
                     const std::string& thread_tag = "");
PrimFunc AnnotateLoop(const PrimFunc& func, const ForNode* loop, const std::string& key, const Any& value, bool remove);
PrimFunc AnnotateBlock(const PrimFunc& func, const BlockNode* block, const std::string& key, const Any& value,
                       bool remove);

// ---- reductions (reduction.cc) ----
// Moves the init of `block` into a new block "<name>_init" before `loop`;
// the block is renamed "<name>_update". Returns the init block's name.
PrimFunc DecomposeReduction(const PrimFunc& func, const BlockLocation& block, const ForNode* loop,
                            std::string* init_name);

}  // namespace tir
}  // namespace tessera

namespace tessera {
namespace tir {

// ---- block placement (compute_location.cc) ----
// Moves producer `block` under `loop`, computing just the region the
// consumers under `loop` need (new loops named ax0, ax1, ...).
// `index`: -1 the last legal position in the loop body, -2 the first, or a position.
PrimFunc ComputeAt(const PrimFunc& func, const BlockLocation& block, const LoopLocation& loop,
                   bool preserve_unit_loops, int index = -1);
// Moves consumer `block` under `loop`, computing the region its producers
// under `loop` produce.
PrimFunc ReverseComputeAt(const PrimFunc& func, const BlockLocation& block, const LoopLocation& loop,
                          bool preserve_unit_loops, int index = -1);

// ---- inlining (compute_inline.cc) ----
PrimFunc ComputeInline(const PrimFunc& func, const BlockLocation& block);
PrimFunc ReverseComputeInline(const PrimFunc& func, const BlockLocation& block);

// ---- caching (cache_read_write.cc) ----
// Returns the name of the new copy block. `consumers` (TVM's consumer_blocks):
// for cache_read, the blocks that read the copy instead of `block` (which
// then only names the buffer); for cache_write, blocks after `block` that
// read the cache directly instead of the written-back buffer.
// The copy block may share its name with another block (as in TVM); its
// node is returned in `new_block_node` when given.
PrimFunc CacheRead(const PrimFunc& func, const BlockLocation& block, int read_index, const std::string& scope,
                   std::string* new_block, const std::vector<BlockLocation>& consumers = {},
                   const BlockNode** new_block_node = nullptr);
PrimFunc CacheWrite(const PrimFunc& func, const BlockLocation& block, int write_index, const std::string& scope,
                    std::string* new_block, const std::vector<BlockLocation>& consumers = {},
                    const BlockNode** new_block_node = nullptr);
PrimFunc SetScope(const PrimFunc& func, const BlockLocation& block, int write_index, const std::string& scope);
// cache_inplace: the block's accesses of its read buffer `read_index` (which
// it also writes) go to a copy in `scope`, filled right before the statement
// holding the block and copied back right after it; `read_stage` and
// `write_stage` receive the two copy blocks.
PrimFunc CacheInplace(const PrimFunc& func, const BlockLocation& block, int read_index, const std::string& scope,
                      const BlockNode** read_stage, const BlockNode** write_stage);
// cache_index (cache_index.cc): precomputes the block's index expressions
// seen at least `cse_thresh` times into new buffers of `scope`; `new_blocks`
// receives the blocks that fill them, in order.
PrimFunc CacheIndex(const PrimFunc& func, const BlockLocation& block, const std::string& scope, int cse_thresh,
                    std::vector<const BlockNode*>* new_blocks);

// ---- shared helpers (compute_location.cc) ----
// TVM's complete-or-reduction condition on iteration variables: a
// ScheduleError naming the block and the variable when one is neither
// spatial nor a reduction (e.g. the opaque one rolling_buffer leaves).
void CheckSpatialOrReductionIters(const std::string& prim, const PrimFunc& func, const BlockNode* block);
// Removes `block`'s realize together with the loops that contain nothing else.
Stmt RemoveBlockNest(const Stmt& root, const BlockLocation& block);
// Recomputes reads/writes of every block (used after inlining changes bodies).
PrimFunc RefreshBlockRegions(const PrimFunc& func, const std::vector<std::string>& block_names);

}  // namespace tir
}  // namespace tessera

#include "tir/tensor_intrin.h"

namespace tessera {
namespace tir {

// ---- blockize / tensorize (blockize_tensorize.cc) ----
// Turns the loops from `loop` down to its single block into an outer block
// "<name>_o" whose iteration variables are the outer parts of the block's
// bindings; the block keeps the inner parts. Without `preserve_unit_iters`,
// loops of extent 1 are bound as 0 in both blocks' bindings. Returns the outer
// block's name.
PrimFunc Blockize(const PrimFunc& func, const LoopLocation& loop, std::string* outer_name,
                  bool preserve_unit_iters = true);
// Replaces the body of `block` by the intrinsic's implementation when the
// block computes exactly the intrinsic's description.
PrimFunc Tensorize(const PrimFunc& func, const BlockLocation& block, const TensorIntrin& intrin);

}  // namespace tir
}  // namespace tessera

namespace tessera {
namespace tir {

// ---- layout (layout_transformation.cc) ----
// Re-lays out the intermediate buffer written (is_write) or read by `block`
// at `buffer_index`: element `b[initial...]` moves to `b[final...]` of the
// index map (a bijective affine map, or one that pads the buffer: then
// `pad_value`, an IndexMap of the new indices to one value, fills the
// padding; see layout_padding.h). `assume_injective` skips the padding
// analysis (the padding is left unwritten).
PrimFunc TransformLayout(const PrimFunc& func, const BlockLocation& block, bool is_write, int buffer_index,
                         const IndexMap& index_map, const IndexMap& pad_value = IndexMap(),
                         bool assume_injective = false);

}  // namespace tir
}  // namespace tessera

namespace tessera {
namespace tir {

// ---- rfactor (reduction.cc) ----
// Factors the reduction of `block` over `loop`: a new block "<name>_rf"
// computes partial results into a new buffer with an extra dimension (at
// `factor_axis`) indexed by `loop`, and the block becomes the write-back
// reducing that buffer. Returns the rf block's name.
PrimFunc RFactor(const PrimFunc& func, const BlockLocation& block, const ForNode* loop, int factor_axis,
                 std::string* rf_name);

}  // namespace tir
}  // namespace tessera
