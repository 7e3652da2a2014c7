// NarrowIndexType: a device kernel whose 64-bit integers are all index
// arithmetic that provably fits in 32 bits (constant loop bounds, no 64-bit
// scalar parameters or buffer elements) computes it in int32, as TVM's
// NarrowDataType(32) does: Relax's shapes make every loop variable int64, and
// 64-bit multiplies and divisions are several instructions each on a GPU.
// Run by target.build.cuda on the kernels before code generation.
#pragma once

#include "ir/transform.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// `func` with its int64 index arithmetic in int32, or `func` unchanged when
// some int64 value is not such an index or its bound (arith's const_int_bound
// under the loops' ranges) leaves int32.
PrimFunc NarrowIndexType(PrimFunc func);

namespace transform {
// tir.transform.NarrowIndexType(): the pass form (every PrimFunc). opt_level 0.
tessera::transform::Pass NarrowIndexType();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
