// ScheduleIndex: what schedule primitives look up, computed once per
// version of a PrimFunc — every block (by name, with its loops and scope
// block) and every loop (by loop variable, with its ancestors and scope),
// in program order. Schedules cache one per function and rebuild it at each
// commit from the previous one: a block whose node the new function shares
// by pointer (copy-on-write keeps unchanged subtrees) is not walked again;
// the entries below it are copied. TIR schedule layer, under analysis.h.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tir/schedule/analysis.h"

namespace tessera {
namespace tir {

// Deepest loop nest the index accepts: each loop's entry lists its enclosing
// loops, so the index takes memory quadratic in the nest depth (4096 deep:
// about 64 MiB). Deeper nests are refused with a ValueError naming the limit.
inline constexpr size_t kMaxLoopNestDepth = 4096;

class ScheduleIndex {
 public:
  // `previous`: an index of an earlier version of the function (or null).
  static std::shared_ptr<const ScheduleIndex> Build(const PrimFunc& func, const ScheduleIndex* previous = nullptr);
  // The index of `func`, memoized by node identity: each thread keeps the
  // indexes of the last few functions it asked about (primitives query the
  // same function several times, and functions never change in place). A
  // miss builds from `previous`, or else from the most recent index.
  static std::shared_ptr<const ScheduleIndex> Of(const PrimFunc& func, const ScheduleIndex* previous = nullptr);

  const PrimFunc& func() const { return func_; }
  // Every block except the root, in program order.
  const std::vector<BlockLocation>& blocks() const { return blocks_; }
  // The first block named `name` (null if none); `count` receives how many there are.
  const BlockLocation* FindBlock(const std::string& name, int* count = nullptr) const;
  // The loop of `loop_var` (null if none).
  const LoopLocation* FindLoop(const VarNode* loop_var) const;
  // Blocks of the same scope that write a buffer `block` reads (producers)
  // or read a buffer it writes (consumers), in program order; computed for
  // every block at the first query, then kept with the index.
  const std::vector<const BlockLocation*>& Producers(const BlockNode* block) const;
  const std::vector<const BlockLocation*>& Consumers(const BlockNode* block) const;
  // Blocks whose entries were copied from `previous` instead of walked.
  size_t reused_blocks() const { return reused_blocks_; }
  // Whether both index the same blocks and loops at the same places.
  bool SameAs(const ScheduleIndex& other) const;

 private:
  class Walker;
  struct Extent {  // entries below a block: [begin, end) of blocks_ and loops_
    size_t block_begin, block_end, loop_begin, loop_end;
  };
  PrimFunc func_;  // keeps every indexed node alive
  std::vector<BlockLocation> blocks_;
  std::vector<LoopLocation> loops_;
  std::unordered_map<const BlockNode*, Extent> below_;
  std::unordered_map<std::string, std::vector<size_t>> by_name_;
  std::unordered_map<const VarNode*, size_t> by_var_;
  size_t reused_blocks_ = 0;
  void ComputeRelations() const;
  mutable std::once_flag relations_once_;
  mutable std::unordered_map<const BlockNode*, std::vector<const BlockLocation*>> producers_, consumers_;
};

}  // namespace tir
}  // namespace tessera
