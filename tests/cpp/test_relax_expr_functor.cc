// Relax ExprVisitor / ExprMutator (src/relax/expr_functor.h): a visitor
// sees every binding and var definition; a mutator that changes a call's
// result struct info re-emits the binding with a new var and remaps later
// uses (checked against a hand-built expected function); unchanged IR is
// returned as the same object; long binding chains and deep nesting do not
// overflow the stack.
#include <gtest/gtest.h>

#include "ir/structural_equal.h"
#include "relax/expr_functor.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace relax {
namespace {

TensorStructInfo Tensor(Array<PrimExpr> dims) { return TensorStructInfo(ShapeExpr(dims), DataType::Float(32)); }

Call PurePacked(const std::string& name, Array<RelaxExpr> args, StructInfo ret) {
  Array<RelaxExpr> all{ExternFunc(name)};
  for (const RelaxExpr& a : args) all.push_back(a);
  return Call(Op::Get("relax.call_pure_packed"), all, ObjectRef(), {ret});
}

// main(x) { a = g(x); b = f(a); return b } (normalized)
Function MakeChain(const std::string& g_name = "g") {
  Var x("x", Tensor({4}));
  Var a("a", Tensor({4}));
  Var b("b", Tensor({4}));
  BindingBlock block({VarBinding(a, PurePacked(g_name, {x}, Tensor({4}))), VarBinding(b, PurePacked("f", {a}, Tensor({4})))});
  return Downcast<Function>(BlockBuilder::Create()->Normalize(Function({x}, SeqExpr({block}, b))));
}

TEST(RelaxExprFunctor, VisitorSeesDefinitionsAndUses) {
  class Counter : public ExprVisitor {
   public:
    int defs = 0, uses = 0, calls = 0;
    void VisitVarDef_(const VarNode*) override { ++defs; }
    void VisitExpr_(const VarNode*) override { ++uses; }
    void VisitExpr_(const CallNode* op) override {
      ++calls;
      ExprVisitor::VisitExpr_(op);
    }
  };
  Counter c;
  c.VisitExpr(MakeChain());
  EXPECT_EQ(c.defs, 3);   // x, a, b
  EXPECT_EQ(c.uses, 3);   // x in g, a in f, b as the result
  EXPECT_EQ(c.calls, 2);
}

TEST(RelaxExprFunctor, IdentityMutatorKeepsObjects) {
  Function f = MakeChain();
  ExprMutator m;
  EXPECT_TRUE(m.VisitExpr(f).same_as(f));
}

TEST(RelaxExprFunctor, MutatorRemapsVarsWhoseStructInfoChanged) {
  // Rewrites g(x) to a call returning R.Tensor((8,)); the var bound to it is
  // replaced and f's argument follows.
  class Widen : public ExprMutator {
   public:
    RelaxExpr VisitExpr_(const CallNode* op) override {
      const auto* ext = op->args[0].as<ExternFuncNode>();
      if (ext && ext->global_symbol == "g") {
        return PurePacked("g2", {op->args[1]}, Tensor({8}));
      }
      return ExprMutator::VisitExpr_(op);
    }
  };
  Function out = Downcast<Function>(Widen().VisitExpr(MakeChain()));

  Var x("x", Tensor({4}));
  Var a("a", Tensor({8}));
  Var b("b", Tensor({4}));
  BindingBlock block({VarBinding(a, PurePacked("g2", {x}, Tensor({8}))), VarBinding(b, PurePacked("f", {a}, Tensor({4})))});
  Function expected({x}, SeqExpr({block}, b), Tensor({4}));
  EXPECT_TRUE(StructuralEqual(out, expected));
  const auto* second = out->body.as<SeqExprNode>()->blocks[0]->bindings[1].as<VarBindingNode>();
  const auto* first = out->body.as<SeqExprNode>()->blocks[0]->bindings[0].as<VarBindingNode>();
  EXPECT_TRUE(second->value.as<CallNode>()->args[1].same_as(first->var));
}

TEST(RelaxExprFunctor, LongBindingChainIsWalkedIteratively) {
  constexpr int kLength = 100000;
  Var x("x", Tensor({4}));
  Array<Binding> bindings;
  Var prev = x;
  for (int i = 0; i < kLength; ++i) {
    Var v("v", Tensor({4}));
    bindings.push_back(VarBinding(v, PurePacked("f", {prev}, Tensor({4}))));
    prev = v;
  }
  Function f = Downcast<Function>(BlockBuilder::Create()->Normalize(Function({x}, SeqExpr({BindingBlock(bindings)}, prev))));
  class Counter : public ExprVisitor {
   public:
    int defs = 0;
    void VisitVarDef_(const VarNode*) override { ++defs; }
  } c;
  c.VisitExpr(f);
  EXPECT_EQ(c.defs, kLength + 1);
  ExprMutator m;
  EXPECT_TRUE(m.VisitExpr(f).same_as(f));
  EXPECT_TRUE(StructuralEqual(f, f));
}

TEST(RelaxExprFunctor, DeepNestingRaisesRecursionErrorNotACrash) {
  Var x("x", Tensor({4}));
  RelaxExpr e = x;
  for (int i = 0; i < 2000000; ++i) e = Tuple({e});
  class Nop : public ExprVisitor {};
  EXPECT_THROW(Nop().VisitExpr(e), RecursionError);
}

}  // namespace
}  // namespace relax
}  // namespace tessera
