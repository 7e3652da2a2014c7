// relax::WellFormedErrors (src/relax/analysis/well_formed.h): one
// ill-formed function per rule, built directly with the node constructors,
// each reported with a message naming the function and the binding; a
// normalized function has no errors.
#include <gtest/gtest.h>

#include "relax/analysis/well_formed.h"
#include "relax/block_builder.h"

namespace tessera {
namespace relax {
namespace {

TensorStructInfo T() { return TensorStructInfo(ShapeExpr({2}), DataType::Float(32)); }

Call PurePacked(const std::string& name, RelaxExpr arg, StructInfo ret = T()) {
  return Call(Op::Get("relax.call_pure_packed"), {ExternFunc(name), arg}, ObjectRef(), {ret});
}

Function Main(Array<Var> params, Array<BindingBlock> blocks, RelaxExpr body, bool pure = true) {
  return WithAttr(Function(params, SeqExpr(blocks, body), std::nullopt, pure), "global_symbol", String("main"));
}

std::vector<std::string> Errors(const Function& f) { return WellFormedErrors(f, /*check_struct_info=*/false); }

TEST(RelaxWellFormed, NormalizedFunctionIsWellFormed) {
  Var x("x", T());
  Function f = Downcast<Function>(BlockBuilder::Create()->Normalize(Function({x}, PurePacked("f", PurePacked("g", x)))));
  EXPECT_TRUE(WellFormed(f));
}

TEST(RelaxWellFormed, EachRuleIsReported) {
  Var x("x", T());
  Var a("a", T());
  Var b("b", T());
  DataflowVar lv("lv", T());
  tir::Var m("m", DataType::Int(64));
  Var y("y", TensorStructInfo(ShapeExpr({m}), DataType::Float(32)));
  Var p("p", TupleStructInfo(Array<StructInfo>{}));
  Call print(Op::Get("relax.print"), {StringImm("{}"), x});

  struct Case {
    Function f;
    std::string expected;
  };
  std::vector<Case> cases = {
      {Main({x}, {DataflowBlock({VarBinding(lv, PurePacked("f", x))}), BindingBlock({VarBinding(a, PurePacked("g", lv))})}, a),
       "function 'main', binding 'a': dataflow var 'lv' is used outside its dataflow block"},
      {Main({x}, {BindingBlock({VarBinding(lv, PurePacked("f", x))})}, x),
       "function 'main', binding 'lv': dataflow var 'lv' is defined outside a dataflow block"},
      {Main({x}, {BindingBlock({VarBinding(a, PurePacked("f", x)), VarBinding(a, PurePacked("g", x))})}, a),
       "function 'main', binding 'a': var 'a' is defined more than once"},
      {Main({x}, {BindingBlock({VarBinding(b, PurePacked("f", a)), VarBinding(a, PurePacked("g", x))})}, b),
       "function 'main', binding 'b': var 'a' is used before it is defined (or never defined)"},
      {Main({x}, {BindingBlock({VarBinding(y, PurePacked("f", x, TensorStructInfo(ShapeExpr({m}), DataType::Float(32))))})}, x),
       "function 'main', binding 'y': symbolic var 'm' in struct info R.Tensor((m,), dtype=\"float32\") is used before it is defined"},
      {Main({x}, {BindingBlock({VarBinding(p, print)})}, x),
       "function 'main', binding 'p': impure call of operator 'relax.print' in a pure function (mark it impure or set "
       "relax.force_pure)"},
      {Main({x}, {BindingBlock({VarBinding(a, PurePacked("f", PurePacked("g", x)))})}, a),
       "function 'main', binding 'a': argument 1 is a nested relax.Call (not in A-normal form)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> errs = Errors(c.f);
    std::string all;
    for (const std::string& e : errs) all += e + "\n";
    ASSERT_EQ(errs.size(), 1u) << all;
    EXPECT_EQ(errs[0], c.expected);
  }
  // The impure call is fine in an impure function, but not in a dataflow block.
  DataflowVar pd("pd", TupleStructInfo(Array<StructInfo>{}));
  EXPECT_TRUE(Errors(Main({x}, {BindingBlock({VarBinding(p, print)})}, x, /*pure=*/false)).empty());
  std::vector<std::string> errs = Errors(Main({x}, {DataflowBlock({VarBinding(pd, print)})}, x, false));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], "function 'main', binding 'pd': impure call of operator 'relax.print' inside a dataflow block");
}

TEST(RelaxWellFormed, GlobalVarsMustBeInTheModule) {
  Var x("x", T());
  Var r("r", T());
  Call call(Op::Get("relax.call_tir"), {GlobalVar("missing"), Tuple({x})}, ObjectRef(), {T()});
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("main"), Main({x}, {BindingBlock({VarBinding(r, call)})}, r));
  std::vector<std::string> errs = WellFormedErrors(mod, false);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0], "function 'main', binding 'r': GlobalVar 'missing' is not a function of the module");
}

}  // namespace
}  // namespace relax
}  // namespace tessera
