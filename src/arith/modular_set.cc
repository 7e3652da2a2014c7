// Modular set analysis (see modular_set.h): propagates coeff*k + base facts
// through +, -, *, floordiv/floormod (and non-negative truncdiv/truncmod)
// by constants, min/max/select (as unions) and lets.
#include "arith/modular_set.h"

#include <numeric>

#include "arith/analyzer.h"
#include "arith/int_operator.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace arith {

using namespace tir;

ModularSet::ModularSet(int64_t coeff, int64_t base) {
  auto n = make_object<ModularSetNode>();
  n->coeff = coeff;
  n->base = base;
  data_ = std::move(n);
}

namespace {


int64_t Gcd(int64_t a, int64_t b) { return std::gcd(a < 0 ? -a : a, b < 0 ? -b : b); }

bool Fits(__int128 v) { return v > -(__int128{1} << 62) && v < (__int128{1} << 62); }

ModularEntry Make(__int128 coeff, __int128 base) {
  if (!Fits(coeff) || !Fits(base)) return ModularEntry::Everything();
  int64_t c = static_cast<int64_t>(coeff < 0 ? -coeff : coeff);
  int64_t b = static_cast<int64_t>(base);
  if (c != 0) b = FloorModInt(b, c);
  return {c, b};
}

// The smallest modular set containing both.
ModularEntry UnionOf(const ModularEntry& a, const ModularEntry& b) {
  int64_t c = Gcd(Gcd(a.coeff, b.coeff), a.base - b.base);
  return Make(c, a.base);
}

class ModularEvaluator : public ExprFunctor<ModularEntry(const PrimExpr&)> {
 public:
  ModularEvaluator(const std::function<const ModularEntry*(const VarNode*)>& lookup, Analyzer* parent)
      : lookup_(lookup), parent_(parent) {}

  ModularEntry VisitExprDefault_(const Object*) override { return ModularEntry::Everything(); }
  ModularEntry VisitExpr_(const IntImmNode* op) override { return {0, op->value}; }
  ModularEntry VisitExpr_(const VarNode* op) override {
    auto it = lets_.find(op);
    if (it != lets_.end()) return it->second;
    if (const ModularEntry* e = lookup_(op)) return *e;
    return ModularEntry::Everything();
  }
  ModularEntry VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }
  ModularEntry VisitExpr_(const AddNode* op) override {
    ModularEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(Gcd(a.coeff, b.coeff), static_cast<__int128>(a.base) + b.base);
  }
  ModularEntry VisitExpr_(const SubNode* op) override {
    ModularEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    return Make(Gcd(a.coeff, b.coeff), static_cast<__int128>(a.base) - b.base);
  }
  ModularEntry VisitExpr_(const MulNode* op) override {
    ModularEntry a = VisitExpr(op->a), b = VisitExpr(op->b);
    // (ca*k + ba)(cb*l + bb) = ca*cb*kl + ca*bb*k + cb*ba*l + ba*bb
    __int128 c1 = static_cast<__int128>(a.coeff) * b.coeff;
    __int128 c2 = static_cast<__int128>(a.coeff) * b.base;
    __int128 c3 = static_cast<__int128>(b.coeff) * a.base;
    if (!Fits(c1) || !Fits(c2) || !Fits(c3)) return ModularEntry::Everything();
    int64_t c = Gcd(Gcd(static_cast<int64_t>(c1), static_cast<int64_t>(c2)), static_cast<int64_t>(c3));
    return Make(c, static_cast<__int128>(a.base) * b.base);
  }
  ModularEntry DivByConst(const PrimExpr& lhs, int64_t d) {
    ModularEntry a = VisitExpr(lhs);
    if (a.coeff == 0) return Make(0, FloorDivInt(a.base, d));
    // (c*k + b) // d == (c/d)*k + b // d when d divides c and 0 <= b < c.
    if (d > 0 && a.coeff % d == 0) return Make(a.coeff / d, FloorDivInt(a.base, d));
    return ModularEntry::Everything();
  }
  ModularEntry ModByConst(const PrimExpr& lhs, int64_t d) {
    ModularEntry a = VisitExpr(lhs);
    if (a.coeff % d == 0) return Make(0, FloorModInt(a.base, d));  // includes constants (coeff 0)
    int64_t c = Gcd(a.coeff, d);
    if (c == 0) return ModularEntry::Everything();
    return Make(c, a.base);
  }
  ModularEntry VisitExpr_(const FloorDivNode* op) override {
    const int64_t* d = AsConstInt(op->b);
    if (d && *d != 0) return DivByConst(op->a, *d);
    return ModularEntry::Everything();
  }
  ModularEntry VisitExpr_(const FloorModNode* op) override {
    const int64_t* d = AsConstInt(op->b);
    if (d && *d != 0) return ModByConst(op->a, *d);
    return ModularEntry::Everything();
  }
  // Truncating division agrees with flooring division for non-negative operands.
  ModularEntry VisitExpr_(const DivNode* op) override {
    const int64_t* d = AsConstInt(op->b);
    if (d && *d > 0 && NonNegative(op->a)) return DivByConst(op->a, *d);
    return ModularEntry::Everything();
  }
  ModularEntry VisitExpr_(const ModNode* op) override {
    const int64_t* d = AsConstInt(op->b);
    if (d && *d > 0 && NonNegative(op->a)) return ModByConst(op->a, *d);
    return ModularEntry::Everything();
  }
  ModularEntry VisitExpr_(const MinNode* op) override { return UnionOf(VisitExpr(op->a), VisitExpr(op->b)); }
  ModularEntry VisitExpr_(const MaxNode* op) override { return UnionOf(VisitExpr(op->a), VisitExpr(op->b)); }
  ModularEntry VisitExpr_(const SelectNode* op) override {
    return UnionOf(VisitExpr(op->true_value), VisitExpr(op->false_value));
  }
  ModularEntry VisitExpr_(const CastNode* op) override {
    if (op->dtype.is_int() && (op->value.dtype().is_int() || op->value.dtype().is_uint()) &&
        op->dtype.bits() >= op->value.dtype().bits()) {
      return VisitExpr(op->value);
    }
    return ModularEntry::Everything();
  }
  ModularEntry VisitExpr_(const LetNode* op) override {
    lets_[op->var.get()] = VisitExpr(op->value);
    ModularEntry r = VisitExpr(op->body);
    lets_.erase(op->var.get());
    return r;
  }
  ModularEntry VisitExpr_(const BroadcastNode* op) override { return VisitExpr(op->value); }

