// Which Relax variables an expression uses and defines (TVM's
// relax.analysis.free_vars / bound_vars / all_vars / all_global_vars), each
// in order of first appearance. Relax analysis layer; used by the Python
// analyses (python/tessera/relax/analysis) and by computable_at_compile_time.
#pragma once

#include <vector>

#include "relax/expr.h"

namespace tessera {
namespace relax {

// Vars used in `expr` but not defined in it (parameters and binding vars are definitions).
std::vector<Var> FreeVars(const RelaxExpr& expr);
// Vars defined in `expr`: function parameters and the vars of bindings.
std::vector<Var> BoundVars(const RelaxExpr& expr);
// Every var defined or used in `expr`.
std::vector<Var> AllVars(const RelaxExpr& expr);
// The GlobalVars referenced in `expr`.
std::vector<GlobalVar> AllGlobalVars(const RelaxExpr& expr);

}  // namespace relax
}  // namespace tessera
