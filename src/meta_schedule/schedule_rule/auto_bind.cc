// AutoBind (TVM's ScheduleRule.AutoBind): binds each top-level block that no
// thread binding covers (what multi-level tiling left, e.g. elementwise
// blocks) to blockIdx.x x threadIdx.x (thread_bind.h); the thread count is a
// sample_categorical over thread_extents (those up to the target's
// max_threads_per_block and the loop's extent, equal probabilities), so the
// mutators can revisit it. GPU targets. Meta-schedule layer.
#include "meta_schedule/schedule_rule/schedule_rule.h"
#include "meta_schedule/thread_bind.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class AutoBindNode : public ScheduleRuleNode {
 public:
  int64_t max_threadblocks = 256;
  std::vector<int64_t> thread_extents;
  int64_t max_threads_per_block = -1;  // from the target

  void InitializeWithTarget(const Target& target) final {
    max_threads_per_block = GPUThreadLimits::FromTarget(target).max_threads_per_block;
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    TESSERA_CHECK_OR_THROW(max_threads_per_block > 0, ValueError)
        << "AutoBind: not initialized with a target (the thread limit is unknown); call its "
           "_initialize_with_tune_context first";
    if (BindBlockIdxAboveThreads(sch, block) || !IsUnboundTopLevelBlock(sch, block)) return {sch};
    auto sample = [&](int64_t max_extent) -> Any {
      std::vector<Any> candidates;
      for (int64_t t : thread_extents) {
        if (t <= max_extent) candidates.push_back(Any(t));
      }
      if (candidates.empty()) return Any(IntImm(DataType::Int(32), max_extent));
      std::vector<Any> probs(candidates.size(), Any(1.0 / static_cast<double>(candidates.size())));
      return Any(sch.SampleCategorical(Array<Any>(candidates), Array<Any>(probs), std::nullopt));
    };
    BindBlockThreadIdx(sch, block, max_threadblocks, max_threads_per_block, sample);
    return {sch};
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<AutoBindNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AutoBindNode, ScheduleRuleNode, "meta_schedule.AutoBind");
};

TESSERA_REGISTER_NODE(AutoBindNode).field("max_threadblocks", &AutoBindNode::max_threadblocks);

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleAutoBind")
    .set_body_typed([](int64_t max_threadblocks, Array<Any> thread_extents) {
      TESSERA_CHECK_OR_THROW(max_threadblocks >= 1, ValueError)
          << "AutoBind: max_threadblocks must be positive, got " << max_threadblocks;
      auto n = make_object<AutoBindNode>();
      n->max_threadblocks = max_threadblocks;
      for (const Any& t : thread_extents) {
        int64_t v = t.cast<int64_t>();
        TESSERA_CHECK_OR_THROW(v >= 1, ValueError) << "AutoBind: thread_extents must be positive, got " << v;
        n->thread_extents.push_back(v);
      }
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera
