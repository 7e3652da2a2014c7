// CompactBufferAllocation: shrinks each intermediate buffer to the region
// actually accessed and allocates it at the innermost loop enclosing all
// its accesses whose iterations touch disjoint elements, as do those of the
// loops above it (e.g. a cache_write tile becomes a per-tile register-sized
// array; a reduction's accumulator stays above the reduction loop). Thread-bound
// loops follow the buffer's storage scope: a "shared" buffer gets the region one
// thread block touches (blockIdx fixed, threadIdx/vthread relaxed), a "local"
// one what one thread touches, a "global" one stays outside them. Runs after
// LowerBlocks, before FlattenBuffer; unboundable regions stay as they are.
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
