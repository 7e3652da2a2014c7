// The default TIR lowering pipeline (see pipeline.h).
#include "tir/transform/pipeline.h"

#include "runtime/registry.h"
#include "tir/transform/compact_buffer_allocation.h"
#include "tir/transform/convert_blocks_to_opaque.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/hoist_nest_predicates.h"
#include "tir/transform/loop_partition.h"
#include "tir/transform/lower_cross_thread_reduction.h"
#include "tir/transform/make_packed_api.h"
#include "tir/transform/lower_init_block.h"
#include "tir/transform/lower_opaque_block.h"
#include "tir/transform/unroll_loop.h"
#include "tir/transform/vectorize_loop.h"

namespace tessera {
namespace tir {
namespace transform {

tessera::transform::Sequential DefaultTIRPipeline() {
  return tessera::transform::Sequential(
      {
          LowerCrossThreadReduction(),
          LowerInitBlock(),
          ConvertBlocksToOpaque(),
          LowerOpaqueBlock(),
          CompactBufferAllocation(),
          HoistNestPredicates(),
          LoopPartition(),
          FlattenBuffer(),
          VectorizeLoop(),
          UnrollLoop(),
          MakePackedAPI(),
      },
      "tir.default_pipeline");
}

const std::vector<std::pair<std::string, std::string>>& PassesRequiredForCodegen() {
  static const std::vector<std::pair<std::string, std::string>> passes = {
      {"LowerInitBlock", "reduction blocks must have their init lowered"},
      {"LowerOpaqueBlock", "code generation takes loop nests without blocks"},
      {"FlattenBuffer", "code generation takes one-dimensional buffer accesses"},
      {"MakePackedAPI", "code generation reads the calling convention it records"},
  };
  return passes;
}

TESSERA_REGISTER_GLOBAL("tir.get_default_tir_pipeline").set_body_typed([]() { return DefaultTIRPipeline(); });

}  // namespace transform
}  // namespace tir
}  // namespace tessera
