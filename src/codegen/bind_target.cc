// The BindTarget pass (see bind_target.h).
#include "codegen/bind_target.h"

#include "runtime/registry.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace codegen {
namespace transform {

tessera::transform::Pass BindTarget(Target target) {
  return tir::transform::CreatePrimFuncPass(
      [target](tir::PrimFunc f, IRModule, tessera::transform::PassContext) {
        if (f.GetAttr("target")) return f;
        return WithAttr(f, "target", target);
      },
      0, "BindTarget");
}

}  // namespace transform

TESSERA_REGISTER_GLOBAL("tir.transform.BindTarget").set_body_typed([](Target target) {
  return transform::BindTarget(target);
});

}  // namespace codegen
}  // namespace tessera
