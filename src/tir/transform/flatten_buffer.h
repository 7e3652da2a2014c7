// FlattenBuffer: rewrites every multi-dimensional buffer access into a
// one-dimensional access `data[elem_offset + sum(index_i * stride_i)]`
// (strides from the buffer, or row-major from its shape), and Allocate
// extents into a single element count. Runs after LowerBlocks; code
// generation sees only 1-D buffers. A buffer with axis_separators becomes an
// N-d buffer, one axis per group (as TVM's); the CPU backend refuses those.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

PrimFunc FlattenBuffer(PrimFunc func);

// The row-major (or explicit-stride) flat index of `indices` into `buffer`.
PrimExpr FlatIndex(const Buffer& buffer, const Array<PrimExpr>& indices);

namespace transform {
// The pass form (registered as tir.transform.FlattenBuffer; opt_level 0).
tessera::transform::Pass FlattenBuffer();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
