// VectorizeLoop: turns `T.vectorized` loops into vector statements (Ramp
// indices, Broadcast scalars, vector loads/stores). Extents wider than a
// vector register become a vector loop plus a scalar tail; bodies that
// cannot be vectorized safely (inner loops, reductions into one location,
// external calls, data-dependent control flow) stay serial loops — never a
// wrong answer. Runs after FlattenBuffer.
#pragma once

#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc VectorizeLoop(PrimFunc func);

}  // namespace tir
}  // namespace tessera
