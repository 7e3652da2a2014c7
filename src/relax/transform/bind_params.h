// relax.transform.BindParams: binds parameters of a relax function to
// constant NDArrays (by parameter name or Var), removing them from the
// signature; symbolic dims fixed by the arrays' shapes are substituted
// everywhere. Relax IR layer.
#pragma once

#include "ir/transform.h"
#include "relax/expr.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace relax {

// `params` maps a parameter name (String) or parameter Var to its value.
// Raises ValueError naming an unknown/ambiguous name or a shape that does
// not fit, TypeError for a dtype or kind mismatch.
Function BindParams(const Function& func, const Map<ObjectRef, NDArray>& params);

namespace transform {
tessera::transform::Pass BindParams(std::string func_name, Map<ObjectRef, NDArray> params);
}  // namespace transform

}  // namespace relax
}  // namespace tessera
