// What an outlined parallel loop body needs from its enclosing function: the
// variables its closure must carry. Shared by the CPU host generators (LLVM's
// CodeGenCPU, C's CodeGenCHost), which outline `parallel` loops into tasks
// run by TesseraParallelFor. Codegen layer.
#pragma once

#include <functional>
#include <vector>

#include "tir/stmt.h"

namespace tessera {
namespace codegen {

// The variables the body (and min) of the parallel loop `op` reads but does
// not define, loop variable excluded; with `bound_check`, also the symbolic
// sizes of the buffers it accesses (the checks compare indices with them)
// for which `is_defined` holds in the enclosing function.
std::vector<const tir::VarNode*> ParallelTaskCaptures(const tir::ForNode* op, bool bound_check,
                                                      const std::function<bool(const tir::VarNode*)>& is_defined);

}  // namespace codegen
}  // namespace tessera
