// CrossThreadReduction (TVM's ScheduleRule.CrossThreadReduction): a
// reduction block on a GPU whose reduction is long enough (NeedsRFactor with
// the thread limit and the warp size) gets a branch where a thread block
// shares the reduction: a thread count sampled from thread_extents, the
// fused reduction loop split by it and the thread part bound to threadIdx.x
// (lowered by LowerCrossThreadReduction / LowerThreadAllreduce to warp
// shuffles). A sole fusible consumer gets the block computed at its loop, in
// "shared" (its inner loop bound to the same threads; a consumer already in a
// thread block lends its thread count, the same sampled variable). Returns
// {that branch, the schedule unchanged}. Meta-schedule layer.
#include "meta_schedule/schedule_rule/schedule_rule.h"
#include "meta_schedule/thread_bind.h"
#include "runtime/registry.h"
#include "tir/transform/thread_allreduce_reducer.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

namespace {

// Where the reduction block goes when it is fused into its consumer (TVM's
// GetComputeTargetLoopAndBlock): the consumer, the consumer's loop to compute
// the block at, and the consumer's innermost loop.
struct FusionTarget {
  BlockRV consumer;
  LoopRV at;
  LoopRV innermost;
};

std::optional<FusionTarget> FindFusionTarget(const Schedule& sch, const BlockRV& block) {
  BlockLocation loc = Locate(sch, block);
  if (loc.block->writes.size() != 1) return std::nullopt;  // a tuple reduction stays where it is
  Array<BlockRV> consumers = sch.GetConsumers(block);
  if (consumers.empty()) return std::nullopt;
  BlockLocation first = Locate(sch, consumers[0]);
  if (NeedsMultiLevelTiling(first)) return std::nullopt;
  // The consumers' lowest common ancestor: their common outer loops (several
  // consumers under no common loop cannot share the block).
  std::vector<const ForNode*> common(first.loops.begin(), first.loops.end());
  for (size_t c = 1; c < consumers.size(); ++c) {
    BlockLocation other = Locate(sch, consumers[c]);
    size_t n = 0;
    while (n < common.size() && n < other.loops.size() && common[n] == other.loops[n]) ++n;
    common.resize(n);
  }
  if (consumers.size() > 1 && common.empty()) return std::nullopt;
  const ForNode* lca = consumers.size() > 1 ? common.back() : nullptr;
  Array<LoopRV> target_loops = sch.GetLoops(consumers[0]);
  std::vector<int> types = LoopIterTypes(loc);
  const size_t n = std::min(loc.loops.size(), first.loops.size());
  int pos = static_cast<int>(n) - 1;
  for (size_t i = 0; i < n; ++i) {
    if (types[i] != kDataPar) {
      pos = static_cast<int>(i) - 1;
      break;
    }
    if (first.loops[i] == lca) {
      pos = static_cast<int>(i);
      break;
    }
  }
  if (pos < 0) return std::nullopt;
  return FusionTarget{consumers[0], target_loops[pos], target_loops[target_loops.size() - 1]};
}

// The consumer's loop bound to threadIdx.x, if any (a block already in a thread scope).
const ForNode* ThreadXLoop(const Schedule& sch, const BlockRV& block) {
  for (const ForNode* loop : Locate(sch, block).loops) {
    if (loop->thread_binding && (*loop->thread_binding)->thread_tag == "threadIdx.x") return loop;
  }
  return nullptr;
}

// What set the extent of `loop` when a Split made it: the sampled variable (so that the reduction
// shares it: a mutation of it changes both), else the loop's constant extent; nullopt if neither.
std::optional<Any> ExtentOf(const Schedule& sch, const ForNode* loop) {
  const std::vector<Instruction>& insts = sch->trace->insts;
  for (auto it = insts.rbegin(); it != insts.rend(); ++it) {
    const Instruction& inst = *it;
    if (inst->kind->name != "Split") continue;
    Array<Any> factors = inst->inputs[1].cast<Array<Any>>();
    for (size_t o = 0; o < inst->outputs.size() && o < factors.size(); ++o) {
      auto entry = sch->loops.find(inst->outputs[o].as<LoopRVNode>());
      if (entry == sch->loops.end() || !entry->second.var.same_as(loop->loop_var)) continue;
      if (const auto* v = factors[o].as<VarNode>(); v != nullptr && sch->values.count(v)) return factors[o];
    }
  }
  if (std::optional<int64_t> ext = ConstExtent(loop)) return Any(IntImm(DataType::Int(32), *ext));
  return std::nullopt;
}

// The block's loops that sit inside the fusion point are all unit loops
// (what LowerCrossThreadReduction takes: no serial spatial loop around the
// thread-bound reduction).
bool OnlyUnitSpatialLoopsBelow(const Schedule& sch, const BlockRV& block, size_t n_outer) {
  BlockLocation loc = Locate(sch, block);
  std::vector<int> types = LoopIterTypes(loc);
  for (size_t i = n_outer; i < loc.loops.size(); ++i) {
    if (types[i] == kDataPar && ConstExtent(loc.loops[i]).value_or(0) != 1) return false;
  }
  return true;
}

}  // namespace

