// Folding of the integer constant arithmetic that schedule primitives leave
// when they substitute a constant for a variable (a unit loop replaced by 0
// gives `0 * 6`, which prints as T.Mul(0, 6) and cannot be parsed back).
// Only integer Add/Sub/Mul/FloorDiv/FloorMod are rebuilt, through the folding
// constructors of tir/op.h; nothing else is rewritten. tir/schedule layer.
#pragma once

#include "tir/stmt.h"

namespace tessera {
namespace tir {

// `e` with its integer constant arithmetic folded (`0 * 6 + j` is `j`).
PrimExpr FoldIntConstants(const PrimExpr& e);

// `s` with the bindings (iter values) and predicates of the blocks realized
// in it folded; block bodies are left as they are.
Stmt FoldBindingConstants(const Stmt& s);

}  // namespace tir
}  // namespace tessera
