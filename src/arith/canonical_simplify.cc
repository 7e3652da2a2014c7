// The simplifier (see canonical_simplify.h). Integer scalar arithmetic is
// rewritten through a linear form Sum = sum(coeff_i * atom_i) + base, where
// atoms are variables, products of non-constant factors, divisions, loads,
// calls, ...; everything else is simplified node by node with rules that
// use the Analyzer's constant bounds, modular facts and symbolic ranges.
#include "arith/canonical_simplify.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "arith/analyzer.h"
#include "arith/int_operator.h"
#include "arith/expr_deep_equal.h"
#include "tir/buffer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace arith {
namespace {

// Whether `var` may occur in `expr`, looking at no more than kLetUseBudget nodes: a larger
// expression counts as using it (keeping a Let is always correct). This keeps simplifying a
// chain of n nested Lets linear; an exact walk of each body made it quadratic.
constexpr int kLetUseBudget = 512;

class BoundedVarUse : public tir::ExprVisitor {
 public:
  explicit BoundedVarUse(const tir::VarNode* var) : var_(var) {}
  bool found() const { return found_; }
  void VisitExpr(const PrimExpr& e) override {
    if (found_) return;
    if (--budget_ < 0 || e.get() == var_) {
      found_ = true;
      return;
    }
    tir::ExprVisitor::VisitExpr(e);
  }

 private:
  const tir::VarNode* var_;
  int budget_ = kLetUseBudget;
  bool found_ = false;
};

bool MayUseVar(const PrimExpr& expr, const tir::VarNode* var) {
  BoundedVarUse v(var);
  v.VisitExpr(expr);
  return v.found();
}

using namespace tir;

bool IsIndexType(DataType t) { return t.is_int() && t.is_scalar(); }

int64_t Gcd(int64_t a, int64_t b) { return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b); }

bool FitsType(DataType t, int64_t v) {
  BoundEntry b = TypeBound(t);
  return v >= b.min_value && v <= b.max_value;
}

PrimExpr Const(DataType t, int64_t v) { return IntImm(t, v); }
PrimExpr BoolConst(bool v) { return IntImm(DataType::Bool(), v ? 1 : 0); }
bool IsInfBound(int64_t v) { return v == ConstIntBound::kPosInf || v == ConstIntBound::kNegInf; }

// coeff * atom.
struct Term {
  PrimExpr atom;
  int64_t coeff;
};

// sum(terms) + base, all of one integer dtype. `overflow` marks a sum whose
// coefficients left int64 (it is then not used).
struct Sum {
  DataType dtype;
  std::vector<Term> terms;
  int64_t base = 0;
  bool overflow = false;

  explicit Sum(DataType t) : dtype(t) {}
  bool IsConst() const { return terms.empty(); }

  void AddBase(int64_t v) {
    if (__builtin_add_overflow(base, v, &base)) overflow = true;
  }
  void AddTerm(const PrimExpr& atom, int64_t c) {
    if (c == 0) return;
    for (auto it = terms.begin(); it != terms.end(); ++it) {
      if (ExprDeepEqual(it->atom, atom)) {
        if (__builtin_add_overflow(it->coeff, c, &it->coeff)) overflow = true;
        if (it->coeff == 0) terms.erase(it);
        return;
      }
    }
    terms.push_back({atom, c});
  }
  void AddSum(const Sum& o, int64_t scale) {
    if (o.overflow) overflow = true;
    for (const Term& t : o.terms) {
      int64_t c;
      if (__builtin_mul_overflow(t.coeff, scale, &c)) overflow = true;
      AddTerm(t.atom, c);
    }
    int64_t b;
    if (__builtin_mul_overflow(o.base, scale, &b)) overflow = true;
    AddBase(b);
  }
};

// Non-constant factors of a product, flattened.
void CollectFactors(const PrimExpr& e, std::vector<PrimExpr>* out) {
  CheckStack("expression");
  if (const auto* m = e.as<MulNode>()) {
    if (!AsConstInt(m->a) && !AsConstInt(m->b)) {
      CollectFactors(m->a, out);
      CollectFactors(m->b, out);
      return;
    }
  }
  out->push_back(e);
}

// The product of two atoms with its factors in a canonical order.
PrimExpr MulAtoms(const PrimExpr& a, const PrimExpr& b) {
  std::vector<PrimExpr> f;
  CollectFactors(a, &f);
  CollectFactors(b, &f);
  std::stable_sort(f.begin(), f.end(), [](const PrimExpr& x, const PrimExpr& y) { return ExprCompare(x, y) < 0; });
  PrimExpr r = f[0];
  for (size_t i = 1; i < f.size(); ++i) r = Mul(r, f[i]);
  return r;
}

class Simplifier : public ExprMutator {
 public:
  explicit Simplifier(Analyzer* analyzer) : analyzer_(analyzer) {}
  using ExprMutator::VisitExpr;

  // ---- linear form ------------------------------------------------------
  Sum ToSum(const PrimExpr& e) {
    Sum s(e.dtype());
    Accumulate(&s, e, 1);
    return s;
  }

