// Simplifier: the shapes TVM users expect (canonical sums, split/fuse
// division rules, bound-driven folding) and value preservation checked by
// brute force on thousands of random expressions over small ranges.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "test_arith_util.h"

namespace tessera {
namespace {

using namespace tir;
using arith::Analyzer;
using arith::ExprToString;
using arith_test::Env;
using arith_test::Eval;
using arith_test::ExprGen;
using arith_test::ForEachPoint;
using arith_test::VarDomain;

PrimExpr I(int64_t v) { return IntImm(DataType::Int(32), v); }

TEST(ArithSimplify, CombinesLikeTerms) {
  Analyzer a;
  Var x("x"), y("y");
  EXPECT_EQ(ExprToString(a.Simplify(Add(Mul(x, I(4)), Mul(x, I(2))))), "x * 6");
  EXPECT_EQ(ExprToString(a.Simplify(Sub(Add(x, I(3)), x))), "3");
  EXPECT_EQ(ExprToString(a.Simplify(Sub(Add(x, y), Add(y, x)))), "0");
  EXPECT_EQ(ExprToString(a.Simplify(Add(Mul(Add(x, I(1)), I(3)), Sub(I(2), x)))), "x * 2 + 5");
  EXPECT_EQ(ExprToString(a.Simplify(Sub(I(3), x))), "3 - x");
  EXPECT_EQ(ExprToString(a.Simplify(Mul(Mul(y, x), I(2)))), "x * y * 2");
  EXPECT_EQ(ExprToString(a.Simplify(Sub(Mul(x, y), Mul(y, x)))), "0");
}

TEST(ArithSimplify, DeterministicTermOrder) {
  Analyzer a;
  Var i0("i_0"), i1("i_1");
  // Decreasing coefficient; ties keep the order of appearance.
  EXPECT_EQ(ExprToString(a.Simplify(Add(i1, Mul(i0, I(4))))), "i_0 * 4 + i_1");
  EXPECT_EQ(ExprToString(a.Simplify(Add(Mul(i0, I(4)), i1))), "i_0 * 4 + i_1");
  EXPECT_EQ(ExprToString(a.Simplify(Sub(Add(i1, I(7)), Mul(i0, I(2))))), "i_1 + 7 - i_0 * 2");
}

TEST(ArithSimplify, SplitAndFuseDivisions) {
  Analyzer a;
  Var i("i"), j("j"), x("x"), f("f");
  a.Bind(i, Range::FromMinExtent(I(0), I(16)));
  a.Bind(j, Range::FromMinExtent(I(0), I(4)));
  PrimExpr fused = Add(Mul(i, I(4)), j);
  EXPECT_EQ(ExprToString(a.Simplify(FloorDiv(fused, I(4)))), "i");
  EXPECT_EQ(ExprToString(a.Simplify(FloorMod(fused, I(4)))), "j");
  EXPECT_EQ(ExprToString(a.Simplify(FloorDiv(x, I(1)))), "x");
  EXPECT_EQ(ExprToString(a.Simplify(FloorMod(j, I(4)))), "j");
  EXPECT_EQ(ExprToString(a.Simplify(FloorDiv(FloorMod(x, I(32)), I(4)))), "x % 32 // 4");
  // split then fuse gives back the fused variable
  EXPECT_EQ(ExprToString(a.Simplify(Add(Mul(FloorDiv(f, I(4)), I(4)), FloorMod(f, I(4))))), "f");
  // splitting a split
  EXPECT_EQ(ExprToString(a.Simplify(Add(Mul(FloorMod(FloorDiv(f, I(4)), I(8)), I(4)), FloorMod(f, I(4))))),
            "f % 32");
  EXPECT_EQ(ExprToString(a.Simplify(FloorDiv(FloorDiv(x, I(4)), I(8)))), "x // 32");
  EXPECT_EQ(ExprToString(a.Simplify(FloorMod(FloorMod(x, I(32)), I(8)))), "x % 8");
  EXPECT_EQ(ExprToString(a.Simplify(FloorDiv(Add(Mul(x, I(8)), I(4)), I(4)))), "x * 2 + 1");
  EXPECT_EQ(ExprToString(a.Simplify(FloorMod(Add(Mul(x, I(8)), I(6)), I(4)))), "2");
  EXPECT_EQ(ExprToString(a.Simplify(FloorMod(Add(x, I(5)), I(4)))), "(x + 1) % 4");
  // truncating division of non-negative values behaves the same
  EXPECT_EQ(ExprToString(a.Simplify(Div(fused, I(4)))), "i");
  EXPECT_EQ(ExprToString(a.Simplify(Mod(fused, I(4)))), "j");
}

TEST(ArithSimplify, SymbolicDivisor) {
  Analyzer a;
  Var i("i"), j("j"), n("n");
  a.Bind(j, Range::FromMinExtent(I(0), n));
  a.Bind(i, Range::FromMinExtent(I(0), I(8)));
  EXPECT_EQ(ExprToString(a.Simplify(FloorDiv(Add(Mul(i, n), j), n))), "i");
  EXPECT_EQ(ExprToString(a.Simplify(FloorMod(Add(Mul(i, n), j), n))), "j");
  EXPECT_TRUE(a.CanProve(LT(j, n)));
  EXPECT_FALSE(a.CanProve(LT(j, Sub(n, I(1)))));
}

TEST(ArithSimplify, MinMaxAndComparisons) {
  Analyzer a;
  Var x("x"), y("y");
  a.Bind(x, Range::FromMinExtent(I(0), I(8)));
  EXPECT_EQ(ExprToString(a.Simplify(Min(x, Add(x, I(1))))), "x");
  EXPECT_EQ(ExprToString(a.Simplify(Max(x, Add(x, I(1))))), "x + 1");
  EXPECT_EQ(ExprToString(a.Simplify(Min(x, I(16)))), "x");
  EXPECT_EQ(ExprToString(a.Simplify(Max(x, I(0)))), "x");
  EXPECT_EQ(ExprToString(a.Simplify(Min(x, y))), "min(x, y)");
  EXPECT_EQ(ExprToString(a.Simplify(Min(Min(x, y), y))), "min(x, y)");
  EXPECT_EQ(ExprToString(a.Simplify(LT(x, I(8)))), "True");
  EXPECT_EQ(ExprToString(a.Simplify(GE(x, I(8)))), "False");
  EXPECT_EQ(ExprToString(a.Simplify(EQ(Mul(y, I(4)), I(2)))), "False");  // 4y is never 2
  EXPECT_EQ(ExprToString(a.Simplify(LT(Add(y, I(3)), I(5)))), "y < 2");
  EXPECT_EQ(ExprToString(a.Simplify(Not(LT(y, I(5))))), "5 <= y");
  EXPECT_EQ(ExprToString(a.Simplify(And(LT(x, I(9)), LT(y, I(2))))), "y < 2");
  EXPECT_EQ(ExprToString(a.Simplify(Select(LT(x, I(9)), y, x))), "y");
  EXPECT_TRUE(a.CanProveGreaterEqual(x, 0));
  EXPECT_TRUE(a.CanProveLess(x, 8));
  EXPECT_FALSE(a.CanProveLess(x, 7));
  EXPECT_TRUE(a.CanProveEqual(Add(x, x), Mul(x, I(2))));
  EXPECT_FALSE(a.CanProve(LT(y, I(3))));
}

TEST(ArithSimplify, BindValueAndLet) {
  Analyzer a;
  Var x("x"), y("y"), t("t");
  a.Bind(y, Add(x, I(1)));
  EXPECT_EQ(ExprToString(a.Simplify(Sub(y, x))), "1");
  // Lets of constants / variables are inlined; others stay, with their body simplified.
  EXPECT_EQ(ExprToString(a.Simplify(Let(t, I(2), Sub(Add(t, x), x)))), "2");
  PrimExpr kept = a.Simplify(Let(t, Add(x, I(2)), Add(Sub(t, x), x)));
  ASSERT_TRUE(kept.as<LetNode>());
  EXPECT_EQ(ExprToString(kept.as<LetNode>()->body), "t");
  // A let whose variable stays is kept.
  Analyzer b;
  b.Bind(x, Range::FromMinExtent(I(0), I(4)));
  PrimExpr let2 = Let(t, Mul(x, x), FloorDiv(t, I(16)));
  EXPECT_EQ(ExprToString(b.Simplify(let2)), "0");  // t = x*x in [0, 9]
}

TEST(ArithSimplify, ErrorsAreUserErrors) {
  Analyzer a;
  EXPECT_THROW(a.Simplify(PrimExpr()), ValueError);
  Var x("x");
  // Division by a literal zero is kept, never folded or crashed on.
  EXPECT_NO_THROW(a.Simplify(FloorDiv(x, I(0))));
}

void CheckPreserved(Analyzer& a, const PrimExpr& e, const std::vector<VarDomain>& doms, int* checked) {
  PrimExpr s = a.Simplify(e);
  ForEachPoint(doms, [&](Env& env) {
    auto want = Eval(e, env);
    if (!want) return;
    auto got = Eval(s, env);
    ASSERT_TRUE(got.has_value()) << ExprToString(e) << " simplified to " << ExprToString(s);
    ASSERT_EQ(*want, *got) << ExprToString(e) << " simplified to " << ExprToString(s);
    ++*checked;
  });
}

TEST(ArithSimplify, RandomIntegerExpressionsKeepTheirValue) {
  Var x("x"), y("y"), z("z");
  std::vector<VarDomain> doms{{x, 0, 5}, {y, -3, 3}, {z, 0, 3}};
  Analyzer a;
  for (const auto& d : doms) a.Bind(d.var, Range::FromMinExtent(I(d.lo), I(d.hi - d.lo + 1)));
  ExprGen gen({x, y, z}, 1234);
  int checked = 0;
  for (int n = 0; n < 3000; ++n) {
    CheckPreserved(a, gen.IntExpr(static_cast<int>(gen.Rand(1, 4))), doms, &checked);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(checked, 100000);
}

TEST(ArithSimplify, RandomExpressionsWithoutBoundsKeepTheirValue) {
  // Without facts the simplifier may only use algebra.
  Var x("x"), y("y");
  std::vector<VarDomain> doms{{x, -6, 6}, {y, -4, 4}};
  Analyzer a;
  ExprGen gen({x, y}, 99);
  int checked = 0;
  for (int n = 0; n < 2000; ++n) {
    CheckPreserved(a, gen.IntExpr(static_cast<int>(gen.Rand(1, 4))), doms, &checked);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(checked, 50000);
}

TEST(ArithSimplify, RandomConditionsKeepTheirValue) {
  Var x("x"), y("y"), z("z");
  std::vector<VarDomain> doms{{x, 0, 7}, {y, -2, 2}, {z, 1, 4}};
  Analyzer a;
  for (const auto& d : doms) a.Bind(d.var, Range::FromMinExtent(I(d.lo), I(d.hi - d.lo + 1)));
  ExprGen gen({x, y, z}, 777);
  int checked = 0;
  for (int n = 0; n < 2000; ++n) {
    CheckPreserved(a, gen.BoolExpr(static_cast<int>(gen.Rand(0, 2))), doms, &checked);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(checked, 50000);
}

TEST(ArithSimplify, CanProveIsSound) {
  // Whenever can_prove says yes, the condition holds at every point.
  Var x("x"), y("y");
  std::vector<VarDomain> doms{{x, 0, 6}, {y, 1, 5}};
  Analyzer a;
  for (const auto& d : doms) a.Bind(d.var, Range::FromMinExtent(I(d.lo), I(d.hi - d.lo + 1)));
  ExprGen gen({x, y}, 4242);
  int proved = 0;
  for (int n = 0; n < 3000; ++n) {
    PrimExpr c = gen.BoolExpr(static_cast<int>(gen.Rand(0, 2)));
    if (!a.CanProve(c)) continue;
    ++proved;
    ForEachPoint(doms, [&](Env& env) {
      auto v = Eval(c, env);
      if (v) {
        ASSERT_NE(*v, 0) << "proved but false: " << ExprToString(c);
      }
    });
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(proved, 50);
}

}  // namespace
}  // namespace tessera
