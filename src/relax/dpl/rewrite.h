// Pattern rewriting of Relax functions (TVM v0.18's relax.dpl.rewrite_call):
// every binding whose value matches one of the patterns (tried through the
// root-op index, root_index.h) is replaced by the rewriter's result, repeated
// to a fixed point; trivial `y = x` bindings left by a rewrite are folded and
// unused bindings removed. Shared by rewrite_call and C++ passes.
#pragma once

#include <functional>

#include "relax/dpl/matcher.h"

namespace tessera {
namespace relax {
namespace dpl {

// Returns the replacement of `call` (or `call` itself: no change) given the matches of `pattern`.
using CallRewriter =
    std::function<RelaxExpr(const DFPattern& pattern, const RelaxExpr& call, const Map<DFPattern, RelaxExpr>& matches)>;

// Raises ValueError naming the binding and both struct infos when a replacement's struct info
// contradicts the original's (another dtype, rank or static shape).
Function RewriteCall(const std::vector<DFPattern>& patterns, const CallRewriter& rewriter, const Function& func);

// Throws ValueError when `replacement` cannot stand for `original` (struct infos incompatible); `what` names them.
void CheckReplacementStructInfo(const RelaxExpr& original, const RelaxExpr& replacement, const std::string& what);

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