  void Accumulate(Sum* s, const PrimExpr& e, int64_t scale) {
    CheckStack("expression");
    if (const int64_t* v = AsConstInt(e)) {
      int64_t x;
      if (__builtin_mul_overflow(*v, scale, &x)) s->overflow = true;
      s->AddBase(x);
    } else if (const auto* op = e.as<AddNode>()) {
      Accumulate(s, op->a, scale);
      Accumulate(s, op->b, scale);
    } else if (const auto* op = e.as<SubNode>()) {
      Accumulate(s, op->a, scale);
      Accumulate(s, op->b, -scale);
    } else if (const auto* op = e.as<MulNode>()) {
      int64_t c;
      if (const int64_t* cb = AsConstInt(op->b)) {
        if (__builtin_mul_overflow(*cb, scale, &c)) s->overflow = true;
        Accumulate(s, op->a, c);
      } else if (const int64_t* ca = AsConstInt(op->a)) {
        if (__builtin_mul_overflow(*ca, scale, &c)) s->overflow = true;
        Accumulate(s, op->b, c);
      } else {
        s->AddSum(Multiply(ToSum(op->a), ToSum(op->b)), scale);
      }
    } else {
      s->AddTerm(e, scale);
    }
  }

  // Distributes a product of two sums (kept as one atom when it would be large).
  Sum Multiply(const Sum& a, const Sum& b) {
    Sum r(a.dtype);
    if (a.overflow || b.overflow) r.overflow = true;
    if ((a.terms.size() + 1) * (b.terms.size() + 1) > 16) {
      std::optional<PrimExpr> ea = FromSum(a), eb = FromSum(b);
      if (!ea || !eb) {
        r.overflow = true;
        return r;
      }
      r.AddTerm(MulAtoms(*ea, *eb), 1);
      return r;
    }
    auto mul = [&r](int64_t x, int64_t y) {
      int64_t z;
      if (__builtin_mul_overflow(x, y, &z)) r.overflow = true;
      return z;
    };
    r.AddBase(mul(a.base, b.base));
    for (const Term& t : a.terms) r.AddTerm(t.atom, mul(t.coeff, b.base));
    for (const Term& t : b.terms) r.AddTerm(t.atom, mul(t.coeff, a.base));
    for (const Term& ta : a.terms)
      for (const Term& tb : b.terms) r.AddTerm(MulAtoms(ta.atom, tb.atom), mul(ta.coeff, tb.coeff));
    return r;
  }

  // Recombines floordiv/floormod pieces of one value: floordiv(x, c) * c*k +
  // floormod(x, c) * k -> x * k, and the nested forms of a split of a split.
  void MergeSplits(Sum* s) {
    for (int round = 0; round < 16; ++round) {
      bool changed = false;
      for (size_t i = 0; i < s->terms.size() && !changed; ++i) {
        const auto* mod = s->terms[i].atom.as<FloorModNode>();
        if (mod == nullptr) continue;
        const int64_t* c = AsConstInt(mod->b);
        if (c == nullptr || *c <= 0) continue;
        int64_t k = s->terms[i].coeff;
        int64_t kc;
        if (__builtin_mul_overflow(k, *c, &kc)) continue;
        for (size_t j = 0; j < s->terms.size() && !changed; ++j) {
          if (j == i || s->terms[j].coeff != kc) continue;
          const PrimExpr& other = s->terms[j].atom;
          std::optional<PrimExpr> merged;  // the replacement of both terms (times k)
          bool whole = false;
          if (const auto* div = other.as<FloorDivNode>()) {
            if (IsConstInt(div->b, *c) && ExprDeepEqual(div->a, mod->a)) {
              merged = mod->a;  // floordiv(x, c) * c + floormod(x, c) == x
              whole = true;
            } else if (const auto* inner = div->a.as<FloorModNode>()) {
              // floordiv(floormod(x, m), c) * c + floormod(x, c) == floormod(x, m) when c | m
              const int64_t* m = AsConstInt(inner->b);
              if (m && IsConstInt(div->b, *c) && *m % *c == 0 && ExprDeepEqual(inner->a, mod->a)) {
                merged = SimplifyFloorMod(mod->a, *m);
              }
            }
          } else if (const auto* outer = other.as<FloorModNode>()) {
            // floormod(floordiv(x, c), c2) * c + floormod(x, c) == floormod(x, c * c2)
            const auto* div = outer->a.as<FloorDivNode>();
            const int64_t* c2 = AsConstInt(outer->b);
            int64_t cc2;
            if (div && c2 && *c2 > 0 && IsConstInt(div->b, *c) && ExprDeepEqual(div->a, mod->a) &&
                !__builtin_mul_overflow(*c, *c2, &cc2)) {
              merged = SimplifyFloorMod(mod->a, cc2);
            }
          }
          if (!merged) continue;
          size_t hi = std::max(i, j), lo = std::min(i, j);
          s->terms.erase(s->terms.begin() + hi);
          s->terms.erase(s->terms.begin() + lo);
          if (whole) {
            Sum inner = ToSum(*merged);
            s->AddSum(inner, k);
          } else {
            Accumulate(s, *merged, k);
          }
          changed = true;
        }
      }
      if (!changed) return;
    }
  }

