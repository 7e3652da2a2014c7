// relax.build's pipelines, defined once here: ZeroPipelinePasses (TVM's "zero":
// legalization and fusion) and DefaultBuildPipeline (relax.get_pipeline
// ("default_build"), the Sequential "relax.build_pipeline" that relax.build
// runs: FoldBatchnormToConv2d, the zero passes, DefaultCPUSchedule (the target kind's default
// schedule: the CPU's, or the GPU's for cuda), DeadCodeElimination, then the
// lowering passes of lowering.h). Adding a pass to a pipeline is one line in
// one of the two lists below. VM code generation (src/relax/backend/vm) runs
// on the result. Python's relax.get_pipeline reads them via relax.GetPipeline.
#include "relax/transform/fusion.h"
#include "relax/transform/lowering.h"
#include "relax/transform/optimization.h"
#include "runtime/registry.h"
#include "target/target_kind.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace relax {
namespace transform {

std::vector<Pass> ZeroPipelinePasses(bool enable_warning) {
  return {
      LegalizeOps({}, enable_warning),
      AnnotateTIROpPattern(),
      FoldConstant(),
      FuseOps(),
      FuseTIR(),
  };
}

tessera::transform::Sequential DefaultBuildPipeline(std::optional<Target> target) {
  // A CPU target, or a device target whose kind has a default schedule for
  // untuned kernels (cuda: DefaultGPUSchedule); the VM itself runs on the host.
  TESSERA_CHECK_OR_THROW(!target || tir::IsCPUTarget(*target) ||
                             GetTargetKindAttr((*target)->kind, kTargetKindAttrDefaultSchedule).has_value(),
                         ValueError)
      << "relax.get_pipeline(\"default_build\"): target " << (*target)->str
      << " is neither a CPU target nor a device target with a default schedule";
  std::vector<Pass> passes = {FoldBatchnormToConv2d()};
  std::vector<Pass> zero = ZeroPipelinePasses();
  passes.insert(passes.end(), zero.begin(), zero.end());
  std::vector<Pass> rest = {
      tir::transform::DefaultCPUSchedule(target),
      DeadCodeElimination(),
      tessera::transform::GetPass("relax.transform.Normalize"),
      ToNonDataflow(),
      RemovePurityChecking(),
      CallTIRRewrite(),
      StaticPlanBlockMemory(),
      LowerAllocTensor(),
      VMBuiltinLower(),
      VMShapeLower(),
      AttachGlobalSymbol(),
  };
  passes.insert(passes.end(), rest.begin(), rest.end());
  return tessera::transform::Sequential(Array<Pass>(passes), "relax.build_pipeline");
}

namespace {

// The named pipelines of relax.get_pipeline; `target` is for default_build only.
// `enable_warning` is for zero only (its LegalizeOps names ops left without a legalization).
tessera::transform::Sequential GetPipeline(const std::string& name, std::optional<Target> target,
                                           bool enable_warning) {
  if (name == "default_build") return DefaultBuildPipeline(target);
  TESSERA_CHECK_OR_THROW(!target, TypeError) << "relax.get_pipeline(" << name << ") takes no target";
  if (name == "zero") {
    return tessera::transform::Sequential(Array<Pass>(ZeroPipelinePasses(enable_warning)), "relax.zero_pipeline");
  }
  TESSERA_THROW(ValueError) << "unknown relax pipeline '" << name << "'; known: default_build, zero";
}

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.GetPipeline")
    .set_body_typed([](std::string name, std::optional<Target> target, std::optional<bool> enable_warning) {
      return GetPipeline(name, target, enable_warning.value_or(false));
    });
TESSERA_REGISTER_GLOBAL("relax.transform.DefaultBuildPipeline").set_body_typed([](std::optional<Target> target) {
  return DefaultBuildPipeline(target);
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
