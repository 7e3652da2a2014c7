// ScheduleRule (`tvm.meta_schedule.schedule_rule.ScheduleRule`): a rule the
// PostOrderApply space generator applies to each block; Apply returns the
// schedules it leads to (one, or several when the rule branches the design
// space). InitializeWithTarget is TVM's InitializeWithTuneContext: what a
// rule needs from the task (cores, vector width) comes from its target.
// Each rule lives in its own file here and registers its constructor
// ("meta_schedule.ScheduleRule<Name>"); DefaultLLVM lists the CPU set,
// DefaultCUDA the GPU set.
// Meta-schedule layer.
#pragma once

#include "meta_schedule/block_analysis.h"

namespace tessera {
namespace meta_schedule {

class ScheduleRule;

class ScheduleRuleNode : public Object {
 public:
  virtual ~ScheduleRuleNode() = default;
  // Reads what the rule needs from the tuning target.
  virtual void InitializeWithTarget(const Target& target) {}
  // The schedules `block` leads to; a rule that does not fit returns {sch}
  // unchanged. `sch` may be modified and returned.
  virtual Array<tir::Schedule> Apply(const tir::Schedule& sch, const tir::BlockRV& block) const = 0;
  // A copy with the same configuration (rules keep state set by InitializeWithTarget).
  virtual ScheduleRule Clone() const = 0;
  TESSERA_DECLARE_OBJECT_INFO(ScheduleRuleNode, Object, "meta_schedule.ScheduleRule");
};

class ScheduleRule : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ScheduleRule, ObjectRef, ScheduleRuleNode);
  // TVM's ScheduleRule::DefaultLLVM: AutoInline, AddRFactor, MultiLevelTiling
  // (packed-panel variant: TVM's SSRSRS branches plus packed panels for
  // matmul-like blocks), ParallelizeVectorizeUnroll, RandomComputeLocation,
  // with TVM's llvm parameters.
  static Array<ScheduleRule> DefaultLLVM();
  // TVM's ScheduleRule::DefaultCUDA: AutoInline, CrossThreadReduction, MultiLevelTiling "SSSRRSRS"
  // bound to blockIdx.x / vthread.x / threadIdx.x with shared-memory reads
  // (cooperative fetch) and a local write cache, AutoInline into producers,
  // auto-unroll, AutoBind.
  static Array<ScheduleRule> DefaultCUDA();
  // TVM's ScheduleRule::DefaultCUDATensorCore ("cuda-tensorcore"):
  // MultiLevelTilingTensorCore on the mma.sync fp16 groups, then DefaultCUDA.
  static Array<ScheduleRule> DefaultCUDATensorCore();
  // Calls the registered constructor "meta_schedule.ScheduleRule<name>".
  static ScheduleRule Create(const std::string& name, const Array<Any>& args);
};

// Copies `sch` into a new schedule whose random state is forked from it (as
// TVM does when a rule branches).
tir::Schedule ForkSchedule(const tir::Schedule& sch);

}  // namespace meta_schedule
}  // namespace tessera
