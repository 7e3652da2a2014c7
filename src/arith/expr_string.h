// A compact infix rendering of TIR expressions (`i_0 * 4 + i_1`,
// `x // 4`, `min(a, b)`) for arith-layer error messages, independent of the
// TVMScript printer. Arith layer.
#pragma once

#include <string>

#include "tir/expr.h"

namespace tessera {
namespace arith {

std::string ExprToString(const PrimExpr& e);

}  // namespace arith
}  // namespace tessera
