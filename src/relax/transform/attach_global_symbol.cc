// AttachGlobalSymbol: every PrimFunc and Relax function of the module gets the
// "global_symbol" of its GlobalVar's name (as TVM: an older symbol is replaced,
// so IRModule({"main": f}) exports f as "main"), the symbol the executable
// exports and R.call_dps_packed("name") finds.
// Last pass of relax.build's pipeline. A module "system_lib_prefix"
// attribute (renaming PrimFuncs) is refused: it is not supported yet.
#include "relax/expr.h"
#include "relax/transform/lowering.h"
#include "tir/function.h"

namespace tessera {
namespace relax {
namespace transform {

Pass AttachGlobalSymbol() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        if (auto prefix = mod->attrs.Get("system_lib_prefix")) {
          const auto* s = prefix->as<StringObj>();
          TESSERA_CHECK_OR_THROW(s == nullptr || s->data.empty(), NotImplementedError)
              << "AttachGlobalSymbol: module attribute 'system_lib_prefix' (\"" << (s ? s->data : "")
              << "\") is not supported";
        }
        IRModule result = mod.ShallowCopy();
        for (const auto& [gv, func] : mod->functions.items()) {
          if (!func->IsInstance<tir::PrimFuncNode>() && !func->IsInstance<FunctionNode>()) continue;
          if (auto old = func->attrs.Get("global_symbol"); old && old->as<StringObj>() != nullptr &&
                                                           old->as<StringObj>()->data == gv->name_hint) {
            continue;
          }
          result.mutable_node()->Update(gv, WithAttr(func, "global_symbol", Any(String(gv->name_hint))));
        }
        return result;
      },
      0, "AttachGlobalSymbol");
}
TESSERA_REGISTER_PASS("relax.transform.AttachGlobalSymbol", AttachGlobalSymbol);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
