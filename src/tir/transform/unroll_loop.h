// UnrollLoop: replaces `T.unroll` loops with a constant extent by copies of
// their body (one per iteration, the loop variable substituted). Runs after
// FlattenBuffer; loops with symbolic or very large extents stay loops.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc UnrollLoop(PrimFunc func, int max_extent = 256);

namespace transform {
// The pass form (registered as tir.transform.UnrollLoop; opt_level 0).
tessera::transform::Pass UnrollLoop();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
