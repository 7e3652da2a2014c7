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

// The constraints of a context: its patterns (in order), use edges, and groups of
// patterns whose vars must have provably equal shapes (same_shape_as).
struct GraphPattern {
  std::vector<DFPattern> nodes;
  std::vector<UseEdge> edges;
  std::vector<std::vector<DFPattern>> same_shape;
};

std::optional<Map<DFPattern, Var>> MatchDataflowBlock(const GraphPattern& graph, const DataflowBlock& block);

// New values for some of the matched bound vars, given the matches and the block's var2val.
using BindingsRewriter = std::function<Map<Var, RelaxExpr>(const Map<DFPattern, Var>&, const Map<Var, RelaxExpr>&)>;

Function RewriteBindings(const GraphPattern& graph, const BindingsRewriter& rewriter, const Function& func);

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
