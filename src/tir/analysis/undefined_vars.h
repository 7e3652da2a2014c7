// UndefinedVars: the variables a statement reads but does not define (loop
// variables, let bindings and allocations inside it are defined; buffer data
// pointers count as reads), in first-use order, as TVM's
// tir.analysis.undefined_vars. TIR analysis; used to outline code into
// functions (parallel tasks in codegen_cpu.cc, device kernels in
// codegen/split_host_device.cc).
#pragma once

#include <vector>

#include "tir/stmt.h"

namespace tessera {
namespace tir {

// Free variables of `exprs` (visited first) and `stmt`.
std::vector<Var> UndefinedVars(const Stmt& stmt, const std::vector<PrimExpr>& exprs = {});

}  // namespace tir
}  // namespace tessera
