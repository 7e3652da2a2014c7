// ScheduleState (tvm.tir.ScheduleState): an IRModule with a tree of
// statement references (StmtSRef) over its loops and blocks, and Replace,
// which swaps one loop or block for another statement, copying only the
// ancestors that are shared (a node only the state holds is updated in
// place, as TVM does) and keeping the srefs of reused loops and blocks.
// TIR schedule layer; standalone (tir.Schedule keeps its own ScheduleIndex).
#pragma once

#include <unordered_map>

#include "ir/module.h"
#include "tir/stmt.h"

namespace tessera {
namespace tir {

// A reference to a loop or block of a ScheduleState's module: `stmt` is
// null once the statement has been replaced away (or the state is gone);
// `parent` is the sref of the innermost enclosing loop or block (null at a
// function's root block). Neither owns what it points to.
class StmtSRefNode : public Object {
 public:
  const StmtNode* stmt = nullptr;
  StmtSRefNode* parent = nullptr;
  int64_t seq_index = -1;  // index in the enclosing SeqStmt, -1 when not directly in one
  TESSERA_DECLARE_FINAL_OBJECT_INFO(StmtSRefNode, Object, "tir.StmtSRef");
};
class StmtSRef : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(StmtSRef, ObjectRef, StmtSRefNode);
  StmtSRefNode* mutable_get() const { return static_cast<StmtSRefNode*>(data_.get()); }
};

class ScheduleStateNode : public Object {
 public:
  IRModule mod;
  int debug_mask = 0;  // bit 0: check the sref tree after each Replace
  std::unordered_map<const StmtNode*, StmtSRef> stmt2ref;
  ~ScheduleStateNode() override;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ScheduleStateNode, Object, "tir.ScheduleState");
};

class ScheduleState : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ScheduleState, ObjectRef, ScheduleStateNode);
  // Every PrimFunc of `mod` must have a root block (body = BlockRealize).
  ScheduleState(IRModule mod, int debug_mask);
  ScheduleStateNode* self() const { return static_cast<ScheduleStateNode*>(data_.get()); }

  std::optional<StmtSRef> GetSRef(const Stmt& stmt) const;
  // Replaces the loop or block of `src` with `tgt` (a loop: by a loop or a
  // BlockRealize; a block: by a block). Srefs are kept for the loops of tgt
  // whose loop variable was under src, for the blocks `block_sref_reuse`
  // maps from old to new, and for subtrees tgt shares with the old tree;
  // the others under src expire (stmt = null).
  void Replace(const StmtSRef& src, const Stmt& tgt, const Map<Block, Block>& block_sref_reuse) const;
  // Rebuilds the sref tree from `mod` and checks it against the maintained
  // one (InternalError on a difference).
  void VerifySRefTree() const;
};

}  // namespace tir
}  // namespace tessera