 private:
  bool NonNegative(const PrimExpr& e) {
    return parent_ != nullptr && parent_->const_int_bound.Eval(e).min_value >= 0;
  }
  const std::function<const ModularEntry*(const VarNode*)>& lookup_;
  Analyzer* parent_;
  std::unordered_map<const VarNode*, ModularEntry> lets_;
};

}  // namespace

ModularEntry ModularSetAnalyzer::Eval(const PrimExpr& expr) const {
  TESSERA_CHECK_OR_THROW(expr.defined(), ValueError) << "modular_set: expression is undefined (None)";
  std::function<const ModularEntry*(const VarNode*)> lookup = [this](const VarNode* v) -> const ModularEntry* {
    auto it = var_map_.find(v);
    return it == var_map_.end() ? nullptr : &it->second.entry;
  };
  ModularEvaluator ev(lookup, parent_);
  return ev.VisitExpr(expr);
}

ModularSet ModularSetAnalyzer::operator()(const PrimExpr& expr) const {
  ModularEntry e = Eval(expr);
  return ModularSet(e.coeff, e.base);
}

void ModularSetAnalyzer::Update(const Var& var, const ModularSet& info, bool) {
  TESSERA_CHECK_OR_THROW(var.defined() && info.defined(), ValueError) << "modular_set update: undefined argument";
  var_map_[var.get()] = Fact{var, Make(info->coeff, info->base)};
}

void ModularSetAnalyzer::Unbind(const Var& var) { var_map_.erase(var.get()); }

TESSERA_REGISTER_OBJECT_TYPE(ModularSetNode);
TESSERA_REGISTER_NODE(ModularSetNode)
    .field("coeff", &ModularSetNode::coeff)
    .field("base", &ModularSetNode::base);
TESSERA_REGISTER_GLOBAL("arith.ModularSet").set_body_typed([](int64_t coeff, int64_t base) {
  return ModularSet(coeff, base);
});

}  // namespace arith
}  // namespace tessera
