// VectorizeLoop: turns `T.vectorized` loops into vector statements (Ramp
// indices, Broadcast scalars, vector loads/stores). Extents wider than a
// vector register become a vector loop plus a scalar tail; bodies that
// cannot be vectorized safely (inner loops, reductions into one location,
// external calls, data-dependent control flow) stay serial loops — never a
// wrong answer. Runs after FlattenBuffer.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// With enable_vectorize false, vectorized loops become serial loops. With
// loop_ranges (the default), a vector access's // and % fold with the enclosing
// loops' ranges, so a reshape+transpose's flat index stays one contiguous ramp.
PrimFunc VectorizeLoop(PrimFunc func, bool enable_vectorize = true, bool loop_ranges = true);

namespace transform {
// The pass form (tir.transform.VectorizeLoop, opt_level 0). TVM's signature:
// VectorizeLoop(enable_vectorize=True); PassContext config
// "tir.disable_vectorize" (bool) also turns vectorization off;
// "tir.vectorize_loop_ranges" (bool, default true) false: indices fold without
// the enclosing loops' ranges (as before; for measuring it).
tessera::transform::Pass VectorizeLoop(bool enable_vectorize = true);
}  // namespace transform

}  // namespace tir
}  // namespace tessera