  // The expression of a sum: positive terms (by decreasing coefficient),
  // a positive constant, then the negative terms and constant subtracted.
  std::optional<PrimExpr> FromSum(Sum s) {
    if (s.overflow) return std::nullopt;
    MergeSplits(&s);
    if (s.overflow) return std::nullopt;
    DataType t = s.dtype;
    if (!FitsType(t, s.base)) return std::nullopt;
    for (const Term& term : s.terms) {
      if (!FitsType(t, term.coeff) || term.coeff == std::numeric_limits<int64_t>::min()) return std::nullopt;
    }
    std::stable_sort(s.terms.begin(), s.terms.end(), [](const Term& a, const Term& b) { return a.coeff > b.coeff; });
    auto term_expr = [t](const PrimExpr& atom, int64_t c) -> PrimExpr {
      if (c == 1) return atom;
      return Mul(atom, Const(t, c));
    };
    PrimExpr res;
    for (const Term& term : s.terms) {
      if (term.coeff <= 0) continue;
      PrimExpr e = term_expr(term.atom, term.coeff);
      res = res.defined() ? PrimExpr(Add(res, e)) : e;
    }
    if (s.base > 0) res = res.defined() ? PrimExpr(Add(res, Const(t, s.base))) : Const(t, s.base);
    for (const Term& term : s.terms) {
      if (term.coeff >= 0) continue;
      PrimExpr e = term_expr(term.atom, -term.coeff);
      res = Sub(res.defined() ? res : Const(t, 0), e);
    }
    if (s.base < 0) {
      if (!res.defined()) return Const(t, s.base);
      res = Sub(res, Const(t, -s.base));
    }
    if (!res.defined()) res = Const(t, 0);
    return res;
  }

  PrimExpr SumOr(const Sum& s, const PrimExpr& fallback) {
    std::optional<PrimExpr> e = FromSum(s);
    return e ? *e : fallback;
  }

  BoundEntry Bound(const PrimExpr& e) { return analyzer_->const_int_bound.Eval(e); }

  // 0 <= e < c, by constant bounds or symbolic ranges.
  bool ProveInRange(const PrimExpr& e, const PrimExpr& upper) {
    BoundEntry b = Bound(e);
    if (const int64_t* c = AsConstInt(upper)) {
      if (b.min_value >= 0 && b.max_value < *c) return true;
    }
    if (analyzer_->int_set.empty()) return false;
    if (!(b.min_value >= 0 || analyzer_->ProveBySymbolicRange(e, ">=0"))) return false;
    std::optional<PrimExpr> d = FromSum(Difference(e, upper));
    return d && analyzer_->ProveBySymbolicRange(*d, "<0");
  }

  Sum Difference(const PrimExpr& a, const PrimExpr& b) {
    Sum s = ToSum(a);
    s.AddSum(ToSum(b), -1);
    return s;
  }

  // ---- division by a positive constant ---------------------------------
  // r == c * (quotient terms) + m with every coefficient of m in [0, c):
  // when m's bounds lie in one interval [k * c, k * c + c), floordiv(r, c)
  // is the quotient terms + k. Returns them and k (nullopt otherwise, or
  // when no coefficient reaches c).
  std::optional<std::pair<Sum, int64_t>> ReduceModulo(const Sum& r, int64_t c) {
    Sum quot(r.dtype), m(r.dtype);
    bool any = false;
    for (const Term& term : r.terms) {
      int64_t fd = FloorDivInt(term.coeff, c);
      any = any || fd != 0;
      quot.AddTerm(term.atom, fd);
      m.AddTerm(term.atom, term.coeff - fd * c);
    }
    int64_t fb = FloorDivInt(r.base, c);
    quot.AddBase(fb);
    m.AddBase(r.base - fb * c);
    if (!any || quot.overflow || m.overflow) return std::nullopt;
    int64_t lo = m.base, hi = m.base;
    if (!m.IsConst()) {
      std::optional<PrimExpr> e = FromSum(m);
      if (!e) return std::nullopt;
      BoundEntry b = Bound(*e);
      if (IsInfBound(b.min_value) || IsInfBound(b.max_value)) return std::nullopt;
      lo = b.min_value;
      hi = b.max_value;
    }
    if (FloorDivInt(lo, c) != FloorDivInt(hi, c)) return std::nullopt;
    return std::make_pair(quot, FloorDivInt(lo, c));
  }

  // r = g * big + small with g | c, g > 1 and small within [0, g) (so
  // floordiv(r, c) == floordiv(big, c / g) and floormod(r, c) ==
  // g * floormod(big, c / g) + small): big gathers the terms whose
  // coefficient shares a factor with c. (x * 8 + 7) // 16 == x // 2.
  struct FactorSplit {
    int64_t g = 1;
    Sum big, small;
    explicit FactorSplit(DataType t) : big(t), small(t) {}
  };
  std::optional<FactorSplit> SplitByFactor(const Sum& r, int64_t c) {
    int64_t g = c;
    bool any = false;
    for (const Term& term : r.terms) {
      if (Gcd(term.coeff, c) > 1) {
        g = Gcd(g, term.coeff);
        any = true;
      }
    }
    if (!any || g <= 1) return std::nullopt;
    FactorSplit out(r.dtype);
    out.g = g;
    for (const Term& term : r.terms) {
      if (term.coeff % g == 0) out.big.AddTerm(term.atom, term.coeff / g);
      else out.small.AddTerm(term.atom, term.coeff);
    }
    out.small.AddBase(r.base);
    if (out.small.IsConst() && out.small.base % g == 0) return std::nullopt;  // the common-factor step does it
    int64_t lo = out.small.base, hi = out.small.base;
    if (!out.small.IsConst()) {
      std::optional<PrimExpr> e = FromSum(out.small);
      if (!e) return std::nullopt;
      BoundEntry b = Bound(*e);
      if (IsInfBound(b.min_value) || IsInfBound(b.max_value)) return std::nullopt;
      lo = b.min_value;
      hi = b.max_value;
    }
    // Only small within [0, g), as TVM's rewrite rules (other k would be sound but unlike TVM's forms).
    if (lo < 0 || hi >= g) return std::nullopt;
    return out;
  }

