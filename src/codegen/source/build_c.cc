// The "c" backend: target.build.c emits every PrimFunc of a lowered IRModule
// as C (CodeGenCHost) and compiles it with the system C compiler into a
// CSourceModule. Registered with the backend registry (codegen/target_build.h).
// Codegen layer.
#include "codegen/source/c_source_module.h"
#include "codegen/source/codegen_c_host.h"
#include "ir/module.h"
#include "runtime/registry.h"

namespace tessera {
namespace codegen {

Module BuildC(const IRModule& mod, const Target& target) {
  CodeGenCHost cg(target);
  std::vector<FunctionInfo> infos;
  for (const GlobalVar& gv : mod->GetGlobalVars()) {
    auto prim = mod->Lookup(gv).as<tir::PrimFuncNode>();
    if (prim == nullptr) continue;  // non-TIR functions are compiled by their own layers
    tir::PrimFunc func = GetRef<tir::PrimFunc>(prim);
    std::string name = gv->name_hint;
    if (auto sym = func.GetAttr("global_symbol")) name = sym->try_cast<std::string>().value_or(name);
    for (const FunctionInfo& other : infos) {
      TESSERA_CHECK_OR_THROW(other.name != name, ValueError) << "two functions are named " << name;
    }
    infos.push_back(cg.AddFunction(name, func));
  }
  return CreateCSourceModule(cg.Finish(), std::move(infos), target);
}

TESSERA_REGISTER_GLOBAL("target.build.c").set_body_typed([](IRModule mod, Target target) {
  return BuildC(mod, target);
});

}  // namespace codegen
}  // namespace tessera
