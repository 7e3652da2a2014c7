// Interval sets and EvalSet (see int_set.h): interval arithmetic over
// symbolic ends, one rule per TIR node kind, with ends simplified by an
// Analyzer. The expression is simplified first so that affine expressions
// mention each relaxed variable once, which makes the result exact.
#include "arith/int_set.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "arith/expr_deep_equal.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/buffer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace arith {

using namespace tir;

const PrimExpr& SymbolicPosInf() {
  static const PrimExpr v = Var("pos_inf", DataType::Handle());
  return v;
}
const PrimExpr& SymbolicNegInf() {
  static const PrimExpr v = Var("neg_inf", DataType::Handle());
  return v;
}
bool IsPosInf(const PrimExpr& e) { return e.same_as(SymbolicPosInf()); }
bool IsNegInf(const PrimExpr& e) { return e.same_as(SymbolicNegInf()); }

IntervalSet::IntervalSet(PrimExpr min_value, PrimExpr max_value) {
  TESSERA_CHECK_OR_THROW(min_value.defined() && max_value.defined(), ValueError)
      << "IntervalSet: bounds must be defined";
  auto n = make_object<IntervalSetNode>();
  n->min_value = std::move(min_value);
  n->max_value = std::move(max_value);
  data_ = std::move(n);
}

IntSet IntSet::Interval(PrimExpr min_value, PrimExpr max_value) {
  return IntervalSet(std::move(min_value), std::move(max_value));
}
IntSet IntSet::SinglePoint(PrimExpr point) { return IntervalSet(point, point); }
IntSet IntSet::FromMinExtent(PrimExpr min, PrimExpr extent) {
  if (IsConstInt(extent, 1)) return SinglePoint(min);
  Analyzer analyzer;
  return IntervalSet(min, analyzer.Simplify(min + extent - 1));
}
IntSet IntSet::FromRange(const Range& range) {
  TESSERA_CHECK_OR_THROW(range.defined(), ValueError) << "IntSet.FromRange: range is undefined";
  return FromMinExtent(range->min, range->extent);
}
IntSet IntSet::Everything() { return IntervalSet(SymbolicNegInf(), SymbolicPosInf()); }
IntSet IntSet::Nothing() { return IntervalSet(SymbolicPosInf(), SymbolicNegInf()); }

namespace {
const IntervalSetNode* AsInterval(const IntSet& s) {
  const auto* n = s.as<IntervalSetNode>();
  TESSERA_ICHECK(n != nullptr) << "only interval sets are supported";
  return n;
}
}  // namespace

PrimExpr IntSet::min() const { return AsInterval(*this)->min_value; }
PrimExpr IntSet::max() const { return AsInterval(*this)->max_value; }
bool IntSet::IsNothing() const {
  const auto* n = AsInterval(*this);
  if (IsPosInf(n->min_value) || IsNegInf(n->max_value)) return true;
  const int64_t* a = AsConstInt(n->min_value);
  const int64_t* b = AsConstInt(n->max_value);
  return a && b && *a > *b;
}
bool IntSet::IsEverything() const {
  const auto* n = AsInterval(*this);
  return IsNegInf(n->min_value) && IsPosInf(n->max_value);
}
bool IntSet::IsSinglePoint() const {
  const auto* n = AsInterval(*this);
  return !IsNothing() && !IsPosInf(n->max_value) && !IsNegInf(n->min_value) &&
         ExprDeepEqual(n->min_value, n->max_value);
}
bool IntSet::CanProveSinglePoint(Analyzer* analyzer) const {
  const auto* n = AsInterval(*this);
  if (IsSinglePoint()) return true;
  if (IsNothing() || !HasLowerBound() || !HasUpperBound()) return false;
  return analyzer->CanProveEqual(n->min_value, n->max_value);
}
PrimExpr IntSet::PointValue() const {
  TESSERA_CHECK_OR_THROW(IsSinglePoint(), ValueError) << "IntSet.PointValue: the set is not a single point";
  return min();
}
Range IntSet::CoverRange(const Range& max_range) const {
  if (IsSinglePoint()) return Range::FromMinExtent(min(), IntImm(min().dtype(), 1));
  if (IsNothing() || !HasLowerBound() || !HasUpperBound()) return max_range;
  Analyzer analyzer;
  return Range::FromMinExtent(min(), analyzer.Simplify(max() - min() + 1));
}

