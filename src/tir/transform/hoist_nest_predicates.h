// HoistNestPredicates: in a perfect loop nest whose innermost statement is a
// guard `if c1 and c2 and ...` (a block predicate after LowerOpaqueBlock),
// each clause moves to just inside the innermost loop whose variable it
// reads, so a false clause skips the whole subtree below it (a nest made by
// splitting a loop again and again no longer runs every combination of its
// unit loops). TIR lowering pass, run before LoopPartition.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc HoistNestPredicates(PrimFunc func);

namespace transform {
// The pass form (registered as tir.transform.HoistNestPredicates; opt_level 0).
tessera::transform::Pass HoistNestPredicates();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
