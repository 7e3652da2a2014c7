// The build driver (see build_module.h).
#include "codegen/build_module.h"

#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/llvm_module.h"
#include "runtime/registry.h"
#include "tir/transform/compact_buffer_allocation.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/loop_partition.h"
#include "tir/transform/lower_blocks.h"
#include "tir/transform/lower_init_block.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/vectorize_loop.h"

namespace tessera {
namespace codegen {

tir::PrimFunc LowerPrimFunc(tir::PrimFunc func) {
  func = tir::LowerInitBlock(func);
  func = tir::LowerBlocks(func);
  func = tir::CompactBufferAllocation(func);
  func = tir::LoopPartition(func);
  func = tir::FlattenBuffer(func);
  func = tir::VectorizeLoop(func);
  func = tir::UnrollLoop(func);
  return func;
}

Module Build(const IRModule& mod, const Target& target) {
  if (target->kind == "cuda") {
    TESSERA_THROW(NotImplementedError) << "CUDA code generation is not implemented yet (build with target=\"llvm\")";
  }
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
    infos.push_back(cg.AddFunction(name, func, LowerPrimFunc(func)));
  }
  return CreateLLVMModule(std::move(ctx), std::move(module), std::move(infos), target);
}

TESSERA_REGISTER_GLOBAL("codegen.Build").set_body_typed([](IRModule mod, Target target) { return Build(mod, target); });
TESSERA_REGISTER_GLOBAL("codegen.LowerPrimFunc").set_body_typed([](tir::PrimFunc f) { return LowerPrimFunc(f); });

}  // namespace codegen
}  // namespace tessera
