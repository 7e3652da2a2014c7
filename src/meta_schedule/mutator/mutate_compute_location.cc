// MutateComputeLocation: re-picks the decision of a SampleComputeLocation
// instruction among the other candidate locations at that point of the
// trace (the trace's prefix is replayed to find them; see
// compute_location_candidates.h). As TVM's MutateComputeLocation.
// MetaSchedule layer.
#include "meta_schedule/mutator/mutator.h"
#include "tir/schedule/primitive/compute_location_candidates.h"

namespace tessera {
namespace meta_schedule {

class MutateComputeLocationNode : public MutatorNode {
 public:
  std::string Name() const override { return "MutateComputeLocation"; }

  std::optional<tir::Trace> Apply(const tir::Trace& trace, TRandState* rand_state) const override {
    std::vector<size_t> sites;
    for (size_t i = 0; i < trace->insts.size(); ++i) {
      const tir::Instruction& inst = trace->insts[i];
      if (inst->kind->name == "SampleComputeLocation" && trace->GetDecision(inst)) sites.push_back(i);
    }
    const IRModule& mod = MutatorModule(this);
    while (!sites.empty()) {
      size_t k = static_cast<size_t>(RandInt(rand_state, 0, static_cast<int64_t>(sites.size())));
      size_t index = sites[k];
      sites.erase(sites.begin() + static_cast<std::ptrdiff_t>(k));
      const tir::Instruction& inst = trace->insts[index];
      int64_t current = trace->GetDecision(inst)->cast<int64_t>();
      // The candidates at that point of the trace (TVM's
      // CollectComputeLocation): replay the prefix through the instruction,
      // then ask for the locations of its block.
      std::optional<tir::Schedule> replayed = TryReplay(mod, TracePrefix(trace, index + 1));
      if (!replayed) continue;
      const tir::Instruction& last = replayed->get()->trace->insts.back();
      std::vector<int64_t> others;
      for (const tir::ComputeLocationCandidate& c :
           tir::CollectComputeLocation(*replayed, last->inputs.at_any(0).cast<tir::BlockRV>())) {
        if (c.index != current) others.push_back(c.index);
      }
      if (others.empty()) continue;
      int64_t pick = others[static_cast<size_t>(RandInt(rand_state, 0, static_cast<int64_t>(others.size())))];
      return trace.WithDecision(inst, Any(pick));
    }
    return std::nullopt;
  }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(MutateComputeLocationNode, MutatorNode, "meta_schedule.MutateComputeLocation");
};

TESSERA_REGISTER_OBJECT_TYPE(MutateComputeLocationNode);
TESSERA_REGISTER_MUTATOR("MutateComputeLocation").set_body_typed([]() {
  return Mutator(ObjectPtr<Object>(make_object<MutateComputeLocationNode>()));
});

}  // namespace meta_schedule
}  // namespace tessera
