// Constant integer bound analysis (see const_int_bound.h): interval
// arithmetic on int64 with saturating infinity sentinels, one rule per
// TIR node kind.
#include "arith/const_int_bound.h"

#include <algorithm>

#include "arith/analyzer.h"
#include "arith/int_operator.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/buffer.h"
#include "tir/functor.h"

namespace tessera {
namespace arith {

using namespace tir;

ConstIntBound::ConstIntBound(int64_t min_value, int64_t max_value) {
  auto n = make_object<ConstIntBoundNode>();
  n->min_value = min_value;
  n->max_value = max_value;
  data_ = std::move(n);
}

BoundEntry TypeBound(DataType t) {
  constexpr int64_t kPos = ConstIntBound::kPosInf, kNeg = ConstIntBound::kNegInf;
  if (t.is_bool()) return {0, 1};
  if (t.is_int()) {
    if (t.bits() >= 64) return {kNeg, kPos};
    return {-(int64_t{1} << (t.bits() - 1)), (int64_t{1} << (t.bits() - 1)) - 1};
  }
  if (t.is_uint()) {
    if (t.bits() >= 63) return {0, kPos};
    return {0, (int64_t{1} << t.bits()) - 1};
  }
  return {kNeg, kPos};
}

namespace {

constexpr int64_t kPos = ConstIntBound::kPosInf;
constexpr int64_t kNeg = ConstIntBound::kNegInf;

bool IsInf(int64_t v) { return v == kPos || v == kNeg; }

int64_t Clamp(__int128 v) {
  if (v >= kPos) return kPos;
  if (v <= kNeg) return kNeg;
  return static_cast<int64_t>(v);
}

int64_t SatAdd(int64_t a, int64_t b) {
  if (IsInf(a)) return a;
  if (IsInf(b)) return b;
  return Clamp(static_cast<__int128>(a) + b);
}
int64_t SatNeg(int64_t a) { return -a; }  // symmetric sentinels: -kPos == kNeg
int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (IsInf(a) || IsInf(b)) return ((a > 0) == (b > 0)) ? kPos : kNeg;
  return Clamp(static_cast<__int128>(a) * b);
}
// a / b with b != 0, truncating (floor when `floor`), infinity aware.
int64_t SatDiv(int64_t a, int64_t b, bool floor) {
  if (IsInf(b)) {
    if (IsInf(a)) return ((a > 0) == (b > 0)) ? kPos : kNeg;
    if (!floor || a == 0 || (a > 0) == (b > 0)) return 0;
    return -1;  // floor(small negative fraction)
  }
  if (IsInf(a)) return ((a > 0) == (b > 0)) ? kPos : kNeg;
  return floor ? FloorDivInt(a, b) : a / b;
}

BoundEntry Everything() { return {kNeg, kPos}; }

BoundEntry Union(const BoundEntry& a, const BoundEntry& b) {
  return {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
}
BoundEntry Intersect(const BoundEntry& a, const BoundEntry& b) {
  return {std::max(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
}

template <typename F>
BoundEntry Corners(const BoundEntry& a, const BoundEntry& b, F f) {
  int64_t v[4] = {f(a.min_value, b.min_value), f(a.min_value, b.max_value), f(a.max_value, b.min_value),
                  f(a.max_value, b.max_value)};
  return {*std::min_element(v, v + 4), *std::max_element(v, v + 4)};
}

// Division of intervals; the divisor interval has its zero removed (a
// division by zero is undefined behaviour, so it cannot contribute).
BoundEntry DivBound(const BoundEntry& a, const BoundEntry& b, bool floor) {
  auto f = [floor](int64_t x, int64_t y) { return SatDiv(x, y, floor); };
  bool have = false;
  BoundEntry res;
  if (b.max_value > 0) {
    BoundEntry pos{std::max<int64_t>(b.min_value, 1), b.max_value};
    res = Corners(a, pos, f);
    have = true;
  }
  if (b.min_value < 0) {
    BoundEntry neg{b.min_value, std::min<int64_t>(b.max_value, -1)};
    BoundEntry r = Corners(a, neg, f);
    res = have ? Union(res, r) : r;
    have = true;
  }
  return have ? res : Everything();
}

BoundEntry FloorModBound(const BoundEntry& a, const BoundEntry& b) {
  if (b.min_value > 0) {
    int64_t bmax1 = IsInf(b.max_value) ? kPos : b.max_value - 1;
    if (a.min_value >= 0 && a.max_value < b.min_value) return a;  // the mod does nothing
    if (a.min_value >= 0) return {0, std::min(a.max_value, bmax1)};
    return {0, bmax1};
  }
  if (b.max_value < 0) {
    int64_t bmin1 = IsInf(b.min_value) ? kNeg : b.min_value + 1;
    if (a.max_value <= 0 && a.min_value > b.max_value) return a;
    return {bmin1, 0};
  }
  int64_t m = std::max(SatNeg(b.min_value), b.max_value);
  int64_t m1 = IsInf(m) ? kPos : m - 1;
  return {SatNeg(m1), m1};
}

BoundEntry TruncModBound(const BoundEntry& a, const BoundEntry& b) {
  int64_t m = std::max(SatNeg(b.min_value), b.max_value);  // largest |b|
  if (m <= 0) return Everything();
  int64_t m1 = IsInf(m) ? kPos : m - 1;
  int64_t bmin_abs = b.min_value > 0 ? b.min_value : (b.max_value < 0 ? SatNeg(b.max_value) : 1);
  if (a.min_value >= 0) {
    if (a.max_value < bmin_abs) return a;
    return {0, std::min(a.max_value, m1)};
  }
  if (a.max_value <= 0) {
    if (SatNeg(a.min_value) < bmin_abs) return a;
    return {std::max(a.min_value, SatNeg(m1)), 0};
  }
  return {std::max(a.min_value, SatNeg(m1)), std::min(a.max_value, m1)};
}

class BoundEvaluator : public ExprFunctor<BoundEntry(const PrimExpr&)> {
 public:
  using FLookup = std::function<const BoundEntry*(const Var&)>;
  explicit BoundEvaluator(FLookup lookup) : lookup_(std::move(lookup)) {}

  BoundEntry VisitExpr(const PrimExpr& e) override {
    BoundEntry r = ExprFunctor::VisitExpr(e);
    // Never claim more than the type can hold for narrow integer types.
    if (e.dtype().is_int() || e.dtype().is_uint() || e.dtype().is_bool()) {
      BoundEntry t = TypeBound(e.dtype());
      BoundEntry i = Intersect(r, t);
      if (i.min_value <= i.max_value) return i;
      return t;
    }
    return r;
  }

  BoundEntry VisitExprDefault_(const Object* op) override {
    return TypeBound(static_cast<const PrimExprNode*>(op)->dtype);
  }
  BoundEntry VisitExpr_(const IntImmNode* op) override { return {op->value, op->value}; }
  BoundEntry VisitExpr_(const FloatImmNode*) override { return Everything(); }
  BoundEntry VisitExpr_(const VarNode* op) override {
    Var v = GetRef<Var>(op);
    auto it = lets_.find(op);
    if (it != lets_.end()) return it->second;
    if (const BoundEntry* b = lookup_(v)) return *b;
    BoundEntry t = TypeBound(op->dtype);
    if (op->IsInstance<SizeVarNode>()) t.min_value = std::max<int64_t>(t.min_value, 0);
    return t;
  }
  BoundEntry VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }
  BoundEntry VisitExpr_(const AddNode* op) override {
    BoundEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {SatAdd(a.min_value, b.min_value), SatAdd(a.max_value, b.max_value)};
  }
  BoundEntry VisitExpr_(const SubNode* op) override {
    BoundEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {SatAdd(a.min_value, SatNeg(b.max_value)), SatAdd(a.max_value, SatNeg(b.min_value))};
  }
  BoundEntry VisitExpr_(const MulNode* op) override {
    return Corners(VisitExpr(op->a), VisitExpr(op->b), SatMul);
  }
  BoundEntry VisitExpr_(const DivNode* op) override {
    if (!op->dtype.is_int() && !op->dtype.is_uint()) return Everything();
    return DivBound(VisitExpr(op->a), VisitExpr(op->b), false);
  }
  BoundEntry VisitExpr_(const FloorDivNode* op) override {
    if (!op->dtype.is_int() && !op->dtype.is_uint()) return Everything();
    return DivBound(VisitExpr(op->a), VisitExpr(op->b), true);
  }
  BoundEntry VisitExpr_(const ModNode* op) override {
    if (!op->dtype.is_int() && !op->dtype.is_uint()) return Everything();
    return TruncModBound(VisitExpr(op->a), VisitExpr(op->b));
  }
  BoundEntry VisitExpr_(const FloorModNode* op) override {
    if (!op->dtype.is_int() && !op->dtype.is_uint()) return Everything();
    return FloorModBound(VisitExpr(op->a), VisitExpr(op->b));
  }
  BoundEntry VisitExpr_(const MinNode* op) override {
    BoundEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
  }
  BoundEntry VisitExpr_(const MaxNode* op) override {
    BoundEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    return {std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  }
  BoundEntry VisitExpr_(const SelectNode* op) override {
    BoundEntry c = VisitExpr(op->condition);
    if (c.is_const(1)) return VisitExpr(op->true_value);
    if (c.is_const(0)) return VisitExpr(op->false_value);
    return Union(VisitExpr(op->true_value), VisitExpr(op->false_value));
  }
  BoundEntry VisitExpr_(const CastNode* op) override {
    BoundEntry target = TypeBound(op->dtype);
    DataType from = op->value.dtype();
    if (!(from.is_int() || from.is_uint() || from.is_bool())) return target;
    BoundEntry v = VisitExpr(op->value);
    if (v.min_value >= target.min_value && v.max_value <= target.max_value) return v;
    return target;
  }
  BoundEntry VisitExpr_(const LetNode* op) override {
    BoundEntry v = VisitExpr(op->value);
    lets_[op->var.get()] = v;
    BoundEntry r = VisitExpr(op->body);
    lets_.erase(op->var.get());
    return r;
  }
  BoundEntry VisitExpr_(const RampNode* op) override {
    BoundEntry base = VisitExpr(op->base), stride = VisitExpr(op->stride);
    BoundEntry last = Corners(stride, BoundEntry{op->lanes - 1, op->lanes - 1}, SatMul);
    return {SatAdd(base.min_value, std::min<int64_t>(0, last.min_value)),
            SatAdd(base.max_value, std::max<int64_t>(0, last.max_value))};
  }
  BoundEntry VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }
  BoundEntry VisitExpr_(const EQNode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const NENode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const LTNode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const LENode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const GTNode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const GENode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const AndNode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const OrNode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const NotNode*) override { return {0, 1}; }
  BoundEntry VisitExpr_(const CallNode* op) override {
    const auto* callee = op->op.as<OpNode>();
    BoundEntry t = TypeBound(op->dtype);
    if (callee == nullptr) return t;
    const std::string& name = callee->name;
    if (name == "tir.if_then_else" && op->args.size() == 3) {
      return Union(VisitExpr(op->args[1]), VisitExpr(op->args[2]));
    }
    if (name == "tir.shift_right" && op->args.size() == 2) {
      BoundEntry a = VisitExpr(op->args[0]), b = VisitExpr(op->args[1]);
      if (a.min_value >= 0 && b.min_value >= 0 && b.max_value < 63 && !IsInf(a.max_value)) {
        return {a.min_value >> b.max_value, a.max_value >> b.min_value};
      }
      return t;
    }
    if (name == "tir.bitwise_and" && op->args.size() == 2) {
      BoundEntry a = VisitExpr(op->args[0]), b = VisitExpr(op->args[1]);
      if (a.min_value >= 0 && b.min_value >= 0) return {0, std::min(a.max_value, b.max_value)};
      if (a.min_value >= 0) return {0, a.max_value};
      if (b.min_value >= 0) return {0, b.max_value};
      return t;
    }
    return t;
  }

 private:
  FLookup lookup_;
  std::unordered_map<const VarNode*, BoundEntry> lets_;
};

}  // namespace

BoundEntry ConstIntBoundAnalyzer::Eval(const PrimExpr& expr) const {
  TESSERA_CHECK_OR_THROW(expr.defined(), ValueError) << "const_int_bound: expression is undefined (None)";
  BoundEvaluator ev([this](const Var& v) { return Lookup(v); });
  return ev.VisitExpr(expr);
}

ConstIntBound ConstIntBoundAnalyzer::operator()(const PrimExpr& expr) const {
  BoundEntry b = Eval(expr);
  return ConstIntBound(b.min_value, b.max_value);
}

void ConstIntBoundAnalyzer::Update(const Var& var, const BoundEntry& bound) {
  var_map_[var.get()] = Fact{var, bound};
}

void ConstIntBoundAnalyzer::Update(const Var& var, const ConstIntBound& bound, bool) {
  TESSERA_CHECK_OR_THROW(var.defined() && bound.defined(), ValueError) << "const_int_bound update: undefined argument";
  Update(var, BoundEntry{bound->min_value, bound->max_value});
}

void ConstIntBoundAnalyzer::Bind(const Var& var, const Range& range, bool) {
  TESSERA_CHECK_OR_THROW(var.defined() && range.defined(), ValueError) << "const_int_bound bind: undefined argument";
  BoundEntry mn = Eval(range->min);
  BoundEntry ext = Eval(range->extent);
  // var in [min, min + extent - 1]
  int64_t hi = SatAdd(SatAdd(mn.max_value, ext.max_value), -1);
  if (IsInf(mn.max_value) || IsInf(ext.max_value)) hi = kPos;
  Update(var, BoundEntry{mn.min_value, hi});
}

void ConstIntBoundAnalyzer::Unbind(const Var& var) { var_map_.erase(var.get()); }

const BoundEntry* ConstIntBoundAnalyzer::Lookup(const Var& var) const {
  auto it = var_map_.find(var.get());
  return it == var_map_.end() ? nullptr : &it->second.bound;
}

TESSERA_REGISTER_OBJECT_TYPE(ConstIntBoundNode);
TESSERA_REGISTER_NODE(ConstIntBoundNode)
    .field("min_value", &ConstIntBoundNode::min_value)
    .field("max_value", &ConstIntBoundNode::max_value);
TESSERA_REGISTER_GLOBAL("arith.ConstIntBound").set_body_typed([](int64_t mn, int64_t mx) {
  return ConstIntBound(mn, mx);
});

}  // namespace arith
}  // namespace tessera