namespace {

bool IsInf(const PrimExpr& e) { return IsPosInf(e) || IsNegInf(e); }

class Evaluator : public ExprFunctor<IntSet(const PrimExpr&)> {
 public:
  Evaluator(const std::unordered_map<const Object*, IntSet>& dom, Analyzer* analyzer)
      : dom_(dom), analyzer_(analyzer) {}

  IntSet Finish(const IntSet& s) {
    if (s.IsNothing() || s.IsEverything()) return s;
    PrimExpr mn = s.min(), mx = s.max();
    if (!IsInf(mn)) mn = analyzer_->Simplify(mn);
    if (!IsInf(mx)) mx = analyzer_->Simplify(mx);
    return IntervalSet(mn, mx);
  }

  IntSet VisitExprDefault_(const Object* op) override { return Opaque(GetRef<PrimExpr>(static_cast<const PrimExprNode*>(op))); }

  // An expression we have no rule for: a point when every relaxed variable in
  // it is fixed, else everything.
  IntSet Opaque(const PrimExpr& e) {
    bool relaxed = false;
    Map<Var, PrimExpr> points;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (const auto* v = n.as<VarNode>()) {
        auto it = Find(v);
        if (it == nullptr) return;
        if (it->IsSinglePoint()) points.Set(GetRef<Var>(v), it->min());
        else relaxed = true;
      }
    });
    if (relaxed) return IntSet::Everything();
    return IntSet::SinglePoint(points.empty() ? e : Substitute(e, points));
  }

  const IntSet* Find(const VarNode* v) {
    auto it = lets_.find(v);
    if (it != lets_.end()) return &it->second;
    auto jt = dom_.find(v);
    return jt == dom_.end() ? nullptr : &jt->second;
  }

  IntSet VisitExpr_(const IntImmNode* op) override { return IntSet::SinglePoint(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const FloatImmNode* op) override { return IntSet::SinglePoint(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const VarNode* op) override {
    const IntSet* s = Find(op);
    if (s == nullptr) return IntSet::SinglePoint(GetRef<PrimExpr>(op));
    if (s->IsNothing() || s->IsEverything() || depth_ >= kMaxDepth) return *s;
    // A domain bounded by other relaxed variables (an inner loop whose extent
    // depends on an outer relaxed loop) is relaxed through them too, as TVM's
    // evaluator does: its bounds would otherwise leak those variables out of
    // their scope.
    PrimExpr mn = s->min(), mx = s->max();
    auto uses_relaxed = [&](const PrimExpr& e) {
      bool found = false;
      if (IsInf(e)) return false;
      PostOrderVisit(e, [&](const ObjectRef& n) {
        const auto* v = n.as<VarNode>();
        found = found || (v != nullptr && v != op && Find(v) != nullptr);
      });
      return found;
    };
    if (!uses_relaxed(mn) && !uses_relaxed(mx)) return *s;
    ++depth_;
    PrimExpr lo = uses_relaxed(mn) ? VisitExpr(mn).min() : mn;
    PrimExpr hi = uses_relaxed(mx) ? VisitExpr(mx).max() : mx;
    --depth_;
    return IntervalSet(lo, hi);
  }
  IntSet VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }

  static PrimExpr AddEnd(const PrimExpr& a, const PrimExpr& b) {
    if (IsInf(a)) return a;
    if (IsInf(b)) return b;
    return add(a, b);
  }
  static PrimExpr NegEnd(const PrimExpr& a) {
    if (IsPosInf(a)) return SymbolicNegInf();
    if (IsNegInf(a)) return SymbolicPosInf();
    return neg(a);
  }

  IntSet VisitExpr_(const AddNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    return IntervalSet(AddEnd(a.min(), b.min()), AddEnd(a.max(), b.max()));
  }
  IntSet VisitExpr_(const SubNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    return IntervalSet(AddEnd(a.min(), NegEnd(b.max())), AddEnd(a.max(), NegEnd(b.min())));
  }

  // Sign of a point value: 1 (>= 0), -1 (<= 0), 0 unknown.
  int SignOf(const PrimExpr& v) {
    if (const int64_t* c = AsConstInt(v)) return *c >= 0 ? 1 : -1;
    if (v.dtype().is_float()) {
      if (const auto* f = v.as<FloatImmNode>()) return f->value >= 0 ? 1 : -1;
      return 0;
    }
    BoundEntry b = analyzer_->const_int_bound.Eval(v);
    if (b.min_value >= 0) return 1;
    if (b.max_value <= 0) return -1;
    return 0;
  }

  // [lo, hi] * v for a point v of known sign.
  IntSet ScaleBy(const IntSet& a, const PrimExpr& v, int sign) {
    auto mulend = [&](const PrimExpr& x) -> PrimExpr {
      if (IsInf(x)) {
        if (IsConstInt(v, 0)) return IntImm(v.dtype(), 0);
        return sign > 0 ? x : NegEnd(x);
      }
      return mul(x, v);
    };
    if (sign > 0) return IntervalSet(mulend(a.min()), mulend(a.max()));
    return IntervalSet(mulend(a.max()), mulend(a.min()));
  }

  IntSet VisitExpr_(const MulNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    if (a.IsSinglePoint() && b.IsSinglePoint()) return IntSet::SinglePoint(mul(a.min(), b.min()));
    if (b.IsSinglePoint()) {
      if (int s = SignOf(b.min())) return ScaleBy(a, b.min(), s);
      return IntSet::Everything();
    }
    if (a.IsSinglePoint()) {
      if (int s = SignOf(a.min())) return ScaleBy(b, a.min(), s);
      return IntSet::Everything();
    }
    return ConstCorners(a, b, [](int64_t x, int64_t y, int64_t* r) { return !__builtin_mul_overflow(x, y, r); },
                        op->dtype);
  }

  template <typename F>
  IntSet ConstCorners(const IntSet& a, const IntSet& b, F f, DataType t) {
    std::optional<int64_t> a0 = ConstIntValue(a.min()), a1 = ConstIntValue(a.max());
    std::optional<int64_t> b0 = ConstIntValue(b.min()), b1 = ConstIntValue(b.max());
    if (!(a0 && a1 && b0 && b1)) return IntSet::Everything();
    int64_t v[4];
    if (!f(*a0, *b0, &v[0]) || !f(*a0, *b1, &v[1]) || !f(*a1, *b0, &v[2]) || !f(*a1, *b1, &v[3]))
      return IntSet::Everything();
    return IntervalSet(IntImm(t, *std::min_element(v, v + 4)), IntImm(t, *std::max_element(v, v + 4)));
  }

  // Monotone division of [lo, hi] by a point of known sign.
  template <typename FDiv>
  IntSet DivideBy(const IntSet& a, const PrimExpr& v, int sign, FDiv fdiv) {
    auto end = [&](const PrimExpr& x) -> PrimExpr {
      if (IsInf(x)) return sign > 0 ? x : NegEnd(x);
      return fdiv(x, v);
    };
    if (sign > 0) return IntervalSet(end(a.min()), end(a.max()));
    return IntervalSet(end(a.max()), end(a.min()));
  }

  IntSet VisitExpr_(const FloorDivNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    if (b.IsSinglePoint() && !IsConstInt(b.min(), 0)) {
      if (a.IsSinglePoint()) return IntSet::SinglePoint(floordiv(a.min(), b.min()));
      if (int s = SignOf(b.min())) {
        return DivideBy(a, b.min(), s, [](const PrimExpr& x, const PrimExpr& y) { return floordiv(x, y); });
      }
    }
    return IntSet::Everything();
  }
  IntSet VisitExpr_(const DivNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    if (b.IsSinglePoint() && !IsConstInt(b.min(), 0)) {
      if (a.IsSinglePoint()) return IntSet::SinglePoint(div(a.min(), b.min()));
      if (op->dtype.is_float() || ConstIntValue(b.min())) {
        if (int s = SignOf(b.min())) {
          return DivideBy(a, b.min(), s, [](const PrimExpr& x, const PrimExpr& y) { return div(x, y); });
        }
      }
    }
    return IntSet::Everything();
  }

  IntSet ModResult(const IntSet& a, const PrimExpr& divisor, bool floor) {
    DataType t = divisor.dtype();
    // Same quotient at both ends: the mod is the identity shifted by a constant.
    if (a.HasLowerBound() && a.HasUpperBound()) {
      PrimExpr q0 = analyzer_->Simplify(floordiv(a.min(), divisor));
      PrimExpr q1 = analyzer_->Simplify(floordiv(a.max(), divisor));
      bool nonneg = floor || analyzer_->CanProveGreaterEqual(a.min(), 0);
      if (nonneg && ExprDeepEqual(q0, q1)) {
        return IntervalSet(floor ? floormod(a.min(), divisor) : truncmod(a.min(), divisor),
                           floor ? floormod(a.max(), divisor) : truncmod(a.max(), divisor));
      }
    }
    if (floor || (a.HasLowerBound() && analyzer_->CanProveGreaterEqual(a.min(), 0))) {
      return IntervalSet(IntImm(t, 0), sub(divisor, IntImm(t, 1)));
    }
    return IntervalSet(sub(IntImm(t, 1), divisor), sub(divisor, IntImm(t, 1)));
  }

  IntSet VisitExpr_(const FloorModNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    if (!b.IsSinglePoint() || IsConstInt(b.min(), 0)) return IntSet::Everything();
    if (a.IsSinglePoint()) return IntSet::SinglePoint(floormod(a.min(), b.min()));
    if (SignOf(b.min()) > 0 && !op->dtype.is_float()) return ModResult(a, b.min(), true);
    return IntSet::Everything();
  }
  IntSet VisitExpr_(const ModNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    if (!b.IsSinglePoint() || IsConstInt(b.min(), 0)) return IntSet::Everything();
    if (a.IsSinglePoint()) return IntSet::SinglePoint(truncmod(a.min(), b.min()));
    if (SignOf(b.min()) > 0 && !op->dtype.is_float()) return ModResult(a, b.min(), false);
    return IntSet::Everything();
  }

  static PrimExpr MinEnd(const PrimExpr& a, const PrimExpr& b) {
    if (IsNegInf(a) || IsNegInf(b)) return SymbolicNegInf();
    if (IsPosInf(a)) return b;
    if (IsPosInf(b)) return a;
    return min(a, b);
  }
  static PrimExpr MaxEnd(const PrimExpr& a, const PrimExpr& b) {
    if (IsPosInf(a) || IsPosInf(b)) return SymbolicPosInf();
    if (IsNegInf(a)) return b;
    if (IsNegInf(b)) return a;
    return max(a, b);
  }

  IntSet VisitExpr_(const MinNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    return IntervalSet(MinEnd(a.min(), b.min()), MinEnd(a.max(), b.max()));
  }
  IntSet VisitExpr_(const MaxNode* op) override {
    IntSet a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.IsNothing() || b.IsNothing()) return IntSet::Nothing();
    return IntervalSet(MaxEnd(a.min(), b.min()), MaxEnd(a.max(), b.max()));
  }
  IntSet VisitExpr_(const SelectNode* op) override {
    IntSet c = VisitExpr(op->condition);
    if (c.IsSinglePoint()) {
      if (std::optional<int64_t> v = ConstIntValue(c.min())) return VisitExpr(*v ? op->true_value : op->false_value);
    }
    IntSet t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (t.IsNothing()) return f;
    if (f.IsNothing()) return t;
    return IntervalSet(MinEnd(t.min(), f.min()), MaxEnd(t.max(), f.max()));
  }
  IntSet VisitExpr_(const CastNode* op) override {
    IntSet v = VisitExpr(op->value);
    if (v.IsNothing()) return v;
    if (v.IsSinglePoint()) return IntSet::SinglePoint(cast(op->dtype, v.min()));
    DataType from = op->value.dtype(), to = op->dtype;
    bool widening = (from.is_int() && to.is_int() && to.bits() >= from.bits()) ||
                    ((from.is_int() || from.is_uint()) && to.is_float());
    if (widening) {
      auto end = [&](const PrimExpr& x) { return IsInf(x) ? x : cast(to, x); };
      return IntervalSet(end(v.min()), end(v.max()));
    }
    return IntSet::Everything();
  }
  IntSet VisitExpr_(const LetNode* op) override {
    IntSet v = VisitExpr(op->value);
    lets_[op->var.get()] = v;
    IntSet r = VisitExpr(op->body);
    lets_.erase(op->var.get());
    return r;
  }
  IntSet VisitExpr_(const RampNode* op) override {
    IntSet base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    if (!stride.IsSinglePoint()) return IntSet::Everything();
    int s = SignOf(stride.min());
    if (s == 0) return IntSet::Everything();
    IntSet span = ScaleBy(IntervalSet(IntImm(op->base.dtype(), 0), IntImm(op->base.dtype(), op->lanes - 1)),
                          stride.min(), s);
    return IntervalSet(AddEnd(base.min(), span.min()), AddEnd(base.max(), span.max()));
  }
  IntSet VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }

  IntSet BoolResult(const PrimExpr& e) {
    IntSet r = Opaque(e);
    if (!r.IsEverything()) return r;
    return IntervalSet(IntImm(DataType::Bool(), 0), IntImm(DataType::Bool(), 1));
  }
  IntSet VisitExpr_(const EQNode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const NENode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const LTNode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const LENode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const GTNode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const GENode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const AndNode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const OrNode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }
  IntSet VisitExpr_(const NotNode* op) override { return BoolResult(GetRef<PrimExpr>(op)); }

 private:
  const std::unordered_map<const Object*, IntSet>& dom_;
  Analyzer* analyzer_;
  std::unordered_map<const VarNode*, IntSet> lets_;
  // Nesting of domains relaxed through other domains (a cycle stops here).
  static constexpr int kMaxDepth = 8;
  int depth_ = 0;
};

