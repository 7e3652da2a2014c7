// RandomComputeLocation (TVM's ScheduleRule.RandomComputeLocation): a block
// directly under the root, with loops, alone under its outermost loop, not
// tiled and with a consumer is moved to a location sampled by
// sample_compute_location (compute_at there; the decision -1 leaves it in
// place). A block marked meta_schedule.random_compute_producer (by
// AddRFactor) has its producer moved the same way. Meta-schedule layer.
#include "meta_schedule/schedule_rule/schedule_rule.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class RandomComputeLocationNode : public ScheduleRuleNode {
 public:
  static bool CheckConditions(const Schedule& sch, const BlockRV& block) {
    BlockLocation loc = Locate(sch, block);
    if (loc.scope == nullptr) return false;
    const std::string& func = sch->blocks.at(block.get()).func;
    auto index = sch.IndexOf(func);
    const auto* root = index->func()->body.as<BlockRealizeNode>();
    if (!root || loc.scope != root->block.get()) return false;  // directly under the root block
    if (loc.loops.empty()) return false;
    if (ChildBlocks(loc.loops[0]->body).size() > 1) return false;
    if (HasAnnotation(loc.block, kTilingStructure)) return false;
    return !index->Consumers(loc.block).empty();
  }

  static void RandomlyComputeAt(const Schedule& sch, const BlockRV& block) {
    // The "root" location (decision -1) leaves the block where it is.
    LoopRV at = sch.SampleComputeLocation(block, std::nullopt);
    sch.ComputeAt(block, at, true, -1);
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    if (!CheckConditions(sch, block)) return {sch};
    std::optional<BlockRV> producer;
    BlockLocation loc = Locate(sch, block);
    if (HasAnnotation(loc.block, kRandomComputeProducer)) {
      Array<BlockRV> producers = sch.GetProducers(block);
      sch.Unannotate(block, kRandomComputeProducer);
      if (producers.size() == 1) producer = producers[0];
    }
    RandomlyComputeAt(sch, block);
    if (producer) RandomlyComputeAt(sch, *producer);
    return {sch};
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<RandomComputeLocationNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(RandomComputeLocationNode, ScheduleRuleNode,
                                    "meta_schedule.RandomComputeLocation");
};

TESSERA_REGISTER_NODE(RandomComputeLocationNode);

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleRandomComputeLocation").set_body_typed([]() {
  return ScheduleRule(make_object<RandomComputeLocationNode>());
});

}  // namespace meta_schedule
}  // namespace tessera
