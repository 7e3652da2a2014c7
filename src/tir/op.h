// Checked expression builders: arithmetic, comparison and logic with TVM's
// type promotion (int -> float, narrower -> wider, scalar -> vector) and
// constant folding of immediate operands; casts; intrinsic calls
// (exp, sqrt, if_then_else, call_extern, ...). TIR layer. The Python
// operators and the TVMScript parser build expressions through these.
#pragma once

#include <vector>

#include "tir/expr.h"

namespace tessera {
namespace tir {

// Promotes `a` and `b` to a common dtype (raises TypeError when impossible).
void BinaryOpMatchTypes(PrimExpr& a, PrimExpr& b, const char* op);

PrimExpr cast(DataType t, PrimExpr value, Span span = Span());  // folds constants
PrimExpr add(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr sub(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr mul(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr neg(PrimExpr a, Span span = Span());
// |a|: fabs for floats, the identity for unsigned integers and bool, a >= 0 ? a : -a
// (wrapping: abs(INT_MIN) == INT_MIN, as in NumPy) for signed integers.
PrimExpr abs(PrimExpr a, Span span = Span());
// `/`: float division for floats; truncating division for integers (TVM's div).
PrimExpr div(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr truncdiv(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr truncmod(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr floordiv(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr floormod(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr min(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr max(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr equal(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr not_equal(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr less(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr less_equal(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr greater(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr greater_equal(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr logical_and(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr logical_or(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr logical_not(PrimExpr a, Span span = Span());
PrimExpr bitwise_and(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr bitwise_or(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr bitwise_xor(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr bitwise_not(PrimExpr a, Span span = Span());
PrimExpr left_shift(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr right_shift(PrimExpr a, PrimExpr b, Span span = Span());
PrimExpr pow(PrimExpr a, PrimExpr b, Span span = Span());
// Select-like conditional call (tir.if_then_else): only the taken branch is evaluated.
PrimExpr if_then_else(PrimExpr cond, PrimExpr t, PrimExpr f, Span span = Span());
// A call of intrinsic `op_name` ("tir.exp") with result dtype `dtype`.
PrimExpr CallIntrin(DataType dtype, const std::string& op_name, Array<PrimExpr> args, Span span = Span());
// Unary float intrinsic (exp, log, sqrt, ...) on `x` (ints are cast to float32 first).
PrimExpr UnaryMath(const std::string& name, PrimExpr x, Span span = Span());

// The conjuncts of a predicate `a && b && ...`, left to right (iterative: a
// chain of any depth).
std::vector<PrimExpr> SplitConjuncts(const PrimExpr& pred);

PrimExpr max_value(DataType t);
PrimExpr min_value(DataType t);

// Convenience operators for C++ code.
inline PrimExpr operator+(PrimExpr a, PrimExpr b) { return add(std::move(a), std::move(b)); }
inline PrimExpr operator-(PrimExpr a, PrimExpr b) { return sub(std::move(a), std::move(b)); }
inline PrimExpr operator*(PrimExpr a, PrimExpr b) { return mul(std::move(a), std::move(b)); }
inline PrimExpr operator-(PrimExpr a) { return neg(std::move(a)); }
inline PrimExpr operator<(PrimExpr a, PrimExpr b) { return less(std::move(a), std::move(b)); }
inline PrimExpr operator<=(PrimExpr a, PrimExpr b) { return less_equal(std::move(a), std::move(b)); }
inline PrimExpr operator>(PrimExpr a, PrimExpr b) { return greater(std::move(a), std::move(b)); }
inline PrimExpr operator>=(PrimExpr a, PrimExpr b) { return greater_equal(std::move(a), std::move(b)); }
inline PrimExpr operator&&(PrimExpr a, PrimExpr b) { return logical_and(std::move(a), std::move(b)); }
inline PrimExpr operator||(PrimExpr a, PrimExpr b) { return logical_or(std::move(a), std::move(b)); }
inline PrimExpr operator!(PrimExpr a) { return logical_not(std::move(a)); }

}  // namespace tir
}  // namespace tessera
