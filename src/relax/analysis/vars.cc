// FreeVars, BoundVars, AllVars, AllGlobalVars (see vars.h).
#include "relax/analysis/vars.h"

#include <unordered_set>

#include "relax/expr_functor.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// An insertion-ordered set of objects (by identity).
template <typename T>
struct OrderedSet {
  std::vector<T> items;
  std::unordered_set<const Object*> seen;
  void Insert(const T& x) {
    if (seen.insert(x.get()).second) items.push_back(x);
  }
  bool Contains(const Object* x) const { return seen.count(x) != 0; }
};

class VarCollector : public ExprVisitor {
 public:
  OrderedSet<Var> all, bound;
  OrderedSet<GlobalVar> globals;

  void VisitExpr_(const VarNode* op) override { all.Insert(GetRef<Var>(op)); }
  void VisitExpr_(const GlobalVarNode* op) override { globals.Insert(GetRef<GlobalVar>(op)); }
  void VisitVarDef(const Var& var) override {
    all.Insert(var);
    bound.Insert(var);
  }
};

VarCollector Collect(const RelaxExpr& expr) {
  TESSERA_CHECK_OR_THROW(expr.defined(), TypeError) << "relax.analysis: expected a relax expression, got None";
  VarCollector c;
  c.VisitExpr(expr);
  return c;
}

}  // namespace

std::vector<Var> FreeVars(const RelaxExpr& expr) {
  VarCollector c = Collect(expr);
  std::vector<Var> out;
  for (const Var& v : c.all.items) {
    if (!c.bound.Contains(v.get())) out.push_back(v);
  }
  return out;
}
std::vector<Var> BoundVars(const RelaxExpr& expr) { return Collect(expr).bound.items; }
std::vector<Var> AllVars(const RelaxExpr& expr) { return Collect(expr).all.items; }
std::vector<GlobalVar> AllGlobalVars(const RelaxExpr& expr) { return Collect(expr).globals.items; }

TESSERA_REGISTER_GLOBAL("relax.analysis.free_vars").set_body_typed([](RelaxExpr e) { return Array<Var>(FreeVars(e)); });
TESSERA_REGISTER_GLOBAL("relax.analysis.bound_vars").set_body_typed([](RelaxExpr e) { return Array<Var>(BoundVars(e)); });
TESSERA_REGISTER_GLOBAL("relax.analysis.all_vars").set_body_typed([](RelaxExpr e) { return Array<Var>(AllVars(e)); });
TESSERA_REGISTER_GLOBAL("relax.analysis.all_global_vars").set_body_typed([](RelaxExpr e) {
  return Array<GlobalVar>(AllGlobalVars(e));
});

}  // namespace relax
}  // namespace tessera
