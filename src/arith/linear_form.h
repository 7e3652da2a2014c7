// Linear-form decomposition of integer expressions: e = constant +
// sum(coefficient * atom), through +, - and multiplication by a constant;
// anything else is an atom, atoms compared with ExprDeepEqual (variables by
// identity). Arith layer; the one decomposition used to decide that two
// index expressions differ by a constant (x*4 + y + 3 - (x*4 + y) == 3).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "tir/expr.h"

namespace tessera {
namespace arith {

struct LinearForm {
  int64_t constant = 0;
  // Atoms in first-seen order; coefficients are never zero.
  std::vector<std::pair<PrimExpr, int64_t>> terms;

  bool IsConstant() const { return terms.empty(); }
  // Adds coeff * atom; false on int64 overflow (the form is then unusable).
  bool AddTerm(const PrimExpr& atom, int64_t coeff);
  // Adds scale * other; false on int64 overflow.
  bool AddScaled(const LinearForm& other, int64_t scale);
  // The form as an expression of dtype `t` (atoms in order, constant last).
  PrimExpr ToExpr(DataType t) const;
};

// The linear form of `e`; nullopt on int64 overflow or a non-integer dtype.
std::optional<LinearForm> ToLinearForm(const PrimExpr& e);

// The linear form of a - b; nullopt as ToLinearForm.
std::optional<LinearForm> LinearDifference(const PrimExpr& a, const PrimExpr& b);

// a - b as a constant when the difference is one; nullopt otherwise.
std::optional<int64_t> ConstantDifference(const PrimExpr& a, const PrimExpr& b);

}  // namespace arith
}  // namespace tessera
