// The dataflow pattern core in C++ (src/relax/dpl): MatchExpr sees through
// var2val, a pattern used twice must match the same expression, Or rolls back
// the memo of a failed alternative, and RewriteCall with a C++ rewriter tries
// only calls of the root op (counted match attempts).
#include <gtest/gtest.h>

#include "ir/structural_equal.h"
#include "relax/dpl/rewrite.h"
#include "relax/expr_functor.h"

namespace tessera {
namespace relax {
namespace dpl {
namespace {

TensorStructInfo Tensor4() { return TensorStructInfo(ShapeExpr({IntImm(DataType::Int(64), 4)}), DataType::Float(32)); }

template <typename N>
DFPattern Make(const std::function<void(N*)>& fill = nullptr) {
  auto n = make_object<N>();
  if (fill) fill(n.get());
  return DFPattern(std::move(n));
}

DFPattern Wildcard() { return Make<WildcardPatternNode>(); }

DFPattern IsCall(const std::string& op, Array<DFPattern> args) {
  DFPattern op_pattern = Make<ExprPatternNode>([&](ExprPatternNode* n) { n->expr = Op::Get(op); });
  return Make<CallPatternNode>([&](CallPatternNode* n) {
    n->op = op_pattern;
    n->args = args;
  });
}

Call Binary(const std::string& op, RelaxExpr a, RelaxExpr b) {
  return Downcast<Call>(BlockBuilder::Create()->Normalize(Call(Op::Get(op), {a, b})));
}

TEST(RelaxDpl, MatchExprSeesThroughVar2Val) {
  Var x("x", Tensor4()), y("y", Tensor4()), a("a", Tensor4());
  Call add = Binary("relax.add", x, y);
  Call mul = Binary("relax.multiply", a, a);
  DFPattern pattern = IsCall("relax.multiply", {IsCall("relax.add", {Wildcard(), Wildcard()}), Wildcard()});
  EXPECT_FALSE(MatchExpr(pattern, mul));
  Map<Var, RelaxExpr> var2val;
  var2val.Set(a, add);
  EXPECT_TRUE(MatchExpr(pattern, mul, var2val));
}

TEST(RelaxDpl, SamePatternTwiceMatchesSameExpression) {
  Var x("x", Tensor4()), y("y", Tensor4());
  DFPattern w = Wildcard();
  DFPattern twice = IsCall("relax.add", {w, w});
  EXPECT_TRUE(MatchExpr(twice, Binary("relax.add", x, x)));
  EXPECT_FALSE(MatchExpr(twice, Binary("relax.add", x, y)));
}

TEST(RelaxDpl, OrRollsBackFailedAlternative) {
  Var x("x", Tensor4()), y("y", Tensor4());
  DFPattern w = Wildcard();
  DFPattern is_x = Make<ExprPatternNode>([&](ExprPatternNode* n) { n->expr = x; });
  DFPattern left = IsCall("relax.subtract", {w, is_x});   // binds w to x, then fails
  DFPattern right = IsCall("relax.subtract", {is_x, w});  // needs w unbound
  DFPattern either = Make<OrPatternNode>([&](OrPatternNode* n) {
    n->left = left;
    n->right = right;
  });
  PatternMatcher m;
  ASSERT_TRUE(m.Match(either, Binary("relax.subtract", x, y)));
  EXPECT_TRUE(m.Matched().at(w).same_as(y));
}

TEST(RelaxDpl, RewriteCallTriesOnlyRootOpCalls) {
  Var x("x", Tensor4());
  auto bb = BlockBuilder::Create();
  bb->BeginScope(Array<Var>{x});
  bb->BeginDataflowBlock();
  Var e1 = bb->Emit(Call(Op::Get("relax.exp"), {x}));
  Var e2 = bb->Emit(Call(Op::Get("relax.exp"), {e1}));
  Var s = bb->Emit(Binary("relax.add", e2, e2));
  Var out = bb->EmitOutput(Call(Op::Get("relax.exp"), {s}));
  BindingBlock block = bb->EndBlock();
  bb->EndScope();
  Function f({x}, SeqExpr({block}, out));
  DFPattern w = Wildcard();
  int64_t before = PatternMatcher::Attempts();
  int calls = 0;
  Function g = RewriteCall({IsCall("relax.add", {w, w})},
                           [&](const DFPattern&, const RelaxExpr& call, const Map<DFPattern, RelaxExpr>& m) {
                             ++calls;
                             return RelaxExpr(Binary("relax.multiply", m.at(w), m.at(w)));
                           },
                           f);
  EXPECT_EQ(calls, 1);
  // Round 1 rewrites the add, round 2 finds nothing: the exp bindings are never tried.
  EXPECT_EQ(PatternMatcher::Attempts() - before, 1);
  EXPECT_FALSE(StructuralEqual(g, f));
}

}  // namespace
}  // namespace dpl
}  // namespace relax
}  // namespace tessera
