// Structural queries the schedule primitives share: locating blocks and
// loops in a PrimFunc (with their enclosing loops and scope block),
// replacing one statement by another, and the ScheduleError helper that
// renders the function with the culprit named. TIR schedule layer.
#pragma once

#include <string>
#include <vector>

#include "tir/functor.h"

namespace tessera {
namespace tir {

// Where a block sits: its BlockRealize, the loops between its scope block
// and it (outermost first) and that scope block (the nearest enclosing block).
struct BlockLocation {
  const BlockRealizeNode* realize = nullptr;
  const BlockNode* block = nullptr;
  std::vector<const ForNode*> loops;
  const BlockNode* scope = nullptr;
};

// Every block of `func` except the root, in program order.
std::vector<BlockLocation> CollectBlocks(const PrimFunc& func);
std::optional<BlockLocation> FindBlock(const PrimFunc& func, const std::string& name);

// A loop by its loop variable, with its ancestors (outermost first) inside
// its scope block, and the scope block.
struct LoopLocation {
  const ForNode* loop = nullptr;
  std::vector<const ForNode*> ancestors;
  const BlockNode* scope = nullptr;
};
std::optional<LoopLocation> FindLoop(const PrimFunc& func, const VarNode* loop_var);

// Blocks (realizes) directly under `stmt` (not inside nested blocks).
std::vector<const BlockRealizeNode*> ChildBlocks(const Stmt& stmt);

// Each BlockRealize below `root` (and `root`), children first, like
// PostOrderVisit but walking statements only.
void PostOrderVisitBlockRealizes(const Stmt& root, const std::function<void(const BlockRealizeNode*)>& f);
// Whether the statement `stmt` (by identity) is `root` or below it.
bool ContainsStmt(const Stmt& root, const Object* stmt);

// Returns `root` with the node `target` (by identity) replaced by `replacement`.
Stmt ReplaceStmt(const Stmt& root, const Object* target, const Stmt& replacement);
PrimFunc ReplaceInFunc(const PrimFunc& func, const Object* target, const Stmt& replacement);

// Whether `e` mentions variable `v`.
bool UsesVar(const PrimExpr& e, const VarNode* v);
bool UsesVar(const Stmt& s, const VarNode* v);
// SplitConjuncts: tir/op.h.

// Raises the "ScheduleError" kind (tvm.tir.ScheduleError in Python), naming
// the primitive, the message, and appending the function's script with
// carets under the exact printed span of each culprit node (a block, a loop,
// any statement or expression of `func`; see script.RenderWithCulprit).
[[noreturn]] void ThrowScheduleError(const std::string& primitive, const std::string& message,
                                     const PrimFunc& func, const std::vector<const Object*>& culprits);
// Without culprit nodes: the script is appended unmarked.
[[noreturn]] void ThrowScheduleError(const std::string& primitive, const std::string& message,
                                     const PrimFunc& func);

}  // namespace tir
}  // namespace tessera