  PrimExpr SimplifyFloorDiv(const PrimExpr& a, int64_t c) {
    DataType t = a.dtype();
    PrimExpr fallback = FloorDiv(a, Const(t, c));
    if (c == 1) return a;
    Sum s = ToSum(a);
    if (s.overflow) return fallback;
    if (s.IsConst()) return Const(t, FloorDivInt(s.base, c));
    Sum q(t), r(t);
    for (const Term& term : s.terms) {
      if (term.coeff % c == 0) q.AddTerm(term.atom, term.coeff / c);
      else r.AddTerm(term.atom, term.coeff);
    }
    if (s.base % c == 0) q.AddBase(s.base / c);
    else r.AddBase(s.base);
    if (r.IsConst()) {
      q.AddBase(FloorDivInt(r.base, c));
      return SumOr(q, fallback);
    }
    std::optional<PrimExpr> r_expr = FromSum(r);
    if (!r_expr) return fallback;
    BoundEntry rb = Bound(*r_expr);
    if (!IsInfBound(rb.min_value) && !IsInfBound(rb.max_value) &&
        FloorDivInt(rb.min_value, c) == FloorDivInt(rb.max_value, c)) {
      q.AddBase(FloorDivInt(rb.min_value, c));
      return SumOr(q, fallback);
    }
    if (ProveInRange(*r_expr, Const(t, c))) return SumOr(q, fallback);
    // Coefficients reduced modulo c (x * 360 // 16 == x * 22 + x * 8 // 16),
    // taken when the reduced remainder then lies in one quotient interval.
    if (auto reduced = ReduceModulo(r, c)) {
      Sum q2 = q;
      q2.AddSum(reduced->first, 1);
      q2.AddBase(reduced->second);
      return SumOr(q2, fallback);
    }
    if (auto split = SplitByFactor(r, c)) {
      std::optional<PrimExpr> big = FromSum(split->big);
      if (big && !split->big.overflow && !split->small.overflow) {
        q.AddTerm(SimplifyFloorDiv(*big, c / split->g), 1);
        return SumOr(q, fallback);
      }
    }
    // Common factor of the remainder and the divisor.
    int64_t g = c;
    for (const Term& term : r.terms) g = Gcd(g, term.coeff);
    g = Gcd(g, r.base);
    if (g > 1) {
      Sum rg(t);
      for (const Term& term : r.terms) rg.AddTerm(term.atom, term.coeff / g);
      rg.AddBase(r.base / g);
      r = rg;
      c /= g;
      r_expr = FromSum(r);
      if (!r_expr) return fallback;
    }
    PrimExpr inner;
    const auto* nested = r.terms.size() == 1 && r.base == 0 && r.terms[0].coeff == 1
                             ? r.terms[0].atom.as<FloorDivNode>()
                             : nullptr;
    const int64_t* c0 = nested ? AsConstInt(nested->b) : nullptr;
    int64_t cc;
    if (c0 && *c0 > 0 && !__builtin_mul_overflow(*c0, c, &cc) && FitsType(t, cc)) {
      inner = FloorDiv(nested->a, Const(t, cc));  // floordiv(floordiv(x, c0), c) == floordiv(x, c0 * c)
    } else {
      inner = FloorDiv(*r_expr, Const(t, c));
    }
    q.AddTerm(inner, 1);
    return SumOr(q, fallback);
  }

