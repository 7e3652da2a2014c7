// Postproc base, the default llvm set and the generic FFI entries (apply,
// initialize). Meta-schedule layer.
#include "meta_schedule/postproc/postproc.h"

#include "runtime/registry.h"

namespace tessera {
namespace meta_schedule {

TESSERA_REGISTER_OBJECT_TYPE(PostprocNode);

Array<Postproc> Postproc::DefaultLLVM() {
  std::vector<Postproc> out;
  for (const char* name : {"DisallowDynamicLoop", "RewriteParallelVectorizeUnroll", "RewriteReductionBlock"}) {
    if (std::optional<PackedFunc> ctor = Registry::Get(std::string("meta_schedule.Postproc") + name)) {
      out.push_back((*ctor)().cast<Postproc>());
    }
  }
  return Array<Postproc>(out);
}

TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocApply").set_body_typed([](Postproc p, tir::Schedule sch) {
  return p->Apply(sch);
});
TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocInitializeWithTarget")
    .set_body_typed([](Postproc p, Target target) { const_cast<PostprocNode*>(p.get())->InitializeWithTarget(target); });
TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocClone").set_body_typed([](Postproc p) { return p->Clone(); });
TESSERA_REGISTER_GLOBAL("meta_schedule.PostprocDefaultLLVM").set_body_typed([]() { return Postproc::DefaultLLVM(); });

}  // namespace meta_schedule
}  // namespace tessera
