// Helpers shared by the Relax lowering passes of src/relax/transform:
// applying a rewrite to every Relax function of a module.
#pragma once

#include <functional>

#include "relax/expr.h"

namespace tessera {
namespace relax {

// A copy of `mod` in which every relax.Function is replaced by
// `rewrite(gv, func)` (other functions kept, module order kept). The input
// module is not modified.
inline IRModule UpdateRelaxFunctions(const IRModule& mod,
                                     const std::function<Function(const GlobalVar&, const Function&)>& rewrite) {
  IRModule result = mod.ShallowCopy();
  for (const auto& [gv, func] : mod->functions.items()) {
    const auto* relax_func = func.as<FunctionNode>();
    if (relax_func == nullptr) continue;
    Function updated = rewrite(gv, GetRef<Function>(relax_func));
    if (!updated.same_as(func)) result.mutable_node()->Update(gv, updated);
  }
  return result;
}

}  // namespace relax
}  // namespace tessera
