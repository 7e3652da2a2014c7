// The build driver (see build_module.h).
#include "codegen/build_module.h"

#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/llvm_module.h"
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
  if (target->kind == "cuda") {
    TESSERA_THROW(NotImplementedError) << "CUDA code generation is not implemented yet (build with target=\"llvm\")";
  }
  transform::PassContext pass_ctx = transform::PassContext::Current();
  CheckCodegenPassesEnabled(pass_ctx);
  IRModule lowered = tir::transform::DefaultTIRPipeline()(mod, pass_ctx);
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("tessera", *ctx);
  ConfigureLLVMModule(module.get(), target);
  bool bound_check = false;
  if (auto flag = target->attrs.Get("bound-check")) bound_check = flag->try_cast<bool>().value_or(false);
  CodeGenLLVM cg(ctx.get(), module.get(), bound_check);
  std::vector<FunctionInfo> infos;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    BaseFunc f = mod->Lookup(gv);
    auto prim = f.as<tir::PrimFuncNode>();
    if (prim == nullptr) continue;  // non-TIR functions are compiled by their own layers
    tir::PrimFunc func = GetRef<tir::PrimFunc>(prim);
    std::string name = gv->name_hint;
    if (auto sym = func.GetAttr("global_symbol")) name = sym->try_cast<std::string>().value_or(name);
    for (const FunctionInfo& other : infos) {
      TESSERA_CHECK_OR_THROW(other.name != name, ValueError) << "two functions are named " << name;
    }
    auto lowered_func = lowered->functions.Get(gv);
    TESSERA_CHECK_OR_THROW(lowered_func.has_value() && lowered_func->as<tir::PrimFuncNode>() != nullptr, ValueError)
        << "tvm.build: function " << gv->name_hint << " was removed by a pass of the lowering pipeline";
    infos.push_back(cg.AddFunction(name, func, Downcast<tir::PrimFunc>(*lowered_func)));
  }
  return CreateLLVMModule(std::move(ctx), std::move(module), std::move(infos), target);
}

TESSERA_REGISTER_GLOBAL("codegen.Build").set_body_typed([](IRModule mod, Target target) { return Build(mod, target); });
TESSERA_REGISTER_GLOBAL("codegen.Lower").set_body_typed([](IRModule mod) { return Lower(mod); });
TESSERA_REGISTER_GLOBAL("codegen.LowerPrimFunc").set_body_typed([](tir::PrimFunc f) { return LowerPrimFunc(f); });

}  // namespace codegen
}  // namespace tessera
