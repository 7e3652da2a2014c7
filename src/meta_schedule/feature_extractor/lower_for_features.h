// The lowering applied to a candidate before per-store features are read (as
// TVM's feature pass list, with what Tessera has): SimplifyForFeatureExtraction
// (unit serial loops dropped, their variables set to 0; selects without loads
// become 1; zero-extent loops vanish; a loop re-binding a launched thread of the
// same extent becomes that thread), LowerInitBlock, ConvertBlocksToOpaque,
// LowerOpaqueBlock, CompactBufferAllocation, then buffer indices simplified under
// the loop ranges. Buffers stay multi-dimensional (TVM does not flatten here).
#pragma once

#include "ir/module.h"
#include "tir/function.h"

namespace tessera {
namespace meta_schedule {

tir::PrimFunc SimplifyForFeatureExtraction(tir::PrimFunc func);

// Lowers every PrimFunc of `mod` (other functions are dropped). Raises the
// lowering passes' errors (e.g. ValueError for a malformed block).
IRModule LowerForFeatureExtraction(const IRModule& mod);

}  // namespace meta_schedule
}  // namespace tessera
