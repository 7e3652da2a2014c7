// Schedule: the user-facing state of `tvm.tir.Schedule` — the IRModule
// being transformed, the random variables (block/loop handles and sampled
// integers), the seeded random generator and the trace. Each primitive
// resolves its handles, runs the pure transformation (primitive/*.cc) and
// commits the new function only if it succeeded, so a failed primitive
// leaves the schedule unchanged. TIR schedule layer.
#pragma once

#include <mutex>

#include <unordered_map>

#include "ir/module.h"
#include "tir/index_map.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule_index.h"
#include "tir/schedule/trace.h"

namespace tessera {
namespace tir {

class ScheduleNode : public Object {
 public:
  IRModule mod;
  std::string func_name = "main";
  uint64_t rand_state = 1;
  // TVM's debug mask: bit 2 re-derives the cached ScheduleIndex after each
  // primitive and checks it equals the incrementally maintained one.
  int debug_mask = 0;
  Trace trace = Trace::Empty();

  // A block handle: resolved by name while its name is unique in `func`;
  // once blocks of the same name coexist (cache_inplace makes two), by
  // identity: `node` is the block it refers to, kept up to date by Commit
  // (see TrackBlockHandles); a handle Commit cannot follow resolves to an
  // error, never to another block.
  struct BlockEntry {
    std::string func;
    std::string name;
    ObjectRef node = ObjectRef();
    bool by_identity = false;
  };
  struct LoopEntry {
    std::string func;
    Var var;
  };
  std::unordered_map<const Object*, BlockEntry> blocks;
  std::unordered_map<const Object*, LoopEntry> loops;
  std::unordered_map<const Object*, int64_t> values;  // sampled integers (tir.Var handles)
  // Per function: the block/loop index of its current version. Commit
  // rebuilds it from the previous one (reusing unchanged blocks); a failed
  // primitive commits nothing, so it leaves the index as it was. Indexes
  // are immutable, so copies of the schedule share them.
  std::unordered_map<std::string, std::shared_ptr<const ScheduleIndex>> index;
  // Serializes the FFI entry points of one schedule (tir.schedule.*), so a
  // schedule shared between Python threads is used by one at a time.
  // Recursive: a Python callback (an index map) may call back into it.
  // Copies get a fresh, unlocked mutex.
  struct Lock {
    std::recursive_mutex mu;
    Lock() = default;
    Lock(const Lock&) {}
    Lock& operator=(const Lock&) { return *this; }
  };
  mutable Lock lock;

  TESSERA_DECLARE_FINAL_OBJECT_INFO(ScheduleNode, Object, "tir.Schedule");
};

class Schedule : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(Schedule, ObjectRef, ScheduleNode);
  // `seed` < 0 picks a random seed.
  Schedule(IRModule mod, int64_t seed);
  ScheduleNode* self() const { return const_cast<ScheduleNode*>(get()); }

  Schedule Copy() const;
  void Seed(int64_t seed) const;
  int64_t ForkSeed() const;
  void WorkOn(const std::string& func_name) const;
  // The node a handle refers to: Block, For or the sampled integer.
  Any Get(const ObjectRef& rv) const;

  BlockRV GetBlock(const std::string& name, const std::optional<std::string>& func_name) const;
  Array<LoopRV> GetLoops(const BlockRV& block) const;
  Array<BlockRV> GetChildBlocks(const ObjectRef& block_or_loop) const;
  Array<BlockRV> GetProducers(const BlockRV& block) const;
  Array<BlockRV> GetConsumers(const BlockRV& block) const;

