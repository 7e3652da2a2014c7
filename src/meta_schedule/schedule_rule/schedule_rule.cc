// ScheduleRule base, the default llvm rule set and the generic FFI entries
// (apply, initialize, create by name). Meta-schedule layer.
#include "meta_schedule/schedule_rule/schedule_rule.h"

#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {

TESSERA_REGISTER_OBJECT_TYPE(ScheduleRuleNode);

ScheduleRule ScheduleRule::Create(const std::string& name, const Array<Any>& args) {
  std::optional<PackedFunc> ctor = Registry::Get("meta_schedule.ScheduleRule" + name);
  TESSERA_CHECK_OR_THROW(ctor.has_value(), ValueError) << "unknown schedule rule \"" << name << "\"";
  std::vector<Any> v = args.to_vector();
  return ctor->CallPacked(PackedArgs(v.data(), static_cast<int>(v.size()))).cast<ScheduleRule>();
}

Array<ScheduleRule> ScheduleRule::DefaultLLVM() {
  // TVM v0.18's llvm defaults (ApplyCustomRule and InlineConstantScalars aside).
  Map<String, Any> reuse_write{{String("req"), Any(String("may"))},
                               {String("levels"), Any(Array<Any>{Any(int64_t(1)), Any(int64_t(2))})},
                               {String("scope"), Any(String("global"))}};
  return {
      Create("AutoInline", {false, true, true, true, true, true, Array<Any>{Any(String("tir.exp"))}}),
      Create("AddRFactor", {int64_t(16), int64_t(64)}),
      Create("MultiLevelTilingPackedPanel",
             {String("SSRSRS"), Any(), int64_t(64), Any(), Any(), reuse_write, int64_t(8), int64_t(64), int64_t(512)}),
      Create("ParallelizeVectorizeUnroll",
             {int64_t(16), int64_t(64), Array<Any>{Any(int64_t(0)), Any(int64_t(16)), Any(int64_t(64)), Any(int64_t(512))},
              true}),
      Create("RandomComputeLocation", {}),
  };
}

Array<ScheduleRule> ScheduleRule::DefaultCUDA() {
  // TVM v0.18's cuda defaults (ApplyCustomRule aside); cooperative fetches of 1, 2
  // or 4 elements (docs/compatibility.md).
  auto ints = [](std::initializer_list<int64_t> v) {
    std::vector<Any> out;
    for (int64_t x : v) out.push_back(Any(x));
    return Array<Any>(out);
  };
  auto reuse = [&](const char* req, int64_t level, const char* scope) {
    return Map<String, Any>{{String("req"), Any(String(req))},
                            {String("levels"), Any(ints({level}))},
                            {String("scope"), Any(String(scope))}};
  };
  Array<Any> binds{Any(String("blockIdx.x")), Any(String("vthread.x")), Any(String("threadIdx.x"))};
  return {
      Create("AutoInline", {false, true, true, false, false, false, Array<Any>{}}),
      Create("CrossThreadReduction", Array<Any>{Any(ints({4, 8, 16, 32, 64, 128, 256, 512}))}),
      Create("MultiLevelTiling", {String("SSSRRSRS"), binds, int64_t(64), ints({1, 2, 4}),
                                  reuse("must", 4, "shared"), reuse("must", 3, "local"), Any()}),
      Create("AutoInline", {true, false, true, false, false, false, Array<Any>{}}),
      Create("ParallelizeVectorizeUnroll", {int64_t(-1), int64_t(-1), ints({0, 16, 64, 512, 1024}), true}),
      Create("AutoBind", {int64_t(256), ints({32, 64, 128, 256, 512, 1024})}),
  };
}

Array<ScheduleRule> ScheduleRule::DefaultCUDATensorCore() {
  // TVM v0.18's "cuda-tensorcore": the tensor-core rule first, then the cuda set. Tessera's groups are mma.sync
  // m16n8k16 fp16 -> fp32 / fp16 (TVM's list has the wmma groups, which Tessera lacks); the intrinsics must be
  // registered (python: tvm.tir.tensor_intrin.cuda, imported by ScheduleRule.create).
  auto group = [](const char* acc, const char* compute) {
    std::string a(acc);
    return Any(Map<String, Any>{{String("init"), Any(String("mma_fill_16x16_" + a))},
                                {String("load_a"), Any(String("mma_ldmatrix_f16_a"))},
                                {String("load_b"), Any(String("mma_ldmatrix_f16_b"))},
                                {String("compute"), Any(String(compute))},
                                {String("store"), Any(String("mma_store_16x16_" + a + "_global"))}});
  };
  std::vector<Any> lens{Any(int64_t(1)), Any(int64_t(2)), Any(int64_t(4)), Any(int64_t(8))};
  Array<ScheduleRule> out{Create("MultiLevelTilingTensorCore",
                                 {Array<Any>{group("f32", "mma_f16f16f32"), group("f16", "mma_f16f16f16")},
                                  String("SSSRRSRS"), Any(), int64_t(4), Array<Any>(lens), Any(), Any(), false})};
  for (const ScheduleRule& rule : DefaultCUDA()) out.push_back(rule);
  return out;
}

tir::Schedule ForkSchedule(const tir::Schedule& sch) {
  tir::Schedule copy = sch.Copy();
  copy.Seed(sch.ForkSeed());
  return copy;
}

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleApply")
    .set_body_typed([](ScheduleRule rule, tir::Schedule sch, tir::BlockRV block) {
      return rule->Apply(sch, block);
    });
TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleInitializeWithTarget")
    .set_body_typed([](ScheduleRule rule, Target target) { const_cast<ScheduleRuleNode*>(rule.get())->InitializeWithTarget(target); });
TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleClone").set_body_typed([](ScheduleRule rule) {
  return rule->Clone();
});
TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleDefaultLLVM").set_body_typed([]() {
  return ScheduleRule::DefaultLLVM();
});
TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleDefaultCUDA").set_body_typed([]() {
  return ScheduleRule::DefaultCUDA();
});
TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleDefaultCUDATensorCore").set_body_typed([]() {
  return ScheduleRule::DefaultCUDATensorCore();
});

// The cuda kind is tuned with the "gpu" family (python/tessera/meta_schedule:
// ScheduleRule.create, Mutator.create; its postprocessors are set in target_kind.cc).
[[maybe_unused]] static TargetKindRegEntry& kCUDATunerDefaults =
    TargetKindRegEntry::RegisterOrGet("cuda")
        .set_attr(kTargetKindAttrScheduleRules, String("gpu"))
        .set_attr(kTargetKindAttrMutatorProbs, String("gpu"));

}  // namespace meta_schedule
}  // namespace tessera
