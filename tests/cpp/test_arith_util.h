// Shared helpers of the arith tests: a reference evaluator of integer TIR
// expressions (floor semantics for floordiv/floormod, C truncation for
// Div/Mod) and a seeded random expression generator over a few variables.
#pragma once

#include <functional>
#include <optional>
#include <random>
#include <unordered_map>
#include <vector>

#include "tir/expr.h"
#include "tir/op.h"

namespace tessera {
namespace arith_test {

using namespace tir;
using Env = std::unordered_map<const Object*, int64_t>;

inline int64_t FloorDivRef(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t FloorModRef(int64_t a, int64_t b) { return a - FloorDivRef(a, b) * b; }

// Value of `e` at `env`; nullopt when it divides by zero or is not supported.
inline std::optional<int64_t> Eval(const PrimExpr& e, Env& env) {
  if (const auto* n = e.as<IntImmNode>()) return n->value;
  if (const auto* n = e.as<VarNode>()) {
    auto it = env.find(n);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  if (const auto* n = e.as<CastNode>()) {
    auto v = Eval(n->value, env);
    if (!v) return v;
    if (n->dtype.is_bool()) return *v != 0;
    return *v;  // the tests stay far from the type limits
  }
  if (const auto* n = e.as<NotNode>()) {
    auto v = Eval(n->a, env);
    if (!v) return v;
    return *v == 0;
  }
  if (const auto* n = e.as<SelectNode>()) {
    auto c = Eval(n->condition, env);
    if (!c) return c;
    return Eval(*c ? n->true_value : n->false_value, env);
  }
  if (const auto* n = e.as<LetNode>()) {
    auto v = Eval(n->value, env);
    if (!v) return v;
    env[n->var.get()] = *v;
    auto r = Eval(n->body, env);
    env.erase(n->var.get());
    return r;
  }
  if (const auto* n = e.as<BinaryOpNode>()) {
    auto a = Eval(n->a, env);
    auto b = Eval(n->b, env);
    if (!a || !b) return std::nullopt;
    int64_t x = *a, y = *b;
    if (e.as<AddNode>()) return x + y;
    if (e.as<SubNode>()) return x - y;
    if (e.as<MulNode>()) return x * y;
    if (e.as<DivNode>()) return y == 0 ? std::nullopt : std::optional<int64_t>(x / y);
    if (e.as<ModNode>()) return y == 0 ? std::nullopt : std::optional<int64_t>(x % y);
    if (e.as<FloorDivNode>()) return y == 0 ? std::nullopt : std::optional<int64_t>(FloorDivRef(x, y));
    if (e.as<FloorModNode>()) return y == 0 ? std::nullopt : std::optional<int64_t>(FloorModRef(x, y));
    if (e.as<MinNode>()) return std::min(x, y);
    if (e.as<MaxNode>()) return std::max(x, y);
    if (e.as<EQNode>()) return x == y;
    if (e.as<NENode>()) return x != y;
    if (e.as<LTNode>()) return x < y;
    if (e.as<LENode>()) return x <= y;
    if (e.as<GTNode>()) return x > y;
    if (e.as<GENode>()) return x >= y;
    if (e.as<AndNode>()) return (x != 0) && (y != 0);
    if (e.as<OrNode>()) return (x != 0) || (y != 0);
  }
  return std::nullopt;
}

struct VarDomain {
  Var var;
  int64_t lo, hi;  // inclusive
};

// Calls f(env) for every point of the box.
inline void ForEachPoint(const std::vector<VarDomain>& doms, const std::function<void(Env&)>& f) {
  Env env;
  std::function<void(size_t)> rec = [&](size_t k) {
    if (k == doms.size()) {
      f(env);
      return;
    }
    for (int64_t v = doms[k].lo; v <= doms[k].hi; ++v) {
      env[doms[k].var.get()] = v;
      rec(k + 1);
    }
  };
  rec(0);
}

// Random integer expressions over `vars` (raw nodes, no folding, so the
// simplifier sees the shapes as written).
class ExprGen {
 public:
  ExprGen(std::vector<Var> vars, uint32_t seed) : vars_(std::move(vars)), rng_(seed) {}

  int64_t Rand(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  PrimExpr C(int64_t v) { return IntImm(DataType::Int(32), v); }

  PrimExpr Leaf() {
    if (Rand(0, 3) == 0) return C(Rand(-4, 8));
    return vars_[Rand(0, vars_.size() - 1)];
  }
  PrimExpr NonZeroConst(bool allow_negative) {
    int64_t v = 0;
    while (v == 0) v = allow_negative ? Rand(-5, 8) : Rand(1, 8);
    return C(v);
  }

  PrimExpr IntExpr(int depth) {
    if (depth == 0) return Leaf();
    switch (Rand(0, 13)) {
      case 0:
      case 1: return Add(IntExpr(depth - 1), IntExpr(depth - 1));
      case 2: return Sub(IntExpr(depth - 1), IntExpr(depth - 1));
      case 3: return Mul(IntExpr(depth - 1), C(Rand(-3, 5)));
      case 4: return Mul(IntExpr(depth - 1), Leaf());
      case 5: return FloorDiv(IntExpr(depth - 1), NonZeroConst(Rand(0, 4) == 0));
      case 6: return FloorMod(IntExpr(depth - 1), NonZeroConst(Rand(0, 4) == 0));
      case 7: return Div(IntExpr(depth - 1), NonZeroConst(true));
      case 8: return Mod(IntExpr(depth - 1), NonZeroConst(true));
      case 9: return Min(IntExpr(depth - 1), IntExpr(depth - 1));
      case 10: return Max(IntExpr(depth - 1), IntExpr(depth - 1));
      case 11: return Select(BoolExpr(depth - 1), IntExpr(depth - 1), IntExpr(depth - 1));
      case 12: {  // the shapes schedules produce: split / fuse pieces
        PrimExpr x = IntExpr(depth - 1);
        int64_t c = Rand(1, 6);
        return Add(Mul(FloorDiv(x, C(c)), C(c)), FloorMod(x, C(c)));
      }
      default: return Add(Mul(Leaf(), C(Rand(1, 8))), Leaf());
    }
  }

  PrimExpr BoolExpr(int depth) {
    switch (Rand(0, 8)) {
      case 0: return LT(IntExpr(depth), IntExpr(depth));
      case 1: return LE(IntExpr(depth), IntExpr(depth));
      case 2: return GT(IntExpr(depth), IntExpr(depth));
      case 3: return GE(IntExpr(depth), IntExpr(depth));
      case 4: return EQ(IntExpr(depth), IntExpr(depth));
      case 5: return NE(IntExpr(depth), IntExpr(depth));
      case 6: return depth > 0 ? PrimExpr(And(BoolExpr(depth - 1), BoolExpr(depth - 1))) : PrimExpr(LT(Leaf(), Leaf()));
      case 7: return depth > 0 ? PrimExpr(Or(BoolExpr(depth - 1), BoolExpr(depth - 1))) : PrimExpr(EQ(Leaf(), Leaf()));
      default: return Not(LT(IntExpr(depth), IntExpr(depth)));
    }
  }

 private:
  std::vector<Var> vars_;
  std::mt19937 rng_;
};

}  // namespace arith_test
}  // namespace tessera
