// LoopPartition: splits a loop whose body holds conditions (e.g. the
// predicate of a non-dividing split, `i_0 * 4 + i_1 < 10`) into a first
// part where every condition provably holds — compiled without the checks —
// and the rest, which keeps them. Runs after LowerBlocks (predicates are
// `if`s by then), before FlattenBuffer.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc LoopPartition(PrimFunc func);

namespace transform {
// The pass form (registered as tir.transform.LoopPartition; opt_level 2).
tessera::transform::Pass LoopPartition();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
