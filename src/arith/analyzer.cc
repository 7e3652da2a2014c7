// Analyzer (see analyzer.h): routes variable facts to the sub-analyzers and
// combines them to simplify and prove.
#include "arith/analyzer.h"

#include "arith/canonical_simplify.h"
#include "arith/expr_deep_equal.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace arith {

using namespace tir;

Analyzer::Analyzer() : const_int_bound(this), modular_set(this), int_set(this) {}

void Analyzer::Bind(const Var& var, const Range& range, bool allow_override) {
  TESSERA_CHECK_OR_THROW(var.defined() && range.defined(), ValueError) << "Analyzer.bind: undefined argument";
  if (IsConstInt(range->extent, 1)) {
    Bind(var, range->min, allow_override);
    return;
  }
  var_values_.erase(var.get());
  const_int_bound.Bind(var, range, allow_override);
  // Symbolic ranges are kept as integer sets for proofs constant bounds cannot make.
  if (!AsConstInt(range->min) || !AsConstInt(range->extent)) {
    int_set.Bind(var, range, allow_override);
  } else {
    int_set.Unbind(var);
  }
}

void Analyzer::Bind(const Var& var, const PrimExpr& expr, bool allow_override) {
  TESSERA_CHECK_OR_THROW(var.defined() && expr.defined(), ValueError) << "Analyzer.bind: undefined argument";
  PrimExpr value = Simplify(expr);
  var_values_[var.get()] = VarValue{var, value};
  if (value.dtype().is_int() || value.dtype().is_uint()) {
    const_int_bound.Update(var, const_int_bound.Eval(value));
    ModularEntry m = modular_set.Eval(value);
    modular_set.Update(var, ModularSet(m.coeff, m.base));
  }
  int_set.Unbind(var);
}

void Analyzer::Bind(const Map<Var, Range>& ranges, bool allow_override) {
  for (const auto& [v, r] : ranges.items()) Bind(v, r, allow_override);
}

const PrimExpr* Analyzer::LookupValue(const Var& var) const {
  auto it = var_values_.find(var.get());
  return it == var_values_.end() ? nullptr : &it->second.value;
}

PrimExpr Analyzer::Simplify(const PrimExpr& expr, int steps) {
  TESSERA_CHECK_OR_THROW(expr.defined(), ValueError) << "simplify: expression is undefined (None)";
  PrimExpr cur = expr;
  for (int i = 0; i < std::max(steps, 1); ++i) {
    PrimExpr next = SimplifyOnce(cur, this);
    if (ExprDeepEqual(next, cur)) return next;
    cur = next;
  }
  return cur;
}

PrimExpr Analyzer::RewriteSimplify(const PrimExpr& expr) { return Simplify(expr); }
PrimExpr Analyzer::CanonicalSimplify(const PrimExpr& expr) { return Simplify(expr); }

bool Analyzer::CanProve(const PrimExpr& cond) {
  TESSERA_CHECK_OR_THROW(cond.defined(), ValueError) << "can_prove: condition is undefined (None)";
  PrimExpr s = Simplify(cond);
  if (const int64_t* v = AsConstInt(s)) return *v != 0;
  if (const auto* a = s.as<AndNode>()) return CanProve(a->a) && CanProve(a->b);
  if (const auto* o = s.as<OrNode>()) return CanProve(o->a) || CanProve(o->b);
  return false;
}

bool Analyzer::CanProveGreaterEqual(const PrimExpr& expr, int64_t lower_bound) {
  if (const_int_bound.Eval(expr).min_value >= lower_bound) return true;
  if (!expr.dtype().is_int()) return false;
  return CanProve(greater_equal(expr, IntImm(expr.dtype(), lower_bound)));
}

bool Analyzer::CanProveLess(const PrimExpr& expr, int64_t upper_bound) {
  if (const_int_bound.Eval(expr).max_value < upper_bound) return true;
  if (!expr.dtype().is_int()) return false;
  return CanProve(less(expr, IntImm(expr.dtype(), upper_bound)));
}

bool Analyzer::CanProveEqual(const PrimExpr& lhs, const PrimExpr& rhs) {
  TESSERA_CHECK_OR_THROW(lhs.defined() && rhs.defined(), ValueError) << "can_prove_equal: undefined argument";
  if (ExprDeepEqual(lhs, rhs)) return true;
  PrimExpr d = Simplify(sub(lhs, rhs));
  return IsConstInt(d, 0) || (d.as<FloatImmNode>() && d.as<FloatImmNode>()->value == 0.0);
}

bool Analyzer::ProveBySymbolicRange(const PrimExpr& expr, const char* sign) {
  if (symbolic_proof_depth_ > 0 || int_set.empty()) return false;
  // Only worth it when the expression mentions a symbolically ranged variable.
  bool relevant = false;
  PostOrderVisit(expr, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>()) relevant = relevant || int_set.Has(GetRef<Var>(v));
  });
  if (!relevant) return false;
  struct Guard {
    int& d;
    explicit Guard(int& x) : d(x) { ++d; }
    ~Guard() { --d; }
  } guard(symbolic_proof_depth_);
  IntSet s = int_set(expr);
  std::string k = sign;
  if (k == "<0" || k == "<=0") {
    if (!s.HasUpperBound()) return false;
    BoundEntry b = const_int_bound.Eval(s.max());
    return k == "<0" ? b.max_value < 0 : b.max_value <= 0;
  }
  if (!s.HasLowerBound()) return false;
  BoundEntry b = const_int_bound.Eval(s.min());
  return k == ">0" ? b.min_value > 0 : b.min_value >= 0;
}

}  // namespace arith
}  // namespace tessera
