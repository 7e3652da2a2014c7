// A small exact simplification used by the script parser: the extent of a
// slice `lo:hi` is hi - lo, and TVMScript writes it as `A[vi * 16:vi * 16 + 16]`,
// whose extent must come out as the constant 16 (as TVM's arith simplifier
// gives). Decided by arith's linear forms (arith/linear_form.h). Script
// parser internals.
#pragma once

#include "tir/expr.h"

namespace tessera {
namespace script {

// hi - lo: e when hi is written lo + e, folded to a constant when the
// difference is constant; otherwise the plain tir::sub(hi, lo).
PrimExpr SimplifiedDifference(const PrimExpr& hi, const PrimExpr& lo);

}  // namespace script
}  // namespace tessera