std::unordered_map<const Object*, IntSet> ToDom(const Map<Var, IntSet>& dom_map) {
  std::unordered_map<const Object*, IntSet> dom;
  for (const auto& kv : dom_map.raw()) {
    Var v = kv.first.cast<Var>();
    IntSet s = kv.second.cast<IntSet>();
    TESSERA_CHECK_OR_THROW(v.defined() && s.defined(), ValueError) << "EvalSet: domain map has an undefined entry";
    dom[v.get()] = s;
  }
  return dom;
}

}  // namespace

IntSet EvalSet(const PrimExpr& expr, const std::unordered_map<const Object*, IntSet>& dom, Analyzer* analyzer) {
  TESSERA_CHECK_OR_THROW(expr.defined(), ValueError) << "EvalSet: expression is undefined (None)";
  Analyzer local;
  if (analyzer == nullptr) analyzer = &local;
  PrimExpr e = expr.dtype().is_int() ? analyzer->Simplify(expr) : expr;
  Evaluator ev(dom, analyzer);
  return ev.Finish(ev.VisitExpr(e));
}

IntSet EvalSet(const PrimExpr& expr, const Map<Var, IntSet>& dom_map, Analyzer* analyzer) {
  return EvalSet(expr, ToDom(dom_map), analyzer);
}