class CrossThreadReductionNode : public ScheduleRuleNode {
 public:
  std::vector<int64_t> thread_extents;
  int64_t max_threads_per_block = -1;  // from the target
  int64_t warp_size = -1;

  void InitializeWithTarget(const Target& target) final {
    GPUThreadLimits limits = GPUThreadLimits::FromTarget(target);
    max_threads_per_block = limits.max_threads_per_block;
    warp_size = limits.thread_warp_size;
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    TESSERA_CHECK_OR_THROW(max_threads_per_block > 0, ValueError)
        << "CrossThreadReduction: not initialized with a target (the thread limit is unknown); call its "
           "_initialize_with_tune_context first";
    BlockLocation loc = Locate(sch, block);
    if (loc.scope == nullptr || !NeedsRFactor(sch, loc, max_threads_per_block, warp_size)) return {sch};
    // Only reductions the lowering knows (+, *, max, min on one buffer).
    if (!loc.block->init || !MatchReductionUpdate(*loc.block->init, loc.block->body)) return {sch};
    std::vector<Any> candidates;
    for (int64_t t : thread_extents) {
      if (t <= max_threads_per_block) candidates.push_back(Any(t));
    }
    if (candidates.empty()) return {sch};
    std::vector<Any> probs(candidates.size(), Any(1.0 / static_cast<double>(candidates.size())));
    for (bool fuse : {true, false}) {
      Schedule s = ForkSchedule(sch);
      try {
        std::optional<Any> threads;
        auto sampled = [&]() {
          if (!threads) threads = Any(s.SampleCategorical(Array<Any>(candidates), Array<Any>(probs), std::nullopt));
          return *threads;
        };
        if (fuse) {
          std::optional<FusionTarget> target = FindFusionTarget(s, block);
          if (!target) continue;
          if (const ForNode* thread_loop = ThreadXLoop(s, target->consumer)) {
            // The consumer's threads already run there: the reduction takes the same count.
            threads = ExtentOf(s, thread_loop);
            if (!threads) continue;
          } else {
            Array<LoopRV> parts = s.Split(target->innermost, {Any(), sampled()}, true);
            s.Bind(parts[1], "threadIdx.x");
            if (target->innermost.same_as(target->at)) target->at = parts[0];
          }
          Array<LoopRV> consumer_loops = s.GetLoops(target->consumer);
          size_t depth = 0;
          while (depth < consumer_loops.size() && !consumer_loops[depth].same_as(target->at)) ++depth;
          s.ComputeAt(block, target->at, true, -1);
          s.SetScope(block, 0, "shared");
          if (!OnlyUnitSpatialLoopsBelow(s, block, depth + 1)) continue;
        }
        Any extent = sampled();
        size_t n_spatial = 0;
        LoopRV fused = ReorderAndFuseReductionLoops(s, block, &n_spatial);
        // The thread part outside the serial part (k = serial * threads + thread: neighbouring threads read
        // neighbouring elements), as LowerCrossThreadReduction wants it.
        Array<LoopRV> parts = s.Split(fused, {Any(), extent}, true);
        s.Reorder({parts[1], parts[0]});
        s.Bind(parts[1], "threadIdx.x");
        return {s, sch};
      } catch (const Error& e) {
        if (e.kind() != "ScheduleError") throw;
      }
    }
    return {sch};
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<CrossThreadReductionNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(CrossThreadReductionNode, ScheduleRuleNode, "meta_schedule.CrossThreadReduction");
};

TESSERA_REGISTER_NODE(CrossThreadReductionNode)
    .getter("thread_extents", [](const CrossThreadReductionNode* n) {
      std::vector<Any> v;
      for (int64_t t : n->thread_extents) v.push_back(Any(t));
      return Array<Any>(v);
    });

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleCrossThreadReduction").set_body_typed([](Array<Any> thread_extents) {
  auto n = make_object<CrossThreadReductionNode>();
  for (const Any& t : thread_extents) {
    int64_t v = t.cast<int64_t>();
    TESSERA_CHECK_OR_THROW(v >= 1, ValueError) << "CrossThreadReduction: thread_extents must be positive, got " << v;
    n->thread_extents.push_back(v);
  }
  TESSERA_CHECK_OR_THROW(!n->thread_extents.empty(), ValueError) << "CrossThreadReduction: thread_extents is empty";
  return ScheduleRule(n);
});

}  // namespace meta_schedule
}  // namespace tessera