  PrimExpr SimplifyFloorMod(const PrimExpr& a, int64_t c) {
    DataType t = a.dtype();
    PrimExpr fallback = FloorMod(a, Const(t, c));
    if (c == 1) return Const(t, 0);
    Sum s = ToSum(a);
    if (s.overflow) return fallback;
    if (s.IsConst()) return Const(t, FloorModInt(s.base, c));
    Sum r(t);
    for (const Term& term : s.terms)
      if (term.coeff % c != 0) r.AddTerm(term.atom, term.coeff);
    r.AddBase(FloorModInt(s.base, c));
    if (r.IsConst()) return Const(t, r.base);
    std::optional<PrimExpr> r_expr = FromSum(r);
    if (!r_expr) return fallback;
    BoundEntry rb = Bound(*r_expr);
    if (!IsInfBound(rb.min_value) && !IsInfBound(rb.max_value) &&
        FloorDivInt(rb.min_value, c) == FloorDivInt(rb.max_value, c)) {
      r.AddBase(-FloorDivInt(rb.min_value, c) * c);
      return SumOr(r, fallback);
    }
    if (ProveInRange(*r_expr, Const(t, c))) return *r_expr;
    if (auto reduced = ReduceModulo(r, c)) {
      Sum rest = r;
      rest.AddSum(reduced->first, -c);
      rest.AddBase(-reduced->second * c);
      return SumOr(rest, fallback);
    }
    ModularEntry m = analyzer_->modular_set.Eval(*r_expr);
    if (m.coeff % c == 0) return Const(t, FloorModInt(m.base, c));
    if (auto split = SplitByFactor(r, c)) {
      std::optional<PrimExpr> big = FromSum(split->big);
      if (big && !split->big.overflow && !split->small.overflow) {
        Sum out = split->small;
        out.AddTerm(SimplifyFloorMod(*big, c / split->g), split->g);
        return SumOr(out, fallback);
      }
    }
    int64_t g = c;
    for (const Term& term : r.terms) g = Gcd(g, term.coeff);
    g = Gcd(g, r.base);
    if (g > 1) {
      Sum rg(t);
      for (const Term& term : r.terms) rg.AddTerm(term.atom, term.coeff / g);
      rg.AddBase(r.base / g);
      std::optional<PrimExpr> inner = FromSum(rg);
      if (!inner) return fallback;
      Sum out(t);
      out.AddTerm(FloorMod(*inner, Const(t, c / g)), g);
      return SumOr(out, fallback);
    }
    if (r.terms.size() == 1 && r.base == 0 && r.terms[0].coeff == 1) {
      if (const auto* inner = r.terms[0].atom.as<FloorModNode>()) {
        // floormod(floormod(x, m), c) == floormod(x, c) when c | m
        const int64_t* m0 = AsConstInt(inner->b);
        if (m0 && *m0 > 0 && *m0 % c == 0) return SimplifyFloorMod(inner->a, c);
      }
    }
    return FloorMod(*r_expr, Const(t, c));
  }

  // floordiv/floormod by a non-constant, non-negative divisor d: splits off
  // the multiples of d when the rest provably lies in [0, d).
  std::optional<std::pair<PrimExpr, PrimExpr>> DivModBySymbol(const PrimExpr& a, const PrimExpr& d) {
    // 0 <= rest < d (proved below) implies d > 0, so no sign check is needed.
    Sum s = ToSum(a);
    if (s.overflow) return std::nullopt;
    Sum q(a.dtype()), r(a.dtype());
    r.AddBase(s.base);
    std::vector<PrimExpr> df;
    CollectFactors(d, &df);
    for (const Term& term : s.terms) {
      std::vector<PrimExpr> f;
      CollectFactors(term.atom, &f);
      // Remove d's factors from the term's factors when all are present.
      std::vector<bool> used(f.size(), false);
      bool all = true;
      for (const PrimExpr& x : df) {
        bool found = false;
        for (size_t i = 0; i < f.size(); ++i) {
          if (!used[i] && ExprDeepEqual(f[i], x)) {
            used[i] = found = true;
            break;
          }
        }
        if (!found) {
          all = false;
          break;
        }
      }
      if (!all) {
        r.AddTerm(term.atom, term.coeff);
        continue;
      }
      PrimExpr rest;
      for (size_t i = 0; i < f.size(); ++i) {
        if (used[i]) continue;
        rest = rest.defined() ? MulAtoms(rest, f[i]) : f[i];
      }
      if (rest.defined()) q.AddTerm(rest, term.coeff);
      else q.AddBase(term.coeff);
    }
    std::optional<PrimExpr> r_expr = FromSum(r);
    if (!r_expr) return std::nullopt;
    if (!ProveInRange(*r_expr, d)) return std::nullopt;
    std::optional<PrimExpr> q_expr = FromSum(q);
    if (!q_expr) return std::nullopt;
    return std::make_pair(*q_expr, *r_expr);
  }

  // ---- visitors -----------------------------------------------------------
  PrimExpr VisitExpr_(const VarNode* op) override {
    Var v = GetRef<Var>(op);
    if (auto it = inlined_lets_.find(op); it != inlined_lets_.end()) {
      if (it->second.defined()) return it->second;
    }
    if (const PrimExpr* value = analyzer_->LookupValue(v)) return *value;
    return v;
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }

  PrimExpr VisitExpr_(const AddNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      Sum s = ToSum(a);
      s.AddSum(ToSum(b), 1);
      return SumOr(s, Add(a, b));
    }
    if (auto v = VectorArith(a, b, 0)) return *v;
    return add(a, b);
  }
  PrimExpr VisitExpr_(const SubNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) return SumOr(Difference(a, b), Sub(a, b));
    if (auto v = VectorArith(a, b, 1)) return *v;
    return sub(a, b);
  }
  PrimExpr VisitExpr_(const MulNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(op->dtype)) {
      Sum s(op->dtype);
      s.AddSum(Multiply(ToSum(a), ToSum(b)), 1);
      return SumOr(s, Mul(a, b));
    }
    if (auto v = VectorArith(a, b, 2)) return *v;
    return mul(a, b);
  }

  // Ramp/Broadcast arithmetic: kind 0 add, 1 sub, 2 mul.
  std::optional<PrimExpr> VectorArith(const PrimExpr& a, const PrimExpr& b, int kind) {
    if (a.dtype().is_scalar()) return std::nullopt;
    auto f = [&](PrimExpr x, PrimExpr y) -> PrimExpr {
      PrimExpr r = kind == 0 ? add(x, y) : (kind == 1 ? sub(x, y) : mul(x, y));
      return VisitExpr(r);
    };
    const auto* ba = a.as<BroadcastNode>();
    const auto* bb = b.as<BroadcastNode>();
    const auto* ra = a.as<RampNode>();
    const auto* rb = b.as<RampNode>();
    if (ba && bb && ba->lanes == bb->lanes) return Broadcast(f(ba->value, bb->value), ba->lanes);
    if (kind != 2) {
      if (ra && rb && ra->lanes == rb->lanes) return Ramp(f(ra->base, rb->base), f(ra->stride, rb->stride), ra->lanes);
      if (ra && bb && ra->lanes == bb->lanes) return Ramp(f(ra->base, bb->value), ra->stride, ra->lanes);
      if (ba && rb && kind == 0 && ba->lanes == rb->lanes) return Ramp(f(ba->value, rb->base), rb->stride, rb->lanes);
    } else {
      if (ra && bb && ra->lanes == bb->lanes) return Ramp(f(ra->base, bb->value), f(ra->stride, bb->value), ra->lanes);
      if (ba && rb && ba->lanes == rb->lanes) return Ramp(f(ba->value, rb->base), f(ba->value, rb->stride), rb->lanes);
    }
    return std::nullopt;
  }

  PrimExpr VisitExpr_(const FloorDivNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsIndexType(op->dtype)) return floordiv(a, b);
    const int64_t* c = AsConstInt(b);
    if (c && *c > 0) return SimplifyFloorDiv(a, *c);
    if (c && *c == 0) return FloorDiv(a, b);  // undefined; keep as written
    if (c) return floordiv(a, b);
    if (ExprDeepEqual(a, b)) return Const(op->dtype, 1);
    if (auto qr = DivModBySymbol(a, b)) return qr->first;
    return FloorDiv(a, b);
  }
  PrimExpr VisitExpr_(const FloorModNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsIndexType(op->dtype)) return floormod(a, b);
    const int64_t* c = AsConstInt(b);
    if (c && *c > 0) return SimplifyFloorMod(a, *c);
    if (c && *c == 0) return FloorMod(a, b);
    if (c) return floormod(a, b);
    if (ExprDeepEqual(a, b)) return Const(op->dtype, 0);
    if (auto qr = DivModBySymbol(a, b)) return qr->second;
    return FloorMod(a, b);
  }

  bool ProveNonNegative(const PrimExpr& e) {
    if (Bound(e).min_value >= 0) return true;
    return !analyzer_->int_set.empty() && analyzer_->ProveBySymbolicRange(e, ">=0");
  }

  // Every coefficient and the constant of `a` are multiples of c: the exact quotient.
  std::optional<PrimExpr> ExactDiv(const PrimExpr& a, int64_t c) {
    Sum s = ToSum(a);
    if (s.overflow || s.base % c != 0) return std::nullopt;
    Sum q(a.dtype());
    for (const Term& term : s.terms) {
      if (term.coeff % c != 0) return std::nullopt;
      q.AddTerm(term.atom, term.coeff / c);
    }
    q.AddBase(s.base / c);
    return FromSum(q);
  }

  PrimExpr VisitExpr_(const DivNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsIndexType(op->dtype)) return div(a, b);
    const int64_t* c = AsConstInt(b);
    if (c && *c == 0) return Div(a, b);
    if (AsConstInt(a) && c) return truncdiv(a, b);
    if (c && *c == 1) return a;
    if (c && *c > 0) {
      if (auto q = ExactDiv(a, *c)) return *q;
      if (ProveNonNegative(a)) {
        // truncdiv == floordiv for a >= 0, c > 0.
        PrimExpr r = SimplifyFloorDiv(a, *c);
        if (const auto* fd = r.as<FloorDivNode>()) {
          if (ProveNonNegative(fd->a)) return Div(fd->a, fd->b);
        }
        return r;
      }
    }
    return Div(a, b);
  }
  PrimExpr VisitExpr_(const ModNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsIndexType(op->dtype)) return truncmod(a, b);
    const int64_t* c = AsConstInt(b);
    if (c && *c == 0) return Mod(a, b);
    if (AsConstInt(a) && c) return truncmod(a, b);
    if (c && (*c == 1 || *c == -1)) return Const(op->dtype, 0);
    if (c && *c > 0) {
      if (ExactDiv(a, *c)) return Const(op->dtype, 0);
      if (ProveNonNegative(a)) {
        PrimExpr r = SimplifyFloorMod(a, *c);
        if (const auto* fm = r.as<FloorModNode>()) {
          if (ProveNonNegative(fm->a)) return Mod(fm->a, fm->b);
        }
        return r;
      }
    }
    return Mod(a, b);
  }

  // Sign of a - b: -1 (a < b), 0 (a == b), 1 (a > b), or the provable
  // ordering: returns "a <= b" / "a >= b" through the flags.
  struct Order {
    bool le = false, ge = false, lt = false, gt = false, ne = false;
  };
  Order CompareIndex(const PrimExpr& a, const PrimExpr& b) {
    Order o;
    Sum d = Difference(a, b);
    if (d.overflow) return o;
    if (d.IsConst()) {
      o.lt = d.base < 0;
      o.gt = d.base > 0;
      o.le = d.base <= 0;
      o.ge = d.base >= 0;
      o.ne = d.base != 0;
      return o;
    }
    std::optional<PrimExpr> de = FromSum(d);
    if (!de) return o;
    BoundEntry bd = Bound(*de);
    o.lt = bd.max_value < 0;
    o.le = bd.max_value <= 0;
    o.gt = bd.min_value > 0;
    o.ge = bd.min_value >= 0;
    o.ne = o.lt || o.gt;
    if (!o.ne) {
      ModularEntry m = analyzer_->modular_set.Eval(*de);
      if (m.coeff > 0 && m.base != 0) o.ne = true;
    }
    if (!analyzer_->int_set.empty() && !(o.le || o.ge)) {
      if (analyzer_->ProveBySymbolicRange(*de, "<0")) o.lt = o.le = o.ne = true;
      else if (analyzer_->ProveBySymbolicRange(*de, "<=0")) o.le = true;
      if (!o.le) {
        if (analyzer_->ProveBySymbolicRange(*de, ">0")) o.gt = o.ge = o.ne = true;
        else if (analyzer_->ProveBySymbolicRange(*de, ">=0")) o.ge = true;
      }
    }
    return o;
  }

  PrimExpr VisitExpr_(const MinNode* op) override {
    return SimplifyMinMax<MinNode, MaxNode>(VisitExpr(op->a), VisitExpr(op->b), /*is_min=*/true, op->dtype);
  }
  PrimExpr VisitExpr_(const MaxNode* op) override {
    return SimplifyMinMax<MaxNode, MinNode>(VisitExpr(op->a), VisitExpr(op->b), /*is_min=*/false, op->dtype);
  }

  // min and max are mirror images; `is_min` picks which one is simplified.
  // min(min(x, y), y) -> min(x, y); min(max(x, y), x) -> x; likewise for max.
  template <typename SameNode, typename DualNode>
  PrimExpr SimplifyMinMax(const PrimExpr& a, const PrimExpr& b, bool is_min, DataType dtype) {
    auto rebuild = [&] { return is_min ? min(a, b) : max(a, b); };
    if (!IsIndexType(dtype)) return rebuild();
    if (AsConstInt(a) && AsConstInt(b)) return rebuild();
    if (ExprDeepEqual(a, b)) return a;
    Order o = CompareIndex(a, b);
    if (is_min ? o.le : o.ge) return a;
    if (is_min ? o.ge : o.le) return b;
    auto holds = [](const auto* m, const PrimExpr& e) { return ExprDeepEqual(m->a, e) || ExprDeepEqual(m->b, e); };
    if (const auto* m = a.as<SameNode>(); m && holds(m, b)) return a;
    if (const auto* m = b.as<SameNode>(); m && holds(m, a)) return b;
    if (const auto* m = a.as<DualNode>(); m && holds(m, b)) return b;
    if (const auto* m = b.as<DualNode>(); m && holds(m, a)) return a;
    return is_min ? PrimExpr(Min(a, b)) : PrimExpr(Max(a, b));
  }

  // Moves the constant of a comparison to the constant side:
  // x + 3 < 5 -> x < 2.
  template <typename Node>
  PrimExpr NormalizeCompare(const PrimExpr& a, const PrimExpr& b) {
    const int64_t* cb = AsConstInt(b);
    const int64_t* ca = AsConstInt(a);
    if (cb && !ca) {
      Sum s = ToSum(a);
      int64_t k = s.base, nb;
      s.base = 0;
      if (k != 0 && !__builtin_sub_overflow(*cb, k, &nb) && FitsType(b.dtype(), nb)) {
        if (auto lhs = FromSum(s)) return Node(*lhs, Const(b.dtype(), nb));
      }
    } else if (ca && !cb) {
      Sum s = ToSum(b);
      int64_t k = s.base, na;
      s.base = 0;
      if (k != 0 && !__builtin_sub_overflow(*ca, k, &na) && FitsType(a.dtype(), na)) {
        if (auto rhs = FromSum(s)) return Node(Const(a.dtype(), na), *rhs);
      }
    }
    return Node(a, b);
  }

  PrimExpr VisitExpr_(const LTNode* op) override { return SimplifyLT(VisitExpr(op->a), VisitExpr(op->b)); }
  PrimExpr VisitExpr_(const LENode* op) override { return SimplifyLE(VisitExpr(op->a), VisitExpr(op->b)); }
  PrimExpr VisitExpr_(const GTNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(a.dtype())) return SimplifyLT(b, a);
    return greater(a, b);
  }
  PrimExpr VisitExpr_(const GENode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (IsIndexType(a.dtype())) return SimplifyLE(b, a);
    return greater_equal(a, b);
  }
  PrimExpr SimplifyLT(const PrimExpr& a, const PrimExpr& b) {
    if (!IsIndexType(a.dtype())) return less(a, b);
    Order o = CompareIndex(a, b);
    if (o.lt) return BoolConst(true);
    if (o.ge) return BoolConst(false);
    return NormalizeCompare<LT>(a, b);
  }
  PrimExpr SimplifyLE(const PrimExpr& a, const PrimExpr& b) {
    if (!IsIndexType(a.dtype())) return less_equal(a, b);
    Order o = CompareIndex(a, b);
    if (o.le) return BoolConst(true);
    if (o.gt) return BoolConst(false);
    return NormalizeCompare<LE>(a, b);
  }
  PrimExpr VisitExpr_(const EQNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsIndexType(a.dtype())) return equal(a, b);
    Order o = CompareIndex(a, b);
    if (o.le && o.ge) return BoolConst(true);
    if (o.ne) return BoolConst(false);
    return NormalizeCompare<EQ>(a, b);
  }
  PrimExpr VisitExpr_(const NENode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsIndexType(a.dtype())) return not_equal(a, b);
    Order o = CompareIndex(a, b);
    if (o.le && o.ge) return BoolConst(false);
    if (o.ne) return BoolConst(true);
    return NormalizeCompare<NE>(a, b);
  }

  static std::optional<bool> AsBool(const PrimExpr& e) {
    if (!e.dtype().is_scalar()) return std::nullopt;
    if (const int64_t* v = AsConstInt(e)) return *v != 0;
    return std::nullopt;
  }

  PrimExpr VisitExpr_(const AndNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    auto ca = AsBool(a), cb = AsBool(b);
    if (ca && !*ca) return a;
    if (cb && !*cb) return b;
    if (ca && *ca) return b;
    if (cb && *cb) return a;
    if (ExprDeepEqual(a, b)) return a;
    return And(a, b);
  }
  PrimExpr VisitExpr_(const OrNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    auto ca = AsBool(a), cb = AsBool(b);
    if (ca && *ca) return a;
    if (cb && *cb) return b;
    if (ca && !*ca) return b;
    if (cb && !*cb) return a;
    if (ExprDeepEqual(a, b)) return a;
    return Or(a, b);
  }
  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    if (auto c = AsBool(a)) return IntImm(a.dtype(), *c ? 0 : 1);
    if (const auto* n = a.as<NotNode>()) return n->a;
    if (a.dtype().is_scalar()) {
      if (const auto* n = a.as<LTNode>()) return VisitExpr(LE(n->b, n->a));
      if (const auto* n = a.as<LENode>()) return VisitExpr(LT(n->b, n->a));
      if (const auto* n = a.as<GTNode>()) return VisitExpr(LE(n->a, n->b));
      if (const auto* n = a.as<GENode>()) return VisitExpr(LT(n->a, n->b));
      if (const auto* n = a.as<EQNode>()) return VisitExpr(NE(n->a, n->b));
      if (const auto* n = a.as<NENode>()) return VisitExpr(EQ(n->a, n->b));
    }
    return Not(a);
  }

  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    if (auto v = AsBool(c)) return *v ? VisitExpr(op->true_value) : VisitExpr(op->false_value);
    PrimExpr t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (ExprDeepEqual(t, f)) return t;
    return Select(c, t, f);
  }

  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    return cast(op->dtype, v);
  }

  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    bool trivial = value.as<IntImmNode>() || value.as<FloatImmNode>() || value.as<VarNode>();
    // Trivial values are inlined as the body is visited (a scoped binding, not a Substitute
    // of the body per Let, which made nested Lets quadratic); a non-trivial Let hides an
    // outer inlined binding of the same variable.
    ScopedInline scope(&inlined_lets_, op->var.get(), trivial ? value : PrimExpr());
    if (trivial) return VisitExpr(op->body);
    const BoundEntry* prev = analyzer_->const_int_bound.Lookup(op->var);
    std::optional<BoundEntry> saved = prev ? std::optional<BoundEntry>(*prev) : std::nullopt;
    if (IsIndexType(value.dtype())) analyzer_->const_int_bound.Update(op->var, Bound(value));
    PrimExpr body = VisitExpr(op->body);
    if (saved) analyzer_->const_int_bound.Update(op->var, *saved);
    else analyzer_->const_int_bound.Unbind(op->var);
    if (!MayUseVar(body, op->var.get())) return body;
    if (value.same_as(op->value) && body.same_as(op->body)) return GetRef<PrimExpr>(op);
    return Let(op->var, value, body);
  }

  PrimExpr VisitExpr_(const CallNode* op) override {
    PrimExpr r = ExprMutator::VisitExpr_(op);
    const auto* call = r.as<CallNode>();
    if (call == nullptr) return r;
    const auto* callee = call->op.as<OpNode>();
    if (callee && callee->name == "tir.if_then_else" && call->args.size() == 3) {
      if (auto c = AsBool(call->args[0])) return *c ? call->args[1] : call->args[2];
    }
    return r;
  }

 private:
  // Sets map[var] = value for its lifetime, then restores the previous entry.
  struct ScopedInline {
    ScopedInline(std::unordered_map<const Object*, PrimExpr>* map, const Object* var, PrimExpr value)
        : map_(map), var_(var) {
      auto it = map->find(var);
      if (it != map->end()) saved_ = it->second, had_ = true;
      (*map)[var] = std::move(value);
    }
    ~ScopedInline() {
      if (had_) (*map_)[var_] = saved_;
      else map_->erase(var_);
    }
    std::unordered_map<const Object*, PrimExpr>* map_;
    const Object* var_;
    PrimExpr saved_;
    bool had_ = false;
  };

  Analyzer* analyzer_;
  // Variables of enclosing trivial Lets -> their value (undefined: hidden by an inner Let).
  std::unordered_map<const Object*, PrimExpr> inlined_lets_;
};

}  // namespace

PrimExpr SimplifyOnce(const PrimExpr& expr, Analyzer* analyzer) {
  TESSERA_CHECK_OR_THROW(expr.defined(), ValueError) << "simplify: expression is undefined (None)";
  Simplifier s(analyzer);
  return s.VisitExpr(expr);
}

}  // namespace arith
}  // namespace tessera