IntSet EvalSetOverRanges(const PrimExpr& expr, const Map<Var, Range>& dom_map, Analyzer* analyzer) {
  std::unordered_map<const Object*, IntSet> dom;
  for (const auto& [v, r] : dom_map.items()) dom[v.get()] = IntSet::FromRange(r);
  return EvalSet(expr, dom, analyzer);
}

IntSet EvalSet(const Range& range, const Map<Var, IntSet>& dom_map, Analyzer* analyzer) {
  TESSERA_CHECK_OR_THROW(range.defined(), ValueError) << "EvalSet: range is undefined";
  Analyzer local;
  if (analyzer == nullptr) analyzer = &local;
  auto dom = ToDom(dom_map);
  IntSet lo = EvalSet(range->min, dom, analyzer);
  if (IsConstInt(range->extent, 1)) return lo;
  IntSet hi = EvalSet(analyzer->Simplify(range->min + range->extent - 1), dom, analyzer);
  return Union({lo, hi}, analyzer);
}

Array<IntSet> EvalSet(const Array<Range>& region, const Map<Var, IntSet>& dom_map, Analyzer* analyzer) {
  Array<IntSet> out;
  for (const Range& r : region) out.push_back(EvalSet(r, dom_map, analyzer));
  return out;
}

IntSet Union(const Array<IntSet>& sets, Analyzer* analyzer) {
  Analyzer local;
  if (analyzer == nullptr) analyzer = &local;
  PrimExpr mn = SymbolicPosInf(), mx = SymbolicNegInf();
  for (const IntSet& s : sets) {
    if (s.IsNothing()) continue;
    PrimExpr a = s.min(), b = s.max();
    if (IsNegInf(mn) || IsNegInf(a)) mn = SymbolicNegInf();
    else if (IsPosInf(mn)) mn = a;
    else mn = analyzer->Simplify(min(mn, a));
    if (IsPosInf(mx) || IsPosInf(b)) mx = SymbolicPosInf();
    else if (IsNegInf(mx)) mx = b;
    else mx = analyzer->Simplify(max(mx, b));
  }
  return IntervalSet(mn, mx);
}

