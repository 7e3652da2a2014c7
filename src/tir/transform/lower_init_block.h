// LowerInitBlock: turns a reduction block's `T.init()` into a guarded store
// at the start of its body, executed when every reduction iteration variable
// is at its first value. First lowering pass (blocks still present).
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
