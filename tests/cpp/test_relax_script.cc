// Tests of the Relax dialect of the TVMScript parser and printer from C++:
// a parsed @R.function equals the same function built with the node
// constructors and the BlockBuilder; the printer writes TVM's text for
// hand-built functions (struct info annotations, dataflow blocks, call_tir,
// symbolic shapes, If, match_cast, metadata constants); print -> parse ->
// print is a fixed point; user mistakes are ParseErrors at line:column.
#include <gtest/gtest.h>

#include "ir/module.h"
#include "ir/structural_equal.h"
#include "relax/block_builder.h"
#include "relax/expr.h"
#include "script/parser/parser.h"
#include "script/printer/script_printer.h"

namespace tessera {
namespace script {
namespace {

using namespace relax;  // NOLINT

std::string ErrorOf(const std::string& text) {
  try {
    ParseTVMScript(text, "m.py");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ParseError") << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

StructInfo Tensor(std::vector<int64_t> shape, const char* dtype) {
  Array<PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(IntImm(DataType::Int(64), d));
  return TensorStructInfo(ShapeExpr(dims), DataType(dtype));
}

Call PurePacked(const char* name, Array<Expr> args, StructInfo out) {
  Array<Expr> all = {ExternFunc(name)};
  for (Expr a : args) all.push_back(a);
  return Call(Op::Get("relax.call_pure_packed"), all, ObjectRef(), {out});
}

const char* kDataflowText = R"(# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
    with R.dataflow():
        lv: R.Tensor((2, 3), dtype="float32") = R.call_pure_packed("f", x, sinfo_args=(R.Tensor((2, 3), dtype="float32"),))
        gv: R.Tensor((2, 3), dtype="float32") = lv
        R.output(gv)
    return gv)";

Function BuiltDataflowFunction() {
  Var x("x", Tensor({2, 3}, "float32"));
  BlockBuilder bb = BlockBuilder::Create();
  bb->BeginScope(Array<Var>{x});
  bb->BeginDataflowBlock();
  Var lv = bb->Emit(PurePacked("f", {x}, Tensor({2, 3}, "float32")), "lv");
  Var gv = bb->EmitOutput(lv, "gv");
  BindingBlock block = bb->EndBlock();
  bb->EndScope();
  Map<String, Any> attrs;
  attrs.Set("global_symbol", String("main"));
  Function f(Array<Var>{x}, SeqExpr({block}, gv), std::nullopt, true, attrs);
  return Downcast<Function>(BlockBuilder::Create()->Normalize(f));
}

TEST(RelaxScript, PrintsBlockBuilderFunctionAsTVM) {
  EXPECT_EQ(printer::AsTVMScript(BuiltDataflowFunction()), kDataflowText);
}

TEST(RelaxScript, ParsedFunctionEqualsBuiltOne) {
  ObjectRef parsed = ParseTVMScript(kDataflowText);
  ASSERT_TRUE(parsed.as<FunctionNode>());
  EXPECT_TRUE(StructuralEqual(Any(parsed), Any(BuiltDataflowFunction())));
  EXPECT_EQ(printer::AsTVMScript(parsed), kDataflowText);
}

TEST(RelaxScript, SymbolicSignatureAndMatchCastFixedPoint) {
  const char* text = R"(# from tvm.script import tir as T
# from tvm.script import relax as R

@R.function(private=True)
def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Object) -> R.Tensor(("n", 4), dtype="float32"):
    n = T.int64()
    m = T.int64()
    z: R.Tensor((m,), dtype="int32") = R.match_cast(y, R.Tensor((m,), dtype="int32"))
    s: R.Shape([n, m + 1]) = R.shape([n, m + 1])
    return x)";
  ObjectRef parsed = ParseTVMScript(text);
  EXPECT_EQ(printer::AsTVMScript(parsed), text);
  const auto* f = parsed.as<FunctionNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->attrs.count("global_symbol"));
  const auto* x_sinfo = f->params[0]->struct_info_.as<TensorStructInfoNode>();
  const auto* ret = f->ret_struct_info.as<TensorStructInfoNode>();
  ASSERT_TRUE(x_sinfo && ret);
  // One variable n for the parameter and the return annotation.
  EXPECT_TRUE(x_sinfo->GetShape().value()[0].same_as(ret->GetShape().value()[0]));
}

TEST(RelaxScript, ScalarAndTensorConstants) {
  NDArray arr = NDArray::Empty({2}, DataType::Float(32), Device{kDLCPU, 0});
  float values[2] = {1.0f, 2.5f};
  arr.CopyFromBytes(values, sizeof(values));
  NDArray scalar = NDArray::Empty({}, DataType::Int(32), Device{kDLCPU, 0});
  int32_t seven = 7;
  scalar.CopyFromBytes(&seven, sizeof(seven));
  Var x("x", Tensor({2}, "float32"));
  BlockBuilder bb = BlockBuilder::Create();
  bb->BeginScope(Array<Var>{x});
  bb->BeginBindingBlock();
  Var y = bb->Emit(PurePacked("add", {x, Constant(arr), Constant(scalar)}, Tensor({2}, "float32")), "y");
  BindingBlock block = bb->EndBlock();
  bb->EndScope();
  Function f(Array<Var>{x}, SeqExpr({block}, y), std::nullopt, true, Map<String, Any>{{"global_symbol", String("main")}});
  f = Downcast<Function>(BlockBuilder::Create()->Normalize(f));
  std::string text = printer::AsTVMScript(f);
  EXPECT_NE(text.find(R"(R.call_pure_packed("add", x, metadata["relax.expr.Constant"][0], R.const(7, "int32"), )"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# Metadata omitted. Use show_meta=True in script() method to show it."), std::string::npos);
  printer::PrinterConfig cfg;
  cfg.show_meta = true;
  std::string full = printer::AsTVMScript(f, cfg);
  ObjectRef parsed = ParseTVMScript(full);
  EXPECT_TRUE(StructuralEqual(Any(parsed), Any(f))) << full;
  EXPECT_EQ(printer::AsTVMScript(parsed, cfg), full);
}

TEST(RelaxScript, ErrorsNameTheCulpritAtLineAndColumn) {
  const std::string head = "@R.function\ndef main(x: R.Tensor((4,), \"float32\")):\n";
  std::string msg = ErrorOf(head + "    y = R.nope(x)\n    return y\n");
  EXPECT_NE(msg.find("m.py:3:9"), std::string::npos) << msg;
  EXPECT_NE(msg.find("R.nope"), std::string::npos) << msg;
  msg = ErrorOf(head + "    return w\n");
  EXPECT_NE(msg.find("m.py:3:12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("undefined name 'w'"), std::string::npos) << msg;
  msg = ErrorOf("@R.function\ndef main(x):\n    return x\n");
  EXPECT_NE(msg.find("parameter 'x'"), std::string::npos) << msg;
  msg = ErrorOf(head + "    with R.dataflow():\n        y = R.shape_of(x)\n    return y\n");
  EXPECT_NE(msg.find("undefined name 'y'"), std::string::npos) << msg;
}

}  // namespace
}  // namespace script
}  // namespace tessera
