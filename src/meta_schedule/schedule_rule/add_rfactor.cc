// AddRFactor (TVM's ScheduleRule.AddRFactor): for a reduction block with
// too little spatial parallelism (block_analysis.h: NeedsRFactor), moves the
// reduction loops innermost, fuses them, splits the fused loop in two
// (sample_perfect_tile, max_innermost_factor) and branches: rfactor on the
// outer part, rfactor on the inner part (each marking the block
// meta_schedule.random_compute_producer for RandomComputeLocation), and
// the schedule as it was. Meta-schedule layer.
#include "meta_schedule/schedule_rule/schedule_rule.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class AddRFactorNode : public ScheduleRuleNode {
 public:
  int64_t max_jobs_per_core = 16;
  int64_t max_innermost_factor = -1;
  int64_t max_parallel_extent = -1;  // set from the target
  int64_t max_parallel_basic = -1;

  void InitializeWithTarget(const Target& target) final {
    max_parallel_basic = TargetNumCores(target);
    if (max_jobs_per_core != -1) max_parallel_extent = max_parallel_basic * max_jobs_per_core;
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    BlockLocation loc = Locate(sch, block);
    if (loc.scope == nullptr || !NeedsRFactor(sch, loc, max_parallel_extent, max_parallel_basic)) return {sch};
    Schedule original = ForkSchedule(sch);
    // Spatial loops first, then the reduction loops, fused.
    size_t n_spatial = 0;
    LoopRV fused = ReorderAndFuseReductionLoops(sch, block, &n_spatial);
    Array<Var> factors = sch.SamplePerfectTile(fused, 2, static_cast<int>(max_innermost_factor), std::nullopt);
    Array<LoopRV> split = sch.Split(fused, Array<Any>(factors.begin(), factors.end()), true);
    std::vector<Schedule> out;
    for (const LoopRV& part : split) {
      Schedule s = ForkSchedule(sch);
      try {
        s.RFactor(part, static_cast<int>(n_spatial));
        s.Annotate(block, kRandomComputeProducer, Any(IntImm(DataType::Int(32), 1)));
        out.push_back(s);
      } catch (const Error& e) {
        if (e.kind() != "ScheduleError") throw;
      }
    }
    out.push_back(original);
    return Array<Schedule>(out);
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<AddRFactorNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(AddRFactorNode, ScheduleRuleNode, "meta_schedule.AddRFactor");
};

TESSERA_REGISTER_NODE(AddRFactorNode)
    .field("max_jobs_per_core", &AddRFactorNode::max_jobs_per_core)
    .field("max_innermost_factor", &AddRFactorNode::max_innermost_factor);

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleAddRFactor")
    .set_body_typed([](int64_t max_jobs_per_core, std::optional<int64_t> max_innermost_factor) {
      TESSERA_CHECK_OR_THROW(max_jobs_per_core == -1 || max_jobs_per_core >= 1, ValueError)
          << "AddRFactor: max_jobs_per_core must be positive or -1, got " << max_jobs_per_core;
      auto n = make_object<AddRFactorNode>();
      n->max_jobs_per_core = max_jobs_per_core;
      n->max_innermost_factor = max_innermost_factor.value_or(-1);
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera
