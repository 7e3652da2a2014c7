// Relax IR core in C++ (src/relax): the BlockBuilder normalizer puts nested
// calls in A-normal form and infers struct info through the ops'
// FInferStructInfo; symbolic dims of a callee are unified with the
// arguments'; errors name the op/operand; structural equality maps relax
// vars and their symbolic dims at definitions. Expected IR is built by hand.
#include <gtest/gtest.h>

#include "ir/structural_equal.h"
#include "relax/block_builder.h"
#include "tir/expr.h"

namespace tessera {
namespace relax {
namespace {

TensorStructInfo Tensor(Array<PrimExpr> dims, DataType dtype = DataType::Float(32)) {
  return TensorStructInfo(ShapeExpr(dims), dtype);
}

Call PurePacked(const std::string& name, Array<RelaxExpr> args, StructInfo ret) {
  Array<RelaxExpr> all{ExternFunc(name)};
  for (const RelaxExpr& a : args) all.push_back(a);
  return Call(Op::Get("relax.call_pure_packed"), all, ObjectRef(), {ret});
}

TEST(RelaxCore, NestedCallsAreBoundToFreshVars) {
  tir::Var n("n", DataType::Int(64));
  Var x("x", Tensor({n, 4}));
  BlockBuilder bb = BlockBuilder::Create();
  bb->BeginScope(Array<Var>{x});
  bb->BeginDataflowBlock();
  Call inner = PurePacked("g", {x}, Tensor({n, 4}));
  Var out = bb->Emit(PurePacked("f", {inner}, Tensor({n})));
  BindingBlock block = bb->EndBlock();
  bb->EndScope();
  ASSERT_EQ(block->bindings.size(), 2u);
  const auto* first = block->bindings[0].as<VarBindingNode>();
  const auto* second = block->bindings[1].as<VarBindingNode>();
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->var.as<DataflowVarNode>() != nullptr);
  EXPECT_TRUE(first->value.same_as(inner));
  EXPECT_TRUE(second->value.as<CallNode>()->args[1].same_as(first->var));
  EXPECT_TRUE(second->var.same_as(out));
  EXPECT_EQ(StructInfoText(GetStructInfo(out)), "R.Tensor((n,), dtype=\"float32\")");
  EXPECT_EQ(first->var->name_hint, "lv");
  EXPECT_EQ(out->name_hint, "lv1");
}

TEST(RelaxCore, FunctionNormalizationMatchesHandWritten) {
  tir::Var n("n", DataType::Int(64));
  Var x("x", Tensor({n, 4}));
  // Unnormalized: the body is a nested call, not a SeqExpr.
  Function f({x}, PurePacked("f", {PurePacked("g", {x}, Tensor({n, 4}))}, Tensor({n})));
  BlockBuilder bb = BlockBuilder::Create();
  Function normalized = Downcast<Function>(bb->Normalize(f));
  EXPECT_EQ(StructInfoText(normalized->ret_struct_info), "R.Tensor((n,), dtype=\"float32\")");
  ASSERT_TRUE(normalized->struct_info_.as<FuncStructInfoNode>() != nullptr);

  tir::Var m("m", DataType::Int(64));
  Var y("y", Tensor({m, 4}));
  Var a("a", Tensor({m, 4}));
  Var b("b", Tensor({m}));
  BindingBlock block({VarBinding(a, PurePacked("g", {y}, Tensor({m, 4}))), VarBinding(b, PurePacked("f", {a}, Tensor({m})))});
  Function expected({y}, SeqExpr({block}, b), Tensor({m}));
  EXPECT_TRUE(StructuralEqual(normalized, expected));
  // Same shape but a fresh var for the parameter's dim that the return does not share.
  tir::Var k("k", DataType::Int(64));
  Function other({y}, SeqExpr({block}, b), Tensor({k}));
  EXPECT_FALSE(StructuralEqual(normalized, other));
}

TEST(RelaxCore, CallTIRInferenceAndErrors) {
  Var x("x", Tensor({2, 3}));
  GlobalVar gv("prim");
  BlockBuilder bb = BlockBuilder::Create();
  bb->BeginBindingBlock();
  Var out = bb->Emit(Call(Op::Get("relax.call_tir"), {gv, Tuple({x})}, ObjectRef(), {Tensor({3})}));
  EXPECT_EQ(StructInfoText(GetStructInfo(out)), "R.Tensor((3,), dtype=\"float32\")");
  try {
    bb->Emit(Call(Op::Get("relax.call_tir"), {x, Tuple({x})}, ObjectRef(), {Tensor({3})}));
    FAIL() << "expected TypeError";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("relax.call_tir: operand 'func' (argument 0) must be a GlobalVar"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(bb->Emit(Call(Op::Get("relax.call_tir"), {gv}, ObjectRef(), {Tensor({3})})), TypeError);
  EXPECT_THROW(bb->Emit(Call(Op::Get("relax.call_tir"), {gv, Tuple({x})}, ObjectRef(), {TensorStructInfo(DataType::Float(32), 1)})),
               ValueError);
  BindingBlock block = bb->EndBlock();
  EXPECT_EQ(block->bindings.size(), 1u);  // failed emissions left nothing behind
}

TEST(RelaxCore, CalleeSymbolicDimsAreUnified) {
  tir::Var n("n", DataType::Int(64));
  Var p("p", Tensor({n, n}));
  BlockBuilder bb = BlockBuilder::Create();
  GlobalVar sub = bb->AddFunction(Function({p}, PurePacked("f", {p}, Tensor({n}))), "sub");
  ASSERT_TRUE(sub->struct_info_.defined());
  Var x("x", Tensor({5, 5}));
  bb->BeginBindingBlock();
  Var r = bb->Emit(Call(sub, {x}));
  EXPECT_EQ(StructInfoText(GetStructInfo(r)), "R.Tensor((5,), dtype=\"float32\")");
  Var bad("bad", Tensor({5, 6}));
  EXPECT_THROW(bb->Emit(Call(sub, {bad})), ValueError);
  EXPECT_THROW(bb->Emit(Call(sub, {x, x})), TypeError);
  bb->EndBlock();
}

TEST(RelaxCore, StructInfoBaseCheckLevels) {
  tir::Var n("n", DataType::Int(64));
  EXPECT_EQ(StructInfoBaseCheck(Tensor({1, 2}), Tensor({1, 2})), BaseCheckResult::kPass);
  EXPECT_EQ(StructInfoBaseCheck(Tensor({1, 2}), Tensor({1, 3})), BaseCheckResult::kFailL0);
  EXPECT_EQ(StructInfoBaseCheck(Tensor({1, 2}), TensorStructInfo(DataType::Float(32), 2)), BaseCheckResult::kFailL1);
  EXPECT_EQ(StructInfoBaseCheck(Tensor({n, 2}), Tensor({3, 2})), BaseCheckResult::kFailL2);
  EXPECT_EQ(StructInfoBaseCheck(ObjectStructInfo::Make(), Tensor({3, 2})), BaseCheckResult::kPass);
  EXPECT_EQ(StructInfoBaseCheck(Tensor({3}), ShapeStructInfo(1)), BaseCheckResult::kFailL0);
  StructInfo erased = EraseToWellDefined(Tensor({n, 2}), [](const tir::Var&) { return false; });
  EXPECT_EQ(StructInfoText(erased), "R.Tensor(dtype=\"float32\", ndim=2)");
}

}  // namespace
}  // namespace relax
}  // namespace tessera
