// The "llvm" backend: target.build.llvm compiles every PrimFunc of a lowered
// IRModule for the CPU (CodeGenCPU), then optimizes and JIT-compiles the
// result into an LLVMModule. Registered with the backend registry
// (codegen/target_build.h). Codegen layer.
#include "codegen/llvm/codegen_cpu.h"
#include "codegen/llvm/llvm_module.h"
#include "ir/module.h"
#include "runtime/registry.h"

namespace tessera {
namespace codegen {

Module BuildLLVM(const IRModule& mod, const Target& target) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("tessera", *ctx);
  ConfigureLLVMModule(module.get(), target);
  CodeGenCPU cg(ctx.get(), module.get(), target);
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
    infos.push_back(cg.AddFunction(name, func));
  }
  return CreateLLVMModule(std::move(ctx), std::move(module), std::move(infos), target);
}

TESSERA_REGISTER_GLOBAL("target.build.llvm").set_body_typed([](IRModule mod, Target target) {
  return BuildLLVM(mod, target);
});

}  // namespace codegen
}  // namespace tessera
