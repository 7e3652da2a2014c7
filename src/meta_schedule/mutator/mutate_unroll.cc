// MutateUnroll: re-picks the decision of a SampleCategorical whose result is
// the value of a `meta_schedule.unroll_explicit` / `unroll_implicit`
// annotation (the unroll depth ParallelizeVectorizeUnroll samples), drawing
// another candidate with the instruction's probabilities. As TVM's
// MutateUnroll. MetaSchedule layer.
#include "meta_schedule/mutator/mutator.h"

namespace tessera {
namespace meta_schedule {

class MutateUnrollNode : public MutatorNode {
 public:
  std::string Name() const override { return "MutateUnroll"; }

  std::optional<tir::Trace> Apply(const tir::Trace& trace, TRandState* rand_state) const override {
    // Outputs that some unroll annotation uses as its value.
    std::vector<const Object*> unroll_values;
    for (const tir::Instruction& inst : trace->insts) {
      if (inst->kind->name != "Annotate" || inst->inputs.size() < 2 || inst->attrs.size() < 1) continue;
      auto key = inst->attrs.at_any(0).try_cast<std::string>();
      if (!key || (*key != "meta_schedule.unroll_explicit" && *key != "meta_schedule.unroll_implicit")) continue;
      if (inst->inputs.at_any(1).is_object()) unroll_values.push_back(inst->inputs.at_any(1).raw_object().get());
    }
    return RepickCategorical(trace, rand_state, [&](const tir::Instruction& inst) {
      const Object* out = inst->outputs.at_any(0).raw_object().get();
      return std::find(unroll_values.begin(), unroll_values.end(), out) != unroll_values.end();
    });
  }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(MutateUnrollNode, MutatorNode, "meta_schedule.MutateUnroll");
};

TESSERA_REGISTER_OBJECT_TYPE(MutateUnrollNode);
TESSERA_REGISTER_MUTATOR("MutateUnroll").set_body_typed([]() {
  return Mutator(ObjectPtr<Object>(make_object<MutateUnrollNode>()));
});

}  // namespace meta_schedule
}  // namespace tessera
