// The default TIR lowering pipeline: one named Sequential of the passes in
// src/tir/transform, from scheduled TensorIR (blocks, multi-dimensional
// buffers) to the flat loop nests code generation takes. tvm.build runs it
// under the current PassContext; tvm.lower returns its result;
// docs/pipeline.md lists the passes and what each guarantees.
#pragma once

#include <string>
#include <vector>

#include "ir/transform.h"

namespace tessera {
namespace tir {
namespace transform {

// Sequential "tir.default_pipeline": LowerInitBlock, ConvertBlocksToOpaque,
// LowerOpaqueBlock, CompactBufferAllocation, LoopPartition, FlattenBuffer,
// VectorizeLoop, UnrollLoop.
tessera::transform::Sequential DefaultTIRPipeline();

// Passes of the pipeline that code generation cannot do without, with the
// reason (tvm.build refuses a PassContext that disables one of them).
const std::vector<std::pair<std::string, std::string>>& PassesRequiredForCodegen();

}  // namespace transform
}  // namespace tir
}  // namespace tessera
