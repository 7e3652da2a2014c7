// The build driver (see build_module.h).
#include "codegen/build_module.h"

#include "codegen/target_build.h"
#include "runtime/registry.h"
#include "tir/transform/pipeline.h"

namespace tessera {
namespace codegen {

IRModule Lower(const IRModule& mod) { return tir::transform::DefaultTIRPipeline()(mod); }

tir::PrimFunc LowerPrimFunc(tir::PrimFunc func) {
  IRModule mod = IRModule::FromExpr(func);
  GlobalVar gv = mod->GetGlobalVars()[0];
  return Downcast<tir::PrimFunc>(Lower(mod)->Lookup(gv));
}

namespace {

// A PassContext that disables a pass code generation needs is refused up
// front (instead of failing deep inside the code generator).
void CheckCodegenPassesEnabled(const transform::PassContext& ctx) {
  for (const auto& [name, reason] : tir::transform::PassesRequiredForCodegen()) {
    transform::PassInfo info = transform::GetPass("tir.transform." + name)->Info();
    if (!ctx->PassEnabled(info)) {
      TESSERA_THROW(ValueError) << "tvm.build: the PassContext disables tir.transform." << name
                                << " (disabled_pass or opt_level), but code generation needs it: " << reason;
    }
  }
}

}  // namespace

Module Build(const IRModule& mod, const Target& target) {
  transform::PassContext pass_ctx = transform::PassContext::Current();
  CheckCodegenPassesEnabled(pass_ctx);
  IRModule lowered = tir::transform::DefaultTIRPipeline()(mod, pass_ctx);
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    if (mod->Lookup(gv).as<tir::PrimFuncNode>() == nullptr) continue;
    auto lowered_func = lowered->functions.Get(gv);
    TESSERA_CHECK_OR_THROW(lowered_func.has_value() && lowered_func->as<tir::PrimFuncNode>() != nullptr, ValueError)
        << "tvm.build: function " << gv->name_hint << " was removed by a pass of the lowering pipeline";
  }
  // The backend of the target's kind compiles the lowered module.
  return BuildForTarget(lowered, target);
}

TESSERA_REGISTER_GLOBAL("codegen.Build").set_body_typed([](IRModule mod, Target target) { return Build(mod, target); });
TESSERA_REGISTER_GLOBAL("codegen.Lower").set_body_typed([](IRModule mod) { return Lower(mod); });
TESSERA_REGISTER_GLOBAL("codegen.LowerPrimFunc").set_body_typed([](tir::PrimFunc f) { return LowerPrimFunc(f); });

}  // namespace codegen
}  // namespace tessera
