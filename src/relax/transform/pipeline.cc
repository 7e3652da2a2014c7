// relax.build's lowering pipeline: the Sequential "relax.build_pipeline"
// (relax.get_pipeline("default_build")) of Normalize and the lowering
// passes of lowering.h, in order. VM code generation (src/relax/backend/vm)
// runs on its result.
#include "relax/transform/lowering.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace transform {

tessera::transform::Sequential DefaultBuildPipeline() {
  return tessera::transform::Sequential(
      {
          tessera::transform::GetPass("relax.transform.Normalize"),
          ToNonDataflow(),
          RemovePurityChecking(),
          CallTIRRewrite(),
          StaticPlanBlockMemory(),
          LowerAllocTensor(),
          VMBuiltinLower(),
          VMShapeLower(),
          AttachGlobalSymbol(),
      },
      "relax.build_pipeline");
}

TESSERA_REGISTER_GLOBAL("relax.transform.DefaultBuildPipeline").set_body_typed([]() {
  return DefaultBuildPipeline();
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
