// DisallowDynamicLoop (`ms.postproc.DisallowDynamicLoop`): rejects a
// candidate whose module has a loop with a non-constant extent, as TVM's.
// The check and its FFI entry; the interface is verify_postproc.h.
// MetaSchedule layer.
#include "meta_schedule/postproc/verify_postproc.h"

#include "runtime/registry.h"
#include "tir/function.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {

bool CheckNoDynamicLoop(const IRModule& mod, std::string* why) {
  for (const auto& [gv, base] : mod->functions.items()) {
    const auto* func = base.as<tir::PrimFuncNode>();
    if (func == nullptr) continue;
    const tir::ForNode* dynamic = nullptr;
    tir::PostOrderVisit(func->body, [&](const ObjectRef& n) {
      const auto* loop = n.as<tir::ForNode>();
      if (loop != nullptr && dynamic == nullptr && loop->extent.as<IntImmNode>() == nullptr) dynamic = loop;
    });
    if (dynamic != nullptr) {
      if (why) *why = "loop " + dynamic->loop_var->name_hint + " of " + gv->name_hint + " has a non-constant extent";
      return false;
    }
  }
  return true;
}

// [ok, reason]
TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocDisallowDynamicLoopCheck").set_body_typed([](IRModule mod) {
  std::string why;
  bool ok = CheckNoDynamicLoop(mod, &why);
  return Array<Any>{ok, why};
});

}  // namespace meta_schedule
}  // namespace tessera
