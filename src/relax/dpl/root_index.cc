// RootOpIndex (root_index.h): the root ops of a pattern are read through
// refinements (Attr/DataType/Shape/StructInfo), And (either side) and Or
// (both sides); a pattern whose root is not a call of a known op goes to
// the list tried for every expression.
#include "relax/dpl/root_index.h"

#include <algorithm>
#include <optional>

#include "runtime/stack_guard.h"

namespace tessera {
namespace relax {
namespace dpl {

namespace {

// The ops a match of `p` must call at its root; nullopt when not known.
std::optional<std::vector<const Object*>> RootOps(const DFPattern& p) {
  CheckStack("dataflow pattern root-op index");
  if (const auto* c = p.as<CallPatternNode>()) {
    if (const auto* e = c->op.as<ExprPatternNode>(); e && e->expr.as<OpNode>()) {
      return std::vector<const Object*>{e->expr.get()};
    }
    return std::nullopt;
  }
  if (const auto* a = p.as<AttrPatternNode>()) return RootOps(a->pattern);
  if (const auto* a = p.as<DataTypePatternNode>()) return RootOps(a->pattern);
  if (const auto* a = p.as<ShapePatternNode>()) return RootOps(a->pattern);
  if (const auto* a = p.as<StructInfoPatternNode>()) return RootOps(a->pattern);
  if (const auto* a = p.as<TypePatternNode>()) return RootOps(a->pattern);
  if (const auto* a = p.as<AndPatternNode>()) {
    auto l = RootOps(a->left);
    return l ? l : RootOps(a->right);
  }
  if (const auto* o = p.as<OrPatternNode>()) {
    auto l = RootOps(o->left), r = RootOps(o->right);
    if (!l || !r) return std::nullopt;
    l->insert(l->end(), r->begin(), r->end());
    return l;
  }
  return std::nullopt;
}

}  // namespace

void RootOpIndex::Add(int id, const DFPattern& pattern) {
  auto ops = RootOps(pattern);
  if (!ops) {
    any_.push_back(id);
    return;
  }
  for (const Object* op : *ops) {
    auto& ids = by_op_[op];
    if (ids.empty() || ids.back() != id) ids.push_back(id);
  }
}

std::vector<int> RootOpIndex::Candidates(const RelaxExpr& expr) const {
  std::vector<int> out = any_;
  if (const auto* call = expr.as<CallNode>()) {
    if (auto it = by_op_.find(call->op.get()); it != by_op_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  }
  return out;
}

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