IntSet Intersect(const Array<IntSet>& sets, Analyzer* analyzer) {
  Analyzer local;
  if (analyzer == nullptr) analyzer = &local;
  PrimExpr mn = SymbolicNegInf(), mx = SymbolicPosInf();
  for (const IntSet& s : sets) {
    if (s.IsNothing()) return IntSet::Nothing();
    PrimExpr a = s.min(), b = s.max();
    if (!IsNegInf(a)) mn = IsNegInf(mn) ? a : analyzer->Simplify(max(mn, a));
    if (!IsPosInf(b)) mx = IsPosInf(mx) ? b : analyzer->Simplify(min(mx, b));
  }
  return IntervalSet(mn, mx);
}

IntSet IntSetAnalyzer::operator()(const PrimExpr& expr, const Map<Var, IntSet>& dom_map) const {
  return EvalSet(expr, dom_map, parent_);
}
IntSet IntSetAnalyzer::operator()(const PrimExpr& expr) const { return EvalSet(expr, dom_, parent_); }

void IntSetAnalyzer::Update(const Var& var, const IntSet& set, bool) {
  TESSERA_CHECK_OR_THROW(var.defined() && set.defined(), ValueError) << "int_set update: undefined argument";
  dom_[var.get()] = set;
  keep_alive_[var.get()] = var;
}
void IntSetAnalyzer::Bind(const Var& var, const Range& range, bool allow_override) {
  Update(var, IntSet::FromRange(range), allow_override);
}
void IntSetAnalyzer::Unbind(const Var& var) {
  dom_.erase(var.get());
  keep_alive_.erase(var.get());
}

TESSERA_REGISTER_OBJECT_TYPE(IntSetNode);
TESSERA_REGISTER_OBJECT_TYPE(IntervalSetNode);
TESSERA_REGISTER_NODE(IntervalSetNode)
    .field("min_value", &IntervalSetNode::min_value)
    .field("max_value", &IntervalSetNode::max_value);

}  // namespace arith
}  // namespace tessera
