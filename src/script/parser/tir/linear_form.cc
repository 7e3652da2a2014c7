// Linear-form comparison of slice bounds (see linear_form.h). Part of the TIR
// dialect of the script parser (parser/tir).
#include "script/parser/tir/linear_form.h"

#include "arith/expr_deep_equal.h"
#include "arith/linear_form.h"
#include "tir/op.h"

namespace tessera {
namespace script {

PrimExpr SimplifiedDifference(const PrimExpr& hi, const PrimExpr& lo) {
  // `lo:lo + e`, as the printer writes a region of extent e: e exactly, so that
  // print -> parse is a fixed point whatever e is.
  if (const auto* add = hi.as<tir::AddNode>()) {
    if (arith::ExprDeepEqual(add->a, lo)) return add->b;
  }
  PrimExpr plain = tir::sub(hi, lo);
  if (AsConstInt(plain) != nullptr || !plain.dtype().is_scalar() ||
      !(plain.dtype().is_int() || plain.dtype().is_uint())) {
    return plain;
  }
  if (std::optional<int64_t> d = arith::ConstantDifference(hi, lo)) return IntImm(plain.dtype(), *d);
  return plain;
}

}  // namespace script
}  // namespace tessera
