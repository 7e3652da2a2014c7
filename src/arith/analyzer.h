// Analyzer: the arith layer's front door. It keeps facts about variables
// (ranges from loops, values from lets) and answers questions about integer
// expressions: simplified form, constant bounds, modular facts, integer sets
// and provability of conditions. Schedule primitives and lowering passes
// create one per transformation and Bind the loop variables in scope.
#pragma once

#include <unordered_map>

#include "arith/const_int_bound.h"
#include "arith/int_set.h"
#include "arith/modular_set.h"
#include "tir/expr.h"

namespace tessera {
namespace arith {

class Analyzer {
 public:
  Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  ConstIntBoundAnalyzer const_int_bound;
  ModularSetAnalyzer modular_set;
  IntSetAnalyzer int_set;

  // var lies in [range.min, range.min + range.extent). An extent of 1 binds
  // var to range.min. A later Bind of the same variable replaces the fact.
  void Bind(const tir::Var& var, const Range& range, bool allow_override = false);
  // var equals `expr` (the simplifier substitutes it).
  void Bind(const tir::Var& var, const PrimExpr& expr, bool allow_override = false);
  void Bind(const Map<tir::Var, Range>& ranges, bool allow_override = false);

  // Simplifies `expr` (canonical sums, bound-driven division/comparison
  // folding); never changes its value. `steps` bounds the number of passes.
  PrimExpr Simplify(const PrimExpr& expr, int steps = 2);
  // Both names run the same engine; kept for TVM's API.
  PrimExpr RewriteSimplify(const PrimExpr& expr);
  PrimExpr CanonicalSimplify(const PrimExpr& expr);

  // True only when `cond` provably holds for every value of the variables.
  bool CanProve(const PrimExpr& cond);
  bool CanProveGreaterEqual(const PrimExpr& expr, int64_t lower_bound);
  bool CanProveLess(const PrimExpr& expr, int64_t upper_bound);
  bool CanProveEqual(const PrimExpr& lhs, const PrimExpr& rhs);

  // Proof of `expr <= 0` / `expr < 0` / `expr >= 0` / `expr > 0` by relaxing
  // variables with symbolic ranges (used by the simplifier after the
  // constant-bound test fails). `sign` is one of "<0", "<=0", ">=0", ">0".
  bool ProveBySymbolicRange(const PrimExpr& expr, const char* sign);

  // The value bound to `var` with Bind(var, expr), if any.
  const PrimExpr* LookupValue(const tir::Var& var) const;

 private:
  struct VarValue {
    tir::Var var;
    PrimExpr value;
  };
  std::unordered_map<const Object*, VarValue> var_values_;
  int symbolic_proof_depth_ = 0;
};

}  // namespace arith
}  // namespace tessera
