// The schedule primitives as pure functions on a PrimFunc: each checks its
// preconditions first (raising ScheduleError naming the block or loop, the
// function untouched) and then returns the transformed function. The
// Schedule class (schedule.h) resolves random variables, records the trace
// and commits the result. TIR schedule layer.
#pragma once

#include "tir/schedule/analysis.h"

namespace tessera {
namespace tir {

// ---- loops (loop_transformation.cc) ----
// Splits `loop` into loops of `factors` (product >= extent; a larger product
// adds a predicate). Returns the new loop variables, outermost first.
PrimFunc SplitLoop(const PrimFunc& func, const ForNode* loop, const std::vector<int64_t>& factors,
                   bool preserve_unit_iters, std::vector<Var>* new_loop_vars);
// Fuses a chain of directly nested loops (outermost first) into one.
PrimFunc FuseLoops(const PrimFunc& func, const std::vector<const ForNode*>& loops, Var* fused_var);
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
