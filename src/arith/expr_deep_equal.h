// Deep (structural) equality, hashing and a deterministic total order of
// TIR expressions, with variables compared by identity. Arith layer: the
// simplifier uses them to combine like terms and to sort factors; iter-map
// detection uses them to recognise repeated fused sums.
#pragma once

#include <cstddef>

#include "tir/expr.h"

namespace tessera {
namespace arith {

// True when `a` and `b` are the same expression tree (same node kinds,
// dtypes, constants and the very same Var objects).
bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b);

// A hash consistent with ExprDeepEqual.
size_t ExprDeepHash(const PrimExpr& e);

// A total order consistent with ExprDeepEqual (returns <0, 0, >0). Stable
// across runs for expressions whose variables have distinct names.
int ExprCompare(const PrimExpr& a, const PrimExpr& b);

struct ExprDeepHasher {
  size_t operator()(const PrimExpr& e) const { return ExprDeepHash(e); }
};
struct ExprDeepEqualTo {
  bool operator()(const PrimExpr& a, const PrimExpr& b) const { return ExprDeepEqual(a, b); }
};

}  // namespace arith
}  // namespace tessera
