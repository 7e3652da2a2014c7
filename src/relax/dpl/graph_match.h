// Graph matching over a dataflow block (TVM v0.18's PatternContext.match_dfb):
// assign each pattern of a context a distinct var of the block (a bound var,
// or a free var it uses) that the pattern matches, such that every
// used_by / only_used_by edge holds. Backtracking in the order the patterns
// were constrained. RewriteBindings (rewrite_bindings) repeats match ->
// rewriter -> rebuild on each dataflow block.
#pragma once

#include <functional>

#include "relax/dpl/matcher.h"

namespace tessera {
namespace relax {
namespace dpl {

// `src` used by `dst` (as its `index`-th var operand; -1 any); `only`: dst is src's only user.
struct UseEdge {
  DFPattern src, dst;
  int index = -1;
  bool only = false;
};

std::optional<Map<DFPattern, Var>> MatchDataflowBlock(const std::vector<DFPattern>& nodes,
                                                      const std::vector<UseEdge>& edges, const DataflowBlock& block);

// New values for some of the matched bound vars, given the matches and the block's var2val.
using BindingsRewriter = std::function<Map<Var, RelaxExpr>(const Map<DFPattern, Var>&, const Map<Var, RelaxExpr>&)>;

Function RewriteBindings(const std::vector<DFPattern>& nodes, const std::vector<UseEdge>& edges,
                         const BindingsRewriter& rewriter, const Function& func);

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
