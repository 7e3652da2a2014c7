// The dataflow pattern matcher: does a Relax expression match a pattern
// (pattern.h), and what did each sub-pattern match? Variables are seen
// through to their bound values (a `lookup`, e.g. var2val or a builder's
// bindings), as TVM's matcher does given var2val. A pattern used twice must
// match the same expression (memoised per pattern, rolled back on failure).
// Used by pattern.match, rewrite_call, match_dfb and FuseOpsByPattern.
#pragma once

#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "relax/dpl/pattern.h"

namespace tessera {
namespace relax {
namespace dpl {

using VarLookup = std::function<std::optional<RelaxExpr>(const Var&)>;

// A lookup in a var -> value map (var2val).
VarLookup LookupIn(const Map<Var, RelaxExpr>& var2val);

class PatternMatcher {
 public:
  explicit PatternMatcher(VarLookup lookup = nullptr) : lookup_(std::move(lookup)) {}
  // Whether `expr` matches `pattern`; on success Matched() holds the match of every sub-pattern.
  bool Match(const DFPattern& pattern, const RelaxExpr& expr);
  // Each matched sub-pattern -> the expression as met (a var stays a var).
  Map<DFPattern, RelaxExpr> Matched() const;
  // The expression a sub-pattern matched, seen through bindings (nullopt: not matched).
  std::optional<RelaxExpr> MatchedValue(const DFPattern& pattern) const;
  // Follows vars to their bound values (and SeqExprs without blocks to their body).
  RelaxExpr Unwrap(RelaxExpr expr) const;

  // Number of top-level Match calls in this process (tests check the root-op index with it).
  static int64_t& Attempts();

 private:
  bool Visit(const DFPattern& pattern, const RelaxExpr& expr);
  bool VisitNode(const DFPattern& pattern, const RelaxExpr& expr, const RelaxExpr& orig);
  bool MatchCall(const CallPatternNode* p, const CallNode* call);
  bool MatchUnordered(const Array<DFPattern>& fields, const Array<RelaxExpr>& exprs, std::vector<bool>& used, size_t i);
  void Rollback(size_t watermark);

  struct Entry {
    RelaxExpr orig, value;
  };
  VarLookup lookup_;
  std::unordered_map<const Object*, Entry> memo_;
  std::vector<DFPattern> trail_;  // matched patterns in order (for rollback and Matched())
  int depth_ = 0;
};

// TVM's MatchExpr: whether `expr` matches `pattern`, seeing through `var2val`.
bool MatchExpr(const DFPattern& pattern, const RelaxExpr& expr, const Map<Var, RelaxExpr>& var2val = {});

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
