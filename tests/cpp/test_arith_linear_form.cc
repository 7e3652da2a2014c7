// The arith helpers shared by every caller: floordiv/floormod on int64
// (against the reference evaluator's definitions and exhaustive small
// ranges) and the linear-form decomposition (the form's value equals the
// expression's at every point of a box, random expressions; constant
// differences; overflow refused).
#include <gtest/gtest.h>

#include <limits>

#include "arith/int_operator.h"
#include "arith/linear_form.h"
#include "test_arith_util.h"

namespace tessera {
namespace {

using arith_test::Env;
using arith_test::Eval;

TEST(ArithIntOperator, FloorDivModMatchReferenceOnABox) {
  for (int64_t a = -40; a <= 40; ++a) {
    for (int64_t b = -9; b <= 9; ++b) {
      if (b == 0) continue;
      EXPECT_EQ(arith::FloorDivInt(a, b), arith_test::FloorDivRef(a, b)) << a << " // " << b;
      EXPECT_EQ(arith::FloorModInt(a, b), arith_test::FloorModRef(a, b)) << a << " % " << b;
      EXPECT_EQ(arith::FloorDivInt(a, b) * b + arith::FloorModInt(a, b), a);
      if (b > 0) {
        int64_t q = arith::CeilDivInt(a, b);
        EXPECT_GE(q * b, a);
        EXPECT_LT((q - 1) * b, a);
      }
    }
  }
}

TEST(ArithLinearForm, FormEvaluatesLikeTheExpression) {
  tir::Var x("x"), y("y"), z("z");
  arith_test::ExprGen gen({x, y, z}, 1234);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PrimExpr e = gen.IntExpr(3);
    std::optional<arith::LinearForm> f = arith::ToLinearForm(e);
    ASSERT_TRUE(f.has_value()) << "small expressions do not overflow";
    PrimExpr back = f->ToExpr(e.dtype());
    arith_test::ForEachPoint({{x, -3, 3}, {y, -2, 2}, {z, 0, 2}}, [&](Env& env) {
      std::optional<int64_t> want = Eval(e, env);
      if (!want) return;  // division by zero at this point
      std::optional<int64_t> got = Eval(back, env);
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, *want);
      ++checked;
    });
  }
  EXPECT_GT(checked, 1000);
}

TEST(ArithLinearForm, ConstantDifferencesAndAtoms) {
  tir::Var x("x"), y("y");
  PrimExpr lhs = tir::add(tir::add(tir::mul(x, 4), y), 3);
  PrimExpr rhs = tir::add(y, tir::mul(x, 4));
  EXPECT_EQ(arith::ConstantDifference(lhs, rhs), std::optional<int64_t>(3));
  EXPECT_EQ(arith::ConstantDifference(rhs, lhs), std::optional<int64_t>(-3));
  EXPECT_FALSE(arith::ConstantDifference(lhs, x).has_value());
  // Non-linear terms are atoms compared deeply: (x // 2) - (x // 2) cancels.
  PrimExpr half = tir::floordiv(x, 2);
  std::optional<arith::LinearForm> d = arith::LinearDifference(tir::add(half, 5), tir::floordiv(x, 2));
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->IsConstant());
  EXPECT_EQ(d->constant, 5);
  // Distinct variables of the same name are different atoms.
  EXPECT_FALSE(arith::ConstantDifference(x, tir::Var("x")).has_value());
}

TEST(ArithLinearForm, OverflowAndNonIntegersAreRefused) {
  tir::Var x("x", DataType::Int(64));
  PrimExpr big = IntImm(DataType::Int(64), std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(arith::ToLinearForm(tir::add(tir::mul(x, big), tir::mul(x, big))).has_value());
  EXPECT_FALSE(arith::ToLinearForm(tir::Add(big, big)).has_value());  // raw node: no folding
  EXPECT_FALSE(arith::ToLinearForm(FloatImm(DataType::Float(32), 1.0)).has_value());
  EXPECT_FALSE(arith::ToLinearForm(PrimExpr()).has_value());
}

}  // namespace
}  // namespace tessera
