// Well-formedness of Relax IR (TVM's relax.analysis.well_formed): every var
// defined once and before use; dataflow vars only inside their dataflow
// block; symbolic dims bound (by parameters or match_cast) before use; pure
// functions and dataflow blocks free of impure calls; A-normal form; struct
// info present; called GlobalVars present in the module. Relax IR layer.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "relax/expr.h"

namespace tessera {
namespace relax {

// The violations found in `obj` (an IRModule or a relax Function), each a
// message naming the function and the binding; empty when well formed.
// `check_struct_info`: also require struct info on every expression.
std::vector<std::string> WellFormedErrors(const ObjectRef& obj, bool check_struct_info = true);
bool WellFormed(const ObjectRef& obj, bool check_struct_info = true);

}  // namespace relax
}  // namespace tessera
