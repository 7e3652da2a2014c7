// The Relax lowering passes in C++ (src/relax/transform): memory planning
// reuses a dead intermediate's storage and leaves the output alone; shape
// lowering checks a parameter's symbolic dims against the heap; the build
// pipeline lists its passes in order. Expected values are written by hand.
#include <gtest/gtest.h>

#include "relax/block_builder.h"
#include "relax/transform/lowering.h"
#include "tir/function.h"
#include "tir/stmt.h"

namespace tessera {
namespace relax {
namespace {

TensorStructInfo Tensor(Array<PrimExpr> dims) { return TensorStructInfo(ShapeExpr(dims), DataType::Float(32)); }

Call Alloc(Array<PrimExpr> dims) {
  return Call(Op::Get("relax.builtin.alloc_tensor"),
              {ShapeExpr(dims), DataTypeImm(DataType::Float(32)), PrimValue::Int64(0), StringImm("global")});
}

std::vector<const CallNode*> OpCalls(const Function& f, const std::string& op_name) {
  std::vector<const CallNode*> out;
  for (const BindingBlock& block : f->body.as<SeqExprNode>()->blocks) {
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      const auto* call = vb ? vb->value.as<CallNode>() : nullptr;
      if (call && call->op->IsInstance<OpNode>() && call->op.as<OpNode>()->name == op_name) out.push_back(call);
    }
  }
  return out;
}

// main(x: (4,)): a = f(x); b = f(a); c = f(b); return c — a and c can share.
IRModule Chain() {
  BlockBuilder bb = BlockBuilder::Create();
  tir::PrimFunc prim({}, tir::Evaluate(PrimExpr(0)));
  GlobalVar f = bb->AddFunction(prim, "f");
  Var x("x", Tensor({4}));
  bb->BeginScope(Array<Var>{x});
  bb->BeginBindingBlock();
  Var a = bb->Emit(Alloc({4}));
  bb->Emit(Call(f, {x, a}));
  Var b = bb->Emit(Alloc({4}));
  bb->Emit(Call(f, {a, b}));
  Var c = bb->Emit(Alloc({4}));
  bb->Emit(Call(f, {b, c}));
  Var d = bb->Emit(Alloc({4}));
  bb->Emit(Call(f, {c, d}));
  BindingBlock block = bb->EndBlock();
  bb->EndScope();
  Function main({x}, SeqExpr({block}, d), Tensor({4}));
  GlobalVar gv = bb->AddFunction(Downcast<Function>(bb->Normalize(main)), "main");
  (void)gv;
  return bb->GetContextIRModule();
}

TEST(RelaxLowering, StaticPlanReusesDeadStorage) {
  IRModule mod = Chain();
  IRModule planned = transform::StaticPlanBlockMemory()(mod);
  Function main = Downcast<Function>(planned->Lookup("main"));
  auto storages = OpCalls(main, "relax.memory.alloc_storage");
  auto views = OpCalls(main, "relax.memory.alloc_tensor");
  auto left = OpCalls(main, "relax.builtin.alloc_tensor");
  ASSERT_EQ(storages.size(), 2u);  // a and c share; b has its own
  ASSERT_EQ(views.size(), 3u);
  ASSERT_EQ(left.size(), 1u);      // d is the output
  EXPECT_TRUE(views[0]->args[0].same_as(views[2]->args[0]));
  EXPECT_FALSE(views[0]->args[0].same_as(views[1]->args[0]));
  EXPECT_EQ(ConstIntValue(storages[0]->args[0].as<ShapeExprNode>()->values[0]), 16);
  // The input module is not modified.
  EXPECT_EQ(OpCalls(Downcast<Function>(mod->Lookup("main")), "relax.builtin.alloc_tensor").size(), 4u);
}

TEST(RelaxLowering, ShapeLowerStoresThenAssertsSharedDims) {
  tir::Var n("n", DataType::Int(64));
  Var x("x", Tensor({n}));
  Var y("y", Tensor({n}));
  BlockBuilder bb = BlockBuilder::Create();
  Function main({x, y}, SeqExpr({}, y), Tensor({n}));
  bb->AddFunction(Downcast<Function>(bb->Normalize(main)), "main");
  IRModule lowered = transform::VMShapeLower(true)(bb->GetContextIRModule());
  Function f = Downcast<Function>(lowered->Lookup("main"));
  std::vector<const CallNode*> matches;
  for (const Binding& b : f->body.as<SeqExprNode>()->blocks[0]->bindings) {
    const auto* call = b.as<VarBindingNode>()->value.as<CallNode>();
    const auto* ext = call ? call->op.as<ExternFuncNode>() : nullptr;
    if (ext && ext->global_symbol == "vm.builtin.match_shape") matches.push_back(call);
  }
  ASSERT_EQ(matches.size(), 2u);
  // x: (heap, ndim 1, kStoreToHeap, slot 0, err); y: kAssertEqualToLoad slot 0.
  auto code = [](const CallNode* c, size_t i) { return *AsConstInt(c->args[i].as<PrimValueNode>()->value); };
  EXPECT_EQ(code(matches[0], 3), 2);
  EXPECT_EQ(code(matches[1], 3), 3);
  EXPECT_EQ(code(matches[1], 4), 0);
  std::string err = matches[1]->args[5].as<StringImmNode>()->value;
  EXPECT_NE(err.find("param=y"), std::string::npos) << err;
  EXPECT_NE(err.find("loc=param[1]"), std::string::npos) << err;
}

TEST(RelaxLowering, PipelineListsItsPasses) {
  auto seq = transform::DefaultBuildPipeline();
  std::vector<std::string> names;
  for (const auto& p : seq->passes) names.push_back(p->Info()->name);
  std::vector<std::string> expected = {"FoldBatchnormToConv2d", "LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR",
                                       "DefaultCPUSchedule", "DeadCodeElimination", "Normalize",         "ToNonDataflow",    "RemovePurityChecking",
                                       "CallTIRRewrite",    "StaticPlanBlockMemory", "LowerAllocTensor",
                                       "VMBuiltinLower",    "VMShapeLower",     "AttachGlobalSymbol"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(std::string(seq->Info()->name), "relax.build_pipeline");
}

}  // namespace
}  // namespace relax
}  // namespace tessera
