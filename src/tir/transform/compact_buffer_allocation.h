// CompactBufferAllocation: shrinks each intermediate buffer to the region
// actually accessed and allocates it at the innermost loop enclosing all
// its accesses whose iterations touch disjoint elements, as do those of the
// loops above it (e.g. a cache_write tile becomes a per-tile register-sized
// array; a reduction's accumulator stays above the reduction loop). Runs after
// LowerBlocks, before FlattenBuffer; buffers whose region cannot be bounded
// stay as they are.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc CompactBufferAllocation(PrimFunc func);

namespace transform {
// The pass form (registered as tir.transform.CompactBufferAllocation; opt_level 0).
tessera::transform::Pass CompactBufferAllocation();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
