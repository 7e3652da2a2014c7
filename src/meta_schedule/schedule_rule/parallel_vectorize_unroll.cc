// ParallelizeVectorizeUnroll (TVM's ScheduleRule.ParallelizeVectorizeUnroll):
// on the root block only, records what the RewriteParallelVectorizeUnroll
// postprocessor realizes later: meta_schedule.parallel = num_cores *
// max_jobs_per_core, meta_schedule.vectorize = max_vectorize_extent and,
// unless the function is all spatial, meta_schedule.unroll_explicit (or
// _implicit) = a sample_categorical over unroll_max_steps with equal
// probabilities (the decision the unroll mutator edits). -1 / [] disable a
// part; a single-core target gets no parallel annotation. Meta-schedule layer.
#include "meta_schedule/schedule_rule/schedule_rule.h"
#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class ParallelizeVectorizeUnrollNode : public ScheduleRuleNode {
 public:
  int64_t max_jobs_per_core = 16;
  int64_t max_vectorize_extent = 16;
  Array<Any> unroll_max_steps;
  bool unroll_explicit = true;
  int64_t max_parallel_extent = -1;  // set from the target
  int64_t num_cores = -1;

  void InitializeWithTarget(const Target& target) final {
    num_cores = TargetNumCores(target);
    if (max_jobs_per_core != -1) max_parallel_extent = num_cores * max_jobs_per_core;
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& root) const final {
    BlockLocation loc = Locate(sch, root);
    if (loc.scope != nullptr) return {sch};
    // Unlike TVM, a single-core target gets no parallel annotation: one thread gains
    // nothing from parallel loops, and Tessera's exported kernels run them on every
    // core of the machine (they do not keep the target's -num-cores).
    if (max_jobs_per_core != -1 && num_cores != 1) {
      TESSERA_CHECK_OR_THROW(max_parallel_extent > 0, ValueError)
          << "ParallelizeVectorizeUnroll: not initialized with a target (the number of cores is unknown); "
             "call its _initialize_with_tune_context first";
      sch.Annotate(root, kParallel, Any(IntImm(DataType::Int(32), max_parallel_extent)));
    }
    if (max_vectorize_extent != -1) {
      sch.Annotate(root, kVectorize, Any(IntImm(DataType::Int(32), max_vectorize_extent)));
    }
    const std::string& func = sch->blocks.at(root.get()).func;
    if (!unroll_max_steps.empty() && !IsSpatialPrimFunc(sch.FuncOf(func))) {
      size_t n = unroll_max_steps.size();
      std::vector<Any> probs(n, Any(1.0 / static_cast<double>(n)));
      Var max_step = sch.SampleCategorical(unroll_max_steps, Array<Any>(probs), std::nullopt);
      sch.Annotate(root, unroll_explicit ? kUnrollExplicit : kUnrollImplicit, Any(max_step));
    }
    return {sch};
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<ParallelizeVectorizeUnrollNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ParallelizeVectorizeUnrollNode, ScheduleRuleNode,
                                    "meta_schedule.ParallelizeVectorizeUnroll");
};

TESSERA_REGISTER_NODE(ParallelizeVectorizeUnrollNode)
    .field("max_jobs_per_core", &ParallelizeVectorizeUnrollNode::max_jobs_per_core)
    .field("max_vectorize_extent", &ParallelizeVectorizeUnrollNode::max_vectorize_extent)
    .field("unroll_max_steps", &ParallelizeVectorizeUnrollNode::unroll_max_steps)
    .field("unroll_explicit", &ParallelizeVectorizeUnrollNode::unroll_explicit);

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleParallelizeVectorizeUnroll")
    .set_body_typed([](int64_t max_jobs_per_core, int64_t max_vectorize_extent, Array<Any> unroll_max_steps,
                       bool unroll_explicit) {
      TESSERA_CHECK_OR_THROW(max_jobs_per_core == -1 || max_jobs_per_core >= 1, ValueError)
          << "ParallelizeVectorizeUnroll: max_jobs_per_core must be positive or -1, got " << max_jobs_per_core;
      TESSERA_CHECK_OR_THROW(max_vectorize_extent == -1 || max_vectorize_extent >= 1, ValueError)
          << "ParallelizeVectorizeUnroll: max_vectorize_extent must be positive or -1, got " << max_vectorize_extent;
      std::vector<Any> steps;
      for (const Any& s : unroll_max_steps) {
        int64_t v = s.cast<int64_t>();
        TESSERA_CHECK_OR_THROW(v >= 0, ValueError)
            << "ParallelizeVectorizeUnroll: unroll_max_steps must be non-negative, got " << v;
        steps.push_back(Any(v));
      }
      auto n = make_object<ParallelizeVectorizeUnrollNode>();
      n->max_jobs_per_core = max_jobs_per_core;
      n->max_vectorize_extent = max_vectorize_extent;
      n->unroll_max_steps = Array<Any>(steps);
      n->unroll_explicit = unroll_explicit;
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera
