// Spans of the TVMScript printer and the diagnostics built on them: the
// span recorded for a block covers exactly its `with T.block(...)` statement
// text, loops and expressions map to their text, printing with spans gives
// the same text as without, RenderWithCulprit underlines the right loop when
// another loop has the same name, and the shared caret renderer.
#include <gtest/gtest.h>

#include "ir/module.h"
#include "script/parser/parser.h"
#include "script/printer/caret_render.h"
#include "script/printer/script_printer.h"
#include "tir/function.h"
#include "tir/functor.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT
using script::printer::AsTVMScript;
using script::printer::AsTVMScriptWithSpans;
using script::printer::PrintedDoc;
using script::printer::RenderWithCulprit;
using script::printer::TextSpan;

const char* kModule = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        T.func_attr({"global_symbol": "main"})
        # with T.block("root"):
        Y = T.alloc_buffer((16, 16))
        for i, j in T.grid(16, 16):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(Y[vi, vj])
                Y[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(16, 16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = Y[vi, vj] + T.float32(1))";

struct Parsed {
  IRModule mod;
  std::vector<const BlockNode*> blocks;      // Y, C, root (post-order)
  std::vector<const ForNode*> loops;         // j, i of the first nest, then of the second
  std::vector<const BufferStoreNode*> stores;
};

Parsed Parse() {
  Parsed p;
  p.mod = Downcast<IRModule>(script::ParseTVMScript(kModule, "m.py"));
  PrimFunc f = Downcast<PrimFunc>(p.mod->Lookup("main"));
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<BlockNode>()) p.blocks.push_back(b);
    if (const auto* l = n.as<ForNode>()) p.loops.push_back(l);
    if (const auto* s = n.as<BufferStoreNode>()) p.stores.push_back(s);
  });
  return p;
}

std::string SpanText(const PrintedDoc& doc, const TextSpan& s) { return doc.text().substr(s.begin, s.end - s.begin); }

TEST(PrinterSpans, TextIsTheSameWithSpans) {
  Parsed p = Parse();
  EXPECT_EQ(AsTVMScriptWithSpans(p.mod).text(), AsTVMScript(p.mod));
  EXPECT_EQ(AsTVMScript(p.mod), kModule);
}

TEST(PrinterSpans, BlockSpanCoversExactlyItsWithStatement) {
  Parsed p = Parse();
  PrintedDoc doc = AsTVMScriptWithSpans(p.mod);
  ASSERT_EQ(p.blocks.size(), 3u);
  const BlockNode* c = p.blocks[1];
  ASSERT_EQ(c->name_hint, "C");
  const std::vector<TextSpan>& spans = doc.SpansOf(c);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(SpanText(doc, spans[0]), R"(with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = Y[vi, vj] + T.float32(1))");
  // Line and column of the `with`: line 18 of the printout, after 12 spaces.
  EXPECT_EQ(spans[0].line, 18);
  EXPECT_EQ(spans[0].col, 13);
  EXPECT_EQ(spans[0].end_line, 22);
  const BlockNode* y = p.blocks[0];
  ASSERT_EQ(doc.SpansOf(y).size(), 1u);
  EXPECT_EQ(SpanText(doc, doc.SpansOf(y)[0]).rfind("with T.block(\"Y\"):\n", 0), 0u);
}

TEST(PrinterSpans, StatementsExpressionsAndLoopVariables) {
  Parsed p = Parse();
  PrintedDoc doc = AsTVMScriptWithSpans(p.mod);
  ASSERT_EQ(p.stores.size(), 2u);
  const BufferStoreNode* store = p.stores[1];
  ASSERT_EQ(doc.SpansOf(store).size(), 1u);
  EXPECT_EQ(SpanText(doc, doc.SpansOf(store)[0]), "C[vi, vj] = Y[vi, vj] + T.float32(1)");
  ASSERT_EQ(doc.SpansOf(store->value.get()).size(), 1u);
  EXPECT_EQ(SpanText(doc, doc.SpansOf(store->value.get())[0]), "Y[vi, vj] + T.float32(1)");
  // The second loop nest reuses the names i, j; each loop variable's first
  // span is its own header.
  ASSERT_EQ(p.loops.size(), 4u);
  ASSERT_EQ(p.loops[2]->loop_var->name_hint, "j");
  const TextSpan& j2 = doc.SpansOf(p.loops[2]->loop_var.get()).front();
  EXPECT_EQ(SpanText(doc, j2), "j");
  EXPECT_EQ(j2.line, 17);
  EXPECT_EQ(j2.col, 16);
  // The function and the module have spans too.
  PrimFunc f = Downcast<PrimFunc>(p.mod->Lookup("main"));
  ASSERT_EQ(doc.SpansOf(f.get()).size(), 1u);
  EXPECT_EQ(SpanText(doc, doc.SpansOf(f.get())[0]).rfind("@T.prim_func\n    def main(", 0), 0u);
  ASSERT_EQ(doc.SpansOf(p.mod.get()).size(), 1u);
  EXPECT_EQ(doc.SpansOf(p.mod.get())[0].line, 4);
}

TEST(PrinterSpans, RenderWithCulpritMarksTheRightLoop) {
  Parsed p = Parse();
  // The second `j` loop: a regex looking for the word `j` in a `for` line
  // finds the first nest's header instead.
  std::string text = RenderWithCulprit(p.mod, {GetRef<For>(p.loops[2])}, "here");
  EXPECT_NE(text.find("        for i, j in T.grid(16, 16):\n"
                      "            with T.block(\"Y\"):"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("        for i, j in T.grid(16, 16):\n"
                      "               ^ here\n"
                      "            with T.block(\"C\"):"),
            std::string::npos)
      << text;
  std::string block = RenderWithCulprit(p.mod, {GetRef<Block>(p.blocks[1])}, "");
  EXPECT_NE(block.find("            with T.block(\"C\"):\n            ^^^^^^^^^^^^^^^^^^\n"), std::string::npos)
      << block;
  EXPECT_EQ(block.find("^", block.find("^^^^^^^^^^^^^^^^^^\n") + 19), std::string::npos) << "one caret line only";
}

TEST(CaretRender, MarksOnTheirLines) {
  using script::CaretMark;
  using script::CaretRenderOptions;
  using script::RenderCarets;
  EXPECT_EQ(RenderCarets("ab cd\nefg", {CaretMark{3, 5, "x"}}), "ab cd\n   ^^ x\nefg");
  // A span reaching past its line is underlined to the line's end.
  EXPECT_EQ(RenderCarets("ab cd\nefg", {CaretMark{1, 8, ""}}), "ab cd\n ^^^^\nefg");
  // An empty span at the end of the text gets one caret.
  CaretRenderOptions only;
  only.context_lines = 0;
  only.line_prefix = "  ";
  EXPECT_EQ(RenderCarets("ab\ncd", {CaretMark{5, 5, ""}}, only), "  cd\n    ^");
  // Context: one line either side, "..." for what is left out.
  CaretRenderOptions near;
  near.context_lines = 1;
  EXPECT_EQ(RenderCarets("1\n2\n3\n4\n5\n6\n7", {CaretMark{6, 7, "x"}}, near), "...\n3\n4\n^ x\n5\n...");
  EXPECT_EQ(RenderCarets("1\n2\n3", {CaretMark{0, 1, ""}}, near), "1\n^\n2\n...");
}

}  // namespace
}  // namespace tessera