  Array<LoopRV> Split(const LoopRV& loop, const Array<Any>& factors, bool preserve_unit_iters,
                      bool disable_predication = false) const;
  LoopRV Fuse(const Array<LoopRV>& loops, bool preserve_unit_iters) const;
  void Reorder(const Array<LoopRV>& order) const;
  LoopRV AddUnitLoop(const ObjectRef& block_or_loop) const;
  void Parallel(const LoopRV& loop) const;
  void Vectorize(const LoopRV& loop) const;
  void Unroll(const LoopRV& loop) const;
  void Bind(const LoopRV& loop, const std::string& thread_axis) const;
  void Annotate(const ObjectRef& block_or_loop, const std::string& key, const Any& value) const;
  void Unannotate(const ObjectRef& block_or_loop, const std::string& key) const;
  BlockRV DecomposeReduction(const BlockRV& block, const LoopRV& loop) const;
  void ComputeAt(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops, int index) const;
  void ReverseComputeAt(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops, int index) const;
  void ComputeInline(const BlockRV& block) const;
  void ReverseComputeInline(const BlockRV& block) const;
  BlockRV CacheRead(const BlockRV& block, int read_index, const std::string& scope) const;
  BlockRV CacheWrite(const BlockRV& block, int write_index, const std::string& scope) const;
  void SetScope(const BlockRV& block, int write_index, const std::string& scope) const;
  // cache_inplace: `block` reads and writes buffer `read_index` of its reads
  // through a copy in `scope`, staged in before it and out after it;
  // returns the two copy blocks (both named "<buffer>_<scope>", as TVM).
  Array<BlockRV> CacheInplace(const BlockRV& block, int read_index, const std::string& scope) const;
  // cache_index: precomputes the index expressions of `block` (those seen at
  // least `cse_thresh` times) into buffers "index_var_<k>" of `scope`, one
  // block "index_<k>" each; returns those blocks.
  Array<BlockRV> CacheIndex(const BlockRV& block, const std::string& scope, int cse_thresh) const;
  BlockRV Blockize(const LoopRV& loop, bool preserve_unit_iters = true) const;
  BlockRV RFactor(const LoopRV& loop, int factor_axis) const;
  // Pads the stride of `axis` of the buffer the block writes so that
  // stride % factor == offset (avoids shared-memory bank conflicts); recorded
  // as the block annotation "buffer_dim_align" and applied when lowering.
  void StorageAlign(const BlockRV& block, int buffer_index, int axis, int factor, int offset) const;
  void TransformLayout(const BlockRV& block, bool is_write, int buffer_index, const IndexMap& index_map,
                       const IndexMap& pad_value = IndexMap(), bool assume_injective = false) const;
  void TransformBlockLayout(const BlockRV& block, const IndexMap& index_map) const;
  Array<LoopRV> LoopPartition(const LoopRV& loop, const Array<Any>& factors, bool preserve_unit_iters = true) const;
  // A loop where compute_at(block, loop) is legal, or the "root" handle
  // (decision -1: leave the block where it is).
  LoopRV SampleComputeLocation(const BlockRV& block, const std::optional<int64_t>& decision) const;
  void Tensorize(const ObjectRef& block_or_loop, const std::string& intrin, bool preserve_unit_iters = true) const;

  Array<Var> SamplePerfectTile(const LoopRV& loop, int n, int max_innermost_factor,
                               const std::optional<Array<Any>>& decision) const;
  Var SampleCategorical(const Array<Any>& candidates, const Array<Any>& probs, const std::optional<Any>& decision) const;

  // Re-applies `trace` onto this schedule (decisions replayed).
  void ApplyTrace(const Trace& trace, bool remove_postproc) const;

  // Internal helpers shared by primitives.
  PrimFunc FuncOf(const std::string& name) const;
  // The index of function `name` as it is now (built on first use).
  std::shared_ptr<const ScheduleIndex> IndexOf(const std::string& name) const;
  void Commit(const std::string& func, const PrimFunc& f) const;
  BlockLocation LocateBlock(const BlockRV& rv, const char* primitive) const;
  LoopLocation LocateLoop(const LoopRV& rv, const char* primitive) const;
  const ScheduleNode::LoopEntry& LoopEntryOf(const LoopRV& rv, const char* primitive) const;
  void Record(const std::string& kind, Array<Any> inputs, Array<Any> attrs, Array<Any> outputs,
              std::optional<Any> decision = std::nullopt) const;
  uint64_t NextRandom() const;
  // A new handle of `block` (of function `func` as last committed); it
  // resolves by identity when other blocks share its name.
  BlockRV NewBlockRV(const std::string& func, const BlockNode* block) const;
  // The generator's modulus, 2^31 - 1 (minimal standard LCG): NextRandom() is in [1, kModulus).
  static constexpr uint64_t kModulus = 2147483647;
};

}  // namespace tir
}  // namespace tessera
