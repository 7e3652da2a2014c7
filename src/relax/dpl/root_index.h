// Patterns indexed by their root op (as tinygrad's PatternMatcher and MLIR's
// root-op patterns): a call is tried only against the patterns whose root can
// be a call of its op, plus the patterns without a known root op. Used by
// rewrite_call (an OrPattern under the union of its alternatives' ops) and
// FuseOpsByPattern.
#pragma once

#include <unordered_map>
#include <vector>

#include "relax/dpl/pattern.h"

namespace tessera {
namespace relax {
namespace dpl {

class RootOpIndex {
 public:
  // Adds `pattern` under `id` (ids are returned in the order added).
  void Add(int id, const DFPattern& pattern);
  // The ids of the patterns that may match `expr`, in the order added.
  std::vector<int> Candidates(const RelaxExpr& expr) const;

 private:
  std::unordered_map<const Object*, std::vector<int>> by_op_;
  std::vector<int> any_;
};

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
