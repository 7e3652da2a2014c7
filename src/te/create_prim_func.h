// te.create_prim_func: lowers a tensor-expression program to a TensorIR
// PrimFunc. The listed tensors become parameters (buffers bound in the
// buffer map; symbolic dimensions are matched from them), every ComputeOp
// becomes one block named after it under its own loop nest (reductions get
// an init), and computes not listed become alloc_buffers of the root block.
// TE layer, producing tir.
#pragma once

#include <optional>

#include "te/compute_op.h"
#include "tir/function.h"

namespace tessera {
namespace te {

// Raises ValueError naming the culprit for a tensor listed twice, a
// placeholder read but not listed, a variable a compute uses that is none of
// its axes (e.g. a reduce axis outside a reduction) nor a dimension variable
// of an argument. index_dtype_override (e.g. int64) retypes constant
// dimensions, loop and block variables and integer constants in indices;
// a symbolic dimension of another dtype raises NotImplementedError.
tir::PrimFunc CreatePrimFunc(const Array<Tensor>& args, std::optional<DataType> index_dtype_override = std::nullopt);

}  // namespace te
}  // namespace tessera
