// The expression simplifier behind Analyzer::Simplify. Integer index
// expressions are put in a canonical sum-of-products form (like terms
// combined, terms ordered by decreasing coefficient, e.g. `i_0 * 4 + i_1`);
// floordiv/floormod, min/max and comparisons are folded with the bounds the
// Analyzer knows; constants fold everywhere. Arith layer.
#pragma once

#include "tir/expr.h"

namespace tessera {
namespace arith {

class Analyzer;

// One bottom-up simplification pass over `expr` using `analyzer`'s facts.
PrimExpr SimplifyOnce(const PrimExpr& expr, Analyzer* analyzer);

}  // namespace arith
}  // namespace tessera
