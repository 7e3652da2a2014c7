// Relax pass wrappers and core passes in C++ (src/relax/transform/
// function_pass.h, bind_params.h): CreateFunctionPass rewrites every relax
// function (PrimFuncs untouched), CreateDataflowBlockPass every dataflow
// block and refuses changed output vars, BindParams replaces parameters by
// constants and substitutes the dims they fix; expected IR built by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/structural_equal.h"
#include "relax/block_builder.h"
#include "relax/transform/bind_params.h"
#include "relax/transform/function_pass.h"

namespace tessera {
namespace relax {
namespace {

TensorStructInfo Tensor(Array<PrimExpr> dims) { return TensorStructInfo(ShapeExpr(dims), DataType::Float(32)); }

Call PurePacked(const std::string& name, Array<RelaxExpr> args, StructInfo ret) {
  Array<RelaxExpr> all{ExternFunc(name)};
  for (const RelaxExpr& a : args) all.push_back(a);
  return Call(Op::Get("relax.call_pure_packed"), all, ObjectRef(), {ret});
}

IRModule ModuleOf(const Function& f) {
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("main"), Downcast<Function>(BlockBuilder::Create()->Normalize(f)));
  return mod;
}

TEST(RelaxTransformCore, FunctionPassAppliesToEveryRelaxFunction) {
  Var x("x", Tensor({4}));
  IRModule mod = ModuleOf(Function({x}, PurePacked("f", {x}, Tensor({4}))));
  int calls = 0;
  auto pass = transform::CreateFunctionPass(
      [&](Function f, IRModule, transform::PassContext) {
        ++calls;
        return WithAttr(f, "seen", true);
      },
      0, "Mark");
  IRModule out = pass(mod);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(out->Lookup("main").GetAttr("seen").has_value());
  EXPECT_FALSE(mod->Lookup("main").GetAttr("seen").has_value());
}

TEST(RelaxTransformCore, DataflowBlockPassKeepsOutputs) {
  Var x("x", Tensor({4}));
  DataflowVar lv("lv", Tensor({4}));
  DataflowVar dead("dead", Tensor({4}));
  Var gv("gv", Tensor({4}));
  DataflowBlock block({VarBinding(lv, PurePacked("f", {x}, Tensor({4}))), VarBinding(dead, PurePacked("g", {x}, Tensor({4}))),
                       VarBinding(gv, lv)});
  IRModule mod = ModuleOf(Function({x}, SeqExpr({block}, gv)));
  auto drop = transform::CreateDataflowBlockPass(
      [](DataflowBlock b, IRModule, transform::PassContext) {
        Array<Binding> keep;
        for (const Binding& x : b->bindings) {
          if (x->var->name_hint != "dead") keep.push_back(x);
        }
        return DataflowBlock(keep);
      },
      0, "DropDead");
  IRModule out = drop(mod);
  DataflowBlock expected_block({VarBinding(lv, PurePacked("f", {x}, Tensor({4}))), VarBinding(gv, lv)});
  EXPECT_TRUE(StructuralEqual(out->Lookup("main"), BlockBuilder::Create()->Normalize(Function({x}, SeqExpr({expected_block}, gv)))));
  auto break_outputs = transform::CreateDataflowBlockPass(
      [](DataflowBlock, IRModule, transform::PassContext) { return DataflowBlock(Array<Binding>()); }, 0, "Empty");
  EXPECT_THROW(break_outputs(mod), ValueError);
}

TEST(RelaxTransformCore, BindParamsReplacesParamsAndDims) {
  tir::Var m("m", DataType::Int(64));
  Var x("x", Tensor({m, 2}));
  Var w("w", Tensor({m, 2}));
  Function f = Downcast<Function>(BlockBuilder::Create()->Normalize(Function({x, w}, PurePacked("f", {x, w}, Tensor({m})))));
  NDArray arr = NDArray::Empty({3, 2}, DataType::Float(32), Device{kDLCPU, 0});
  std::memset(arr->dl.data, 0, 6 * sizeof(float));
  Function bound = BindParams(f, Map<ObjectRef, NDArray>{{String("w"), arr}});
  ASSERT_EQ(bound->params.size(), 1u);
  Var x2("x", Tensor({3, 2}));
  Function expected = Downcast<Function>(
      BlockBuilder::Create()->Normalize(Function({x2}, PurePacked("f", {x2, Constant(arr)}, Tensor({3})))));
  EXPECT_TRUE(StructuralEqual(bound, expected));
  NDArray wrong = NDArray::Empty({3, 5}, DataType::Float(32), Device{kDLCPU, 0});
  EXPECT_THROW(BindParams(f, Map<ObjectRef, NDArray>{{String("w"), wrong}}), ValueError);
  EXPECT_THROW(BindParams(f, Map<ObjectRef, NDArray>{{String("nope"), arr}}), ValueError);
}

}  // namespace
}  // namespace relax
}  // namespace tessera
