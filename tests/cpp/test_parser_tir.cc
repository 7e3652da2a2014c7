// Tests of the TVMScript TIR builder through the parser's C++ entry point:
// the IR built for the course's modules (checked field by field against a
// hand-written expectation), name resolution, and ParseErrors pointing at
// the culprit.
#include <gtest/gtest.h>

#include <chrono>

#include "ir/module.h"
#include "runtime/registry.h"
#include "script/parser/parser.h"
#include "tir/function.h"

namespace tessera {
namespace script {
namespace {

using namespace tir;

const char* kMMRelu = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class MyModule:
    @T.prim_func
    def mm_relu(A: T.Buffer((128, 128), "float32"),
                B: T.Buffer((128, 128), "float32"),
                C: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
        Y = T.alloc_buffer((128, 128), dtype="float32")
        for i, j, k in T.grid(128, 128, 128):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                vj = T.axis.spatial(128, j)
                vk = T.axis.reduce(128, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
)";

std::string ErrorOf(const std::string& text, std::optional<PackedFunc> resolver = std::nullopt) {
  try {
    ParseTVMScript(text, "m.py", 0, resolver);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ParseError") << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

TEST(ParserTIR, MatmulReluModule) {
  ObjectRef result = ParseTVMScript(kMMRelu, "m.py");
  IRModule mod = Downcast<IRModule>(result);
  PrimFunc f = Downcast<PrimFunc>(mod->Lookup("mm_relu"));
  EXPECT_EQ(f->attrs.at("global_symbol").cast<std::string>(), "mm_relu");
  EXPECT_EQ(Downcast<IntImm>(f->attrs.at("tir.noalias").cast<PrimExpr>())->dtype, DataType::Bool());
  ASSERT_EQ(f->params.size(), 3u);
  Buffer A = f->buffer_map.at(f->params[0]);
  Buffer B = f->buffer_map.at(f->params[1]);
  Buffer C = f->buffer_map.at(f->params[2]);
  EXPECT_EQ(A->name, "A");
  EXPECT_EQ(A->dtype, DataType::Float(32));
  ASSERT_EQ(A->shape.size(), 2u);
  EXPECT_TRUE(IsConstInt(A->shape[0], 128));

  // root block holding Y, then two loop nests.
  BlockRealize root_realize = Downcast<BlockRealize>(f->body);
  Block root = root_realize->block;
  EXPECT_EQ(root->name_hint, "root");
  EXPECT_TRUE(root->iter_vars.empty());
  ASSERT_EQ(root->alloc_buffers.size(), 1u);
  Buffer Y = root->alloc_buffers[0];
  EXPECT_EQ(Y->name, "Y");
  SeqStmt seq = Downcast<SeqStmt>(root->body);
  ASSERT_EQ(seq->seq.size(), 2u);

  For i = Downcast<For>(seq->seq[0]);
  For j = Downcast<For>(i->body);
  For k = Downcast<For>(j->body);
  EXPECT_EQ(i->loop_var->name_hint, "i");
  EXPECT_EQ(k->loop_var->name_hint, "k");
  EXPECT_TRUE(IsConstInt(k->extent, 128));
  EXPECT_EQ(i->kind, ForKind::kSerial);
  BlockRealize y_realize = Downcast<BlockRealize>(k->body);
  Block y = y_realize->block;
  EXPECT_EQ(y->name_hint, "Y");
  ASSERT_EQ(y->iter_vars.size(), 3u);
  EXPECT_EQ(y->iter_vars[2]->iter_type, kCommReduce);
  EXPECT_EQ(y->iter_vars[0]->var->name_hint, "vi");
  EXPECT_TRUE(y_realize->iter_values[0].same_as(i->loop_var));
  EXPECT_TRUE(y_realize->iter_values[2].same_as(k->loop_var));
  EXPECT_TRUE(IsConstInt(y_realize->predicate, 1));
  ASSERT_TRUE(y->init.has_value());
  BufferStore init = Downcast<BufferStore>(*y->init);
  EXPECT_TRUE(init->buffer.same_as(Y));
  EXPECT_EQ(Downcast<FloatImm>(init->value)->value, 0.0);
  BufferStore update = Downcast<BufferStore>(y->body);
  Add sum = Downcast<Add>(update->value);
  BufferLoad load_y = Downcast<BufferLoad>(sum->a);
  EXPECT_TRUE(load_y->buffer.same_as(Y));
  EXPECT_TRUE(load_y->indices[0].same_as(y->iter_vars[0]->var));
  Mul prod = Downcast<Mul>(sum->b);
  EXPECT_TRUE(Downcast<BufferLoad>(prod->a)->buffer.same_as(A));
  EXPECT_TRUE(Downcast<BufferLoad>(prod->b)->indices[0].same_as(y->iter_vars[2]->var));
  // Regions were left to inference for block Y and given for block C.
  EXPECT_FALSE(y->annotations.count("tir.script_infer_regions") && y->reads.empty());

  For i2 = Downcast<For>(seq->seq[1]);
  Block c = Downcast<BlockRealize>(Downcast<For>(i2->body)->body)->block;
  ASSERT_EQ(c->reads.size(), 1u);
  EXPECT_TRUE(c->reads[0]->buffer.same_as(Y));
  EXPECT_TRUE(IsConstInt(c->reads[0]->region[0]->extent, 1));
  EXPECT_TRUE(c->writes[0]->buffer.same_as(C));
  Max relu = Downcast<Max>(Downcast<BufferStore>(c->body)->value);
  EXPECT_TRUE(Downcast<BufferLoad>(relu->a)->buffer.same_as(Y));
  EXPECT_EQ(c->iter_vars[1]->var->name_hint, "vj");
}

TEST(ParserTIR, ResolverSuppliesFreeNames) {
  const char* text = R"(
@T.prim_func
def f(A: T.Buffer((N,), "float32")):
    for i in range(N):
        with T.block("b"):
            vi = T.axis.spatial(N, i)
            A[vi] = A[vi] * SCALE
)";
  int calls = 0;
  PackedFunc resolver([&](PackedArgs args) -> Any {
    ++calls;
    std::string name = args[0].cast<std::string>();
    if (name == "N") return Any(int64_t{64});
    if (name == "SCALE") return Any(2.5);
    if (name == "T") return Any(String("__tessera_ns__:T"));
    TESSERA_THROW(KeyError) << name;
  });
  PrimFunc f = Downcast<PrimFunc>(ParseTVMScript(text, "f.py", 0, resolver));
  EXPECT_GT(calls, 0);
  Buffer A = f->buffer_map.at(f->params[0]);
  EXPECT_TRUE(IsConstInt(A->shape[0], 64));
  For loop = Downcast<For>(Downcast<BlockRealize>(f->body)->block->body);
  EXPECT_TRUE(IsConstInt(loop->extent, 64));
  BufferStore store = Downcast<BufferStore>(Downcast<BlockRealize>(loop->body)->block->body);
  Mul m = Downcast<Mul>(store->value);
  EXPECT_DOUBLE_EQ(Downcast<FloatImm>(m->b)->value, 2.5);
  EXPECT_EQ(f->attrs.at("global_symbol").cast<std::string>(), "f");

  std::string err = ErrorOf("@T.prim_func\ndef g(A: T.Buffer((4,), \"float32\")):\n    A[0] = MISSING\n", resolver);
  EXPECT_NE(err.find("m.py:3:12: error: undefined name 'MISSING'"), std::string::npos) << err;
}

TEST(ParserTIR, ErrorsCarryLineColumnAndCaret) {
  std::string prefix = "@T.prim_func\ndef f(A: T.Buffer((4, 4), \"float32\"), h: T.handle):\n";
  EXPECT_EQ(ErrorOf(prefix + "    A[0, 0] = A[0] + 1.0\n"),
            "m.py:3:15: error: buffer 'A' has 2 dimensions but is indexed with 1 index\n"
            "        A[0, 0] = A[0] + 1.0\n"
            "                  ^^^^");
  EXPECT_NE(ErrorOf(prefix + "    for i, j in T.grid(4):\n        pass\n").find("m.py:3:9: error: the loop iterates over 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf(prefix + "    A[0, 0] = h\n").find("cannot store a value of dtype handle"), std::string::npos);
  EXPECT_NE(ErrorOf(prefix + "    with T.block('b'):\n        T.reads(A[0, 0])\n        T.reads(A[1, 1])\n")
                .find("m.py:5:9: error: duplicate T.reads()"),
            std::string::npos);
  EXPECT_NE(ErrorOf(prefix + "    with T.init():\n        pass\n").find("T.init() must be directly inside a T.block"),
            std::string::npos);
  EXPECT_NE(ErrorOf(prefix + "    B = T.match_buffer(A, (4,))\n").find("T.match_buffer expects a T.handle parameter"),
            std::string::npos);
  EXPECT_NE(ErrorOf(prefix + "    A[0, 0] = T.float32('big')\n").find("unknown float constant"), std::string::npos);
  EXPECT_NE(ErrorOf(prefix + "    T.func_attr({'global_symbol': 'f'})\n    T.func_attr({'global_symbol': 'g'})\n")
                .find("duplicate function attribute 'global_symbol'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("@T.prim_func(private=True)\ndef f():\n    T.func_attr({'global_symbol': 'f'})\n")
                .find("private function"),
            std::string::npos);
  EXPECT_NE(ErrorOf("x = 1\n").find("expected a @T.prim_func function or an @I.ir_module class"), std::string::npos);
  EXPECT_NE(ErrorOf("@I.ir_module\nclass M:\n    @T.prim_func\n    def f():\n        T.evaluate(0)\n"
                    "    @T.prim_func\n    def f():\n        T.evaluate(0)\n")
                .find("m.py:7:5: error: function 'f' is defined twice"),
            std::string::npos);
}

TEST(ParserTIR, RelaxFunctionsParseBesidePrimFuncs) {
  // The Relax dialect is registered (parser/relax; its tests: test_relax_script.cc).
  const char* text = "@I.ir_module\nclass M:\n    @R.function\n    def main(x: R.Tensor((1,), \"float32\")):\n"
                     "        return x\n";
  IRModule mod = Downcast<IRModule>(ParseTVMScript(text, "m.py"));
  ASSERT_EQ(mod->GetGlobalVars().size(), 1u);
  EXPECT_EQ(mod->Lookup(mod->GetGlobalVars()[0])->GetTypeKey(), "relax.expr.Function");
}

TEST(ParserTIR, ParseSpeed) {
  // Not a timed assertion: reports the cost per hundred source lines.
  std::string text(kMMRelu);
  int lines = 0;
  for (char ch : text) lines += ch == '\n';
  ParseTVMScript(text, "m.py");
  auto start = std::chrono::steady_clock::now();
  const int reps = 200;
  for (int r = 0; r < reps; ++r) ParseTVMScript(text, "m.py");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ParserTIR] " << ms / reps / lines * 100 << " ms per 100 lines\n";
}

}  // namespace
}  // namespace script
}  // namespace tessera
