// Constant bounds, modular sets and integer sets: hand-checked cases plus
// brute-force containment over every point of small variable ranges.
#include <gtest/gtest.h>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "test_arith_util.h"

namespace tessera {
namespace {

using namespace tir;
using arith::Analyzer;
using arith::ConstIntBound;
using arith::ExprToString;
using arith::IntSet;
using arith_test::Env;
using arith_test::Eval;
using arith_test::ExprGen;
using arith_test::ForEachPoint;
using arith_test::VarDomain;

PrimExpr I(int64_t v) { return IntImm(DataType::Int(32), v); }

TEST(ArithConstIntBound, Basics) {
  Analyzer a;
  Var x("x"), y("y");
  a.Bind(x, Range::FromMinExtent(I(0), I(8)));
  a.Bind(y, Range::FromMinExtent(I(-2), I(5)));
  auto b = a.const_int_bound(Add(Mul(x, I(4)), y));
  EXPECT_EQ(b->min_value, -2);
  EXPECT_EQ(b->max_value, 30);
  b = a.const_int_bound(FloorMod(y, I(3)));
  EXPECT_EQ(b->min_value, 0);
  EXPECT_EQ(b->max_value, 2);
  b = a.const_int_bound(FloorDiv(y, I(2)));
  EXPECT_EQ(b->min_value, -1);
  EXPECT_EQ(b->max_value, 1);
  b = a.const_int_bound(Mod(y, I(3)));
  EXPECT_EQ(b->min_value, -2);
  EXPECT_EQ(b->max_value, 2);
  b = a.const_int_bound(Min(x, y));
  EXPECT_EQ(b->min_value, -2);
  EXPECT_EQ(b->max_value, 2);
  SizeVar n("n");
  b = a.const_int_bound(n);
  EXPECT_EQ(b->min_value, 0);
  Var w("w", DataType::Int(64));
  b = a.const_int_bound(w);
  EXPECT_EQ(b->min_value, ConstIntBound::kNegInf);
  EXPECT_EQ(b->max_value, ConstIntBound::kPosInf);
  b = a.const_int_bound(Add(w, IntImm(DataType::Int(64), 1)));  // infinities saturate
  EXPECT_EQ(b->max_value, ConstIntBound::kPosInf);
  Var t("t");
  b = a.const_int_bound(Let(t, Add(x, I(1)), Mul(t, I(2))));
  EXPECT_EQ(b->min_value, 2);
  EXPECT_EQ(b->max_value, 16);
  b = a.const_int_bound(Cast(DataType::Int(64), x));
  EXPECT_EQ(b->max_value, 7);
  b = a.const_int_bound(Cast(DataType::Int(8), Mul(x, I(100))));  // may wrap: the type's range
  EXPECT_EQ(b->min_value, -128);
  EXPECT_EQ(b->max_value, 127);
}

TEST(ArithModularSet, Basics) {
  Analyzer a;
  Var i("i"), j("j");
  auto m = a.modular_set(Add(Mul(i, I(4)), I(2)));
  EXPECT_EQ(m->coeff, 4);
  EXPECT_EQ(m->base, 2);
  m = a.modular_set(Add(Mul(i, I(6)), Mul(j, I(4))));
  EXPECT_EQ(m->coeff, 2);
  EXPECT_EQ(m->base, 0);
  m = a.modular_set(FloorDiv(Add(Mul(i, I(8)), I(4)), I(2)));
  EXPECT_EQ(m->coeff, 4);
  EXPECT_EQ(m->base, 2);
  m = a.modular_set(FloorMod(Add(Mul(i, I(8)), I(5)), I(4)));
  EXPECT_EQ(m->coeff, 0);
  EXPECT_EQ(m->base, 1);
  m = a.modular_set(Mul(Add(Mul(i, I(2)), I(1)), Add(Mul(j, I(2)), I(1))));  // odd * odd
  EXPECT_EQ(m->coeff, 2);
  EXPECT_EQ(m->base, 1);
  m = a.modular_set(i);
  EXPECT_EQ(m->coeff, 1);
}

TEST(ArithBounds, RandomBoundsAndModularSetsHold) {
  Var x("x"), y("y"), z("z");
  std::vector<VarDomain> doms{{x, 0, 5}, {y, -3, 3}, {z, 2, 4}};
  Analyzer a;
  for (const auto& d : doms) a.Bind(d.var, Range::FromMinExtent(I(d.lo), I(d.hi - d.lo + 1)));
  ExprGen gen({x, y, z}, 2024);
  int tight = 0;
  for (int n = 0; n < 3000; ++n) {
    PrimExpr e = gen.IntExpr(static_cast<int>(gen.Rand(1, 4)));
    auto b = a.const_int_bound(e);
    auto m = a.modular_set(e);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    ForEachPoint(doms, [&](Env& env) {
      auto v = Eval(e, env);
      if (!v) return;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
      ASSERT_LE(b->min_value, *v) << ExprToString(e);
      ASSERT_GE(b->max_value, *v) << ExprToString(e);
      if (m->coeff == 0) {
        ASSERT_EQ(*v, m->base) << ExprToString(e);
      } else {
        ASSERT_EQ(arith_test::FloorModRef(*v - m->base, m->coeff), 0)
            << ExprToString(e) << " claimed " << m->coeff << "k+" << m->base << " but is " << *v;
      }
    });
    if (HasFatalFailure()) return;
    if (b->min_value == lo && b->max_value == hi) ++tight;
  }
  EXPECT_GT(tight, 1000);  // exact for a good share of the expressions
}

TEST(ArithIntSet, Basics) {
  Var i("i"), j("j"), n("n");
  Map<Var, IntSet> dom{{i, IntSet::FromRange(Range::FromMinExtent(I(0), I(8)))},
                       {j, IntSet::FromRange(Range::FromMinExtent(I(0), I(4)))}};
  IntSet s = arith::EvalSet(Add(Mul(i, I(4)), j), dom);
  EXPECT_EQ(ExprToString(s.min()), "0");
  EXPECT_EQ(ExprToString(s.max()), "31");
  s = arith::EvalSet(Sub(i, i), dom);  // simplified first: exact
  EXPECT_TRUE(s.IsSinglePoint());
  // symbolic: i in [0, n) relaxed, offsets stay symbolic
  Map<Var, IntSet> sym{{i, IntSet::FromRange(Range::FromMinExtent(I(0), n))}};
  s = arith::EvalSet(Add(Mul(j, I(16)), i), sym);
  EXPECT_EQ(ExprToString(s.min()), "j * 16");
  EXPECT_EQ(ExprToString(s.max()), "j * 16 + n - 1");
  Range cover = s.CoverRange(Range::FromMinExtent(I(0), I(1)));
  EXPECT_EQ(ExprToString(cover->min), "j * 16");
  EXPECT_EQ(ExprToString(cover->extent), "n");
  // unions / intersections / infinities
  IntSet u = arith::Union({IntSet::Interval(I(0), I(3)), IntSet::Interval(I(5), I(9))});
  EXPECT_EQ(ExprToString(u.min()), "0");
  EXPECT_EQ(ExprToString(u.max()), "9");
  IntSet x = arith::Intersect({IntSet::Interval(I(0), I(6)), IntSet::Interval(I(5), I(9))});
  EXPECT_EQ(ExprToString(x.min()), "5");
  EXPECT_EQ(ExprToString(x.max()), "6");
  EXPECT_TRUE(arith::Intersect({IntSet::Interval(I(0), I(3)), IntSet::Interval(I(5), I(9))}).IsNothing());
  EXPECT_TRUE(IntSet::Everything().IsEverything());
  Var w("w");
  Map<Var, IntSet> inf{{w, IntSet::Everything()}};
  s = arith::EvalSet(Add(w, I(1)), inf);
  EXPECT_TRUE(s.IsEverything());
  s = arith::EvalSet(FloorMod(w, I(8)), inf);
  EXPECT_EQ(ExprToString(s.min()), "0");
  EXPECT_EQ(ExprToString(s.max()), "7");
  EXPECT_THROW(arith::EvalSet(PrimExpr(), dom), ValueError);
}

TEST(ArithIntSet, RandomSetsContainAllValuesAndAreExactForAffine) {
  Var x("x"), y("y"), z("z");
  std::vector<VarDomain> doms{{x, 0, 5}, {y, -3, 3}, {z, 1, 4}};
  Map<Var, IntSet> dom;
  for (const auto& d : doms) dom.Set(d.var, IntSet::Interval(I(d.lo), I(d.hi)));
  ExprGen gen({x, y, z}, 31337);
  for (int n = 0; n < 2000; ++n) {
    bool affine = n % 2 == 0;
    PrimExpr e;
    if (affine) {
      e = I(gen.Rand(-5, 5));
      for (const auto& d : doms) e = Add(e, Mul(d.var, I(gen.Rand(-4, 4))));
      e = Add(e, Mul(doms[gen.Rand(0, 2)].var, I(gen.Rand(-3, 3))));  // a repeated variable
    } else {
      e = gen.IntExpr(static_cast<int>(gen.Rand(1, 3)));
    }
    IntSet s = arith::EvalSet(e, dom);
    std::optional<int64_t> lo = s.HasLowerBound() ? ConstIntValue(s.min()) : std::nullopt;
    std::optional<int64_t> hi = s.HasUpperBound() ? ConstIntValue(s.max()) : std::nullopt;
    ASSERT_TRUE(!s.HasLowerBound() || lo) << ExprToString(e) << ": symbolic lower end " << ExprToString(s.min());
    ASSERT_TRUE(!s.HasUpperBound() || hi) << ExprToString(e) << ": symbolic upper end " << ExprToString(s.max());
    int64_t seen_lo = INT64_MAX, seen_hi = INT64_MIN;
    ForEachPoint(doms, [&](Env& env) {
      auto v = Eval(e, env);
      if (!v) return;
      seen_lo = std::min(seen_lo, *v);
      seen_hi = std::max(seen_hi, *v);
      if (lo) {
        ASSERT_LE(*lo, *v) << ExprToString(e);
      }
      if (hi) {
        ASSERT_GE(*hi, *v) << ExprToString(e);
      }
    });
    if (HasFatalFailure()) return;
    if (affine) {
      ASSERT_TRUE(lo && hi);
      EXPECT_EQ(*lo, seen_lo) << ExprToString(e);
      EXPECT_EQ(*hi, seen_hi) << ExprToString(e);
    }
  }
}

}  // namespace
}  // namespace tessera
