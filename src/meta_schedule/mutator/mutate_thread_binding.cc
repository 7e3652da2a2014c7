// MutateThreadBinding: re-picks the decision of a SampleCategorical whose
// result is the thread count of a split whose inner loop is bound to
// threadIdx.x (the thread count AutoBind samples), drawing another
// candidate with the instruction's probabilities. As TVM's
// MutateThreadBinding (the GPU mutator table). MetaSchedule layer.
#include <unordered_set>

#include "meta_schedule/mutator/mutator.h"

namespace tessera {
namespace meta_schedule {

class MutateThreadBindingNode : public MutatorNode {
 public:
  std::string Name() const override { return "MutateThreadBinding"; }

  std::optional<tir::Trace> Apply(const tir::Trace& trace, TRandState* rand_state) const override {
    // Loops bound to threadIdx.x, then the split factors that made them.
    std::unordered_set<const Object*> thread_loops, thread_counts;
    for (const tir::Instruction& inst : trace->insts) {
      if (inst->kind->name != "Bind" || inst->inputs.empty() || inst->attrs.empty()) continue;
      auto tag = inst->attrs.at_any(0).try_cast<std::string>();
      if (tag && *tag == "threadIdx.x" && inst->inputs.at_any(0).is_object()) {
        thread_loops.insert(inst->inputs.at_any(0).raw_object().get());
      }
    }
    for (const tir::Instruction& inst : trace->insts) {
      if (inst->kind->name != "Split" || inst->inputs.size() < 2) continue;
      auto factors = inst->inputs.at_any(1).try_cast<Array<Any>>();
      if (!factors) continue;
      for (size_t i = 0; i < inst->outputs.size() && i < factors->size(); ++i) {
        const Any& out = inst->outputs.at_any(i);
        const Any& factor = factors->at_any(i);
        if (out.is_object() && factor.is_object() && thread_loops.count(out.raw_object().get())) {
          thread_counts.insert(factor.raw_object().get());
        }
      }
    }
    return RepickCategorical(trace, rand_state, [&](const tir::Instruction& inst) {
      return thread_counts.count(inst->outputs.at_any(0).raw_object().get()) != 0;
    });
  }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(MutateThreadBindingNode, MutatorNode, "meta_schedule.MutateThreadBinding");
};

TESSERA_REGISTER_OBJECT_TYPE(MutateThreadBindingNode);
TESSERA_REGISTER_MUTATOR("MutateThreadBinding").set_body_typed([]() {
  return Mutator(ObjectPtr<Object>(make_object<MutateThreadBindingNode>()));
});

}  // namespace meta_schedule
}  // namespace tessera
