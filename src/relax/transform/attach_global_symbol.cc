// AttachGlobalSymbol: every PrimFunc and Relax function of the module without
// a "global_symbol" attribute gets one naming it (its GlobalVar's name), which is
// the symbol the executable exports and R.call_dps_packed("name") finds.
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
          // A symbol the function already has is kept (as TVM): its GlobalVar's
          // name may differ (the BlockBuilder turns "f.x" into "f_x").
          if (auto old = func->attrs.Get("global_symbol"); old && old->as<StringObj>() != nullptr) continue;
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
