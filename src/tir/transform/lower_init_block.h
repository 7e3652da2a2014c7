// LowerInitBlock: turns a reduction block's `T.init()` into a guarded store
// at the start of its body, executed when every reduction iteration variable
// is at its first value; when a reduction extent may be 0, also a copy of the
// init over the spatial loops before the reduction loops, run when the
// domain is empty (sum over an empty axis is 0, not garbage). First lowering
// pass (blocks still present).
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc LowerInitBlock(PrimFunc func);

namespace transform {
// The pass form (registered as tir.transform.LowerInitBlock; opt_level 0).
tessera::transform::Pass LowerInitBlock();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
