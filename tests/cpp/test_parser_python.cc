// Tests of the Python-subset front of the TVMScript parser: the tokenizer
// (indentation, numbers, strings, line joining) and the recursive-descent
// parser (precedence, statements, error positions).
#include <gtest/gtest.h>

#include "runtime/error.h"
#include "script/parser/python_parser.h"
#include "script/parser/tokenizer.h"

namespace tessera {
namespace script {
namespace {

using ast::ExprKind;
using ast::StmtKind;

std::string Kinds(const std::vector<Token>& toks) {
  std::string out;
  for (const Token& t : toks) {
    switch (t.kind) {
      case TokenKind::kName: out += "N(" + t.text + ")"; break;
      case TokenKind::kInt: out += "I(" + std::to_string(t.ival) + ")"; break;
      case TokenKind::kFloat: out += "F"; break;
      case TokenKind::kString: out += "S(" + t.text + ")"; break;
      case TokenKind::kOp: out += "O(" + t.text + ")"; break;
      case TokenKind::kNewline: out += "NL"; break;
      case TokenKind::kIndent: out += "IN"; break;
      case TokenKind::kDedent: out += "DE"; break;
      case TokenKind::kEnd: out += "END"; break;
    }
    out += " ";
  }
  return out;
}

std::string ParseErrorOf(const std::string& text) {
  SourceFile src(text, "t.py");
  try {
    ParsePython(src);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ParseError");
    return e.what();
  }
  return "";
}

TEST(ParserTokenizer, IndentationAndLineJoining) {
  SourceFile src("def f(a,\n      b):  # comment\n    x = 1\n\n    # only a comment\n    if x:\n        y\nz\n", "t.py");
  EXPECT_EQ(Kinds(Tokenize(src)),
            "N(def) N(f) O(() N(a) O(,) N(b) O()) O(:) NL IN N(x) O(=) I(1) NL N(if) N(x) O(:) NL IN N(y) NL DE DE "
            "N(z) NL END ");
}

TEST(ParserTokenizer, IndentedSourceKeepsOriginalColumns) {
  SourceFile src("    @T.prim_func\n    def f():\n        pass\n", "t.py");
  std::vector<Token> toks = Tokenize(src);
  EXPECT_EQ(Kinds(toks), "O(@) N(T) O(.) N(prim_func) NL N(def) N(f) O(() O()) O(:) NL IN N(pass) NL DE END ");
  EXPECT_EQ(toks[0].pos.line, 1);
  EXPECT_EQ(toks[0].pos.col, 5);
  EXPECT_EQ(toks[5].pos.line, 2);  // def
  EXPECT_EQ(toks[5].pos.col, 5);
}

TEST(ParserTokenizer, NumbersAndStrings) {
  SourceFile src("0x1F 1_000 2.5e-3 .5 'a\\n' r'\\d' \"\"\"x\ny\"\"\" 'p' 'q'\n", "t.py");
  std::vector<Token> toks = Tokenize(src);
  EXPECT_EQ(toks[0].ival, 31);
  EXPECT_EQ(toks[1].ival, 1000);
  EXPECT_DOUBLE_EQ(toks[2].fval, 2.5e-3);
  EXPECT_DOUBLE_EQ(toks[3].fval, 0.5);
  EXPECT_EQ(toks[4].text, "a\n");
  EXPECT_EQ(toks[5].text, "\\d");
  EXPECT_EQ(toks[6].text, "x\ny");
  EXPECT_EQ(toks[7].pos.line, 2);
}

TEST(ParserTokenizer, ErrorsPointAtTheCharacter) {
  auto err = [](const std::string& text) {
    try {
      Tokenize(SourceFile(text, "t.py", 100));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(err("x = 1 $ 2\n"), "t.py:101:7: error: unexpected character '$'\n    x = 1 $ 2\n          ^");
  EXPECT_NE(err("x = 99999999999999999999\n").find("integer literal is too large"), std::string::npos);
  EXPECT_NE(err("x = 'abc\n").find("t.py:101:5: error: unterminated string literal"), std::string::npos);
  EXPECT_NE(err("x = (1,\n  2\n").find("'(' was never closed"), std::string::npos);
  EXPECT_NE(err("if x:\n        a\n    b\n").find("t.py:103:1: error: unindent does not match"), std::string::npos);
  EXPECT_NE(err("x = [1)\n").find("does not match opening parenthesis '['"), std::string::npos);
}

TEST(ParserPython, OperatorPrecedence) {
  SourceFile src("x = -a + b * c ** 2 // d < e and not f or g\n", "t.py");
  ast::Module m = ParsePython(src);
  ASSERT_EQ(m.body.size(), 1u);
  const ast::Expr& e = *m.body[0]->value;
  ASSERT_EQ(e.kind, ExprKind::kBoolOp);
  EXPECT_EQ(e.op, "or");
  const ast::Expr& and_ = *e.items[0];
  ASSERT_EQ(and_.kind, ExprKind::kBoolOp);
  EXPECT_EQ(and_.op, "and");
  const ast::Expr& cmp = *and_.items[0];
  ASSERT_EQ(cmp.kind, ExprKind::kCompare);
  EXPECT_EQ(cmp.ops[0], "<");
  const ast::Expr& sum = *cmp.items[0];
  ASSERT_EQ(sum.kind, ExprKind::kBinary);
  EXPECT_EQ(sum.op, "+");
  EXPECT_EQ(sum.a->kind, ExprKind::kUnary);
  const ast::Expr& floordiv = *sum.b;
  EXPECT_EQ(floordiv.op, "//");
  EXPECT_EQ(floordiv.a->op, "*");
  EXPECT_EQ(floordiv.a->b->op, "**");
  EXPECT_EQ(and_.items[1]->op, "not");
  // Positions span the whole expression.
  EXPECT_EQ(e.pos.col, 5);
  EXPECT_EQ(e.pos.end_col, 44);
}

TEST(ParserPython, StatementsAndTrailers) {
  SourceFile src(
      "@I.ir_module\n"
      "class M:\n"
      "    @T.prim_func(private=True)\n"
      "    def f(A: T.Buffer((128,), \"float32\"), n: T.int32) -> None:\n"
      "        for i, j in T.grid(4, n):\n"
      "            with T.block(\"b\"):\n"
      "                A[i, 0:4:2] += f(x, *y, k=1)[0].z\n"
      "        if a:\n"
      "            pass\n"
      "        elif b:\n"
      "            x: T.int32 = 1\n"
      "        else:\n"
      "            a, b = {1: 2}, [3,]\n",
      "t.py");
  ast::Module m = ParsePython(src);
  ASSERT_EQ(m.body.size(), 1u);
  const ast::Stmt& cls = *m.body[0];
  EXPECT_EQ(cls.kind, StmtKind::kClassDef);
  ASSERT_EQ(cls.decorators.size(), 1u);
  const ast::Stmt& f = *cls.body[0];
  EXPECT_EQ(f.kind, StmtKind::kFunctionDef);
  EXPECT_EQ(f.decorators[0]->kind, ExprKind::kCall);
  EXPECT_EQ(f.decorators[0]->kwargs[0].name, "private");
  ASSERT_EQ(f.args.size(), 2u);
  EXPECT_EQ(f.args[0].annotation->kind, ExprKind::kCall);
  EXPECT_EQ(f.returns->kind, ExprKind::kNone);
  const ast::Stmt& loop = *f.body[0];
  EXPECT_EQ(loop.kind, StmtKind::kFor);
  EXPECT_EQ(loop.target->kind, ExprKind::kTuple);
  const ast::Stmt& aug = *loop.body[0]->body[0];
  EXPECT_EQ(aug.kind, StmtKind::kAugAssign);
  EXPECT_EQ(aug.op, "+");
  EXPECT_EQ(aug.target->items[1]->kind, ExprKind::kSlice);
  EXPECT_EQ(aug.target->items[1]->c->ival, 2);
  const ast::Expr& rhs = *aug.value;
  EXPECT_EQ(rhs.kind, ExprKind::kAttribute);
  EXPECT_EQ(rhs.a->kind, ExprKind::kSubscript);
  const ast::Expr& call = *rhs.a->a;
  EXPECT_EQ(call.items[1]->kind, ExprKind::kStarred);
  const ast::Stmt& if_ = *f.body[1];
  ASSERT_EQ(if_.orelse.size(), 1u);
  EXPECT_EQ(if_.orelse[0]->kind, StmtKind::kIf);
  EXPECT_EQ(if_.orelse[0]->body[0]->kind, StmtKind::kAnnAssign);
  const ast::Stmt& assign = *if_.orelse[0]->orelse[0];
  EXPECT_EQ(assign.kind, StmtKind::kAssign);
  EXPECT_EQ(assign.targets[0]->kind, ExprKind::kTuple);
  EXPECT_EQ(assign.value->items[0]->kind, ExprKind::kDict);
  EXPECT_EQ(assign.value->items[1]->kind, ExprKind::kList);
}

TEST(ParserPython, SyntaxErrorsSayWhatWasExpected) {
  EXPECT_EQ(ParseErrorOf("def f(:):\n    pass\n"),
            "t.py:1:7: error: invalid syntax: expected a parameter name but found ':'\n    def f(:):\n          ^");
  EXPECT_NE(ParseErrorOf("x = 1 +\n").find("expected an expression but found end of line"), std::string::npos);
  EXPECT_NE(ParseErrorOf("for i in x\n    pass\n").find("expected ':'"), std::string::npos);
  EXPECT_NE(ParseErrorOf("def f():\npass\n").find("expected an indented block"), std::string::npos);
  EXPECT_NE(ParseErrorOf("f(a=1, 2)\n").find("positional argument follows keyword argument"), std::string::npos);
  EXPECT_NE(ParseErrorOf("x = lambda *a: 1\n").find("lambda parameters must be plain names"), std::string::npos);
  EXPECT_NE(ParseErrorOf("x = lambda a=1: a\n").find("cannot have default values"), std::string::npos);
  EXPECT_NE(ParseErrorOf("x = lambda a, a: a\n").find("duplicate lambda parameter 'a'"), std::string::npos);
  EXPECT_NE(ParseErrorOf("x = lambda a b: a\n").find("expected ',' or ':' in the lambda parameters"), std::string::npos);
  EXPECT_NE(ParseErrorOf("1 = x\n").find("cannot assign to this expression"), std::string::npos);
  EXPECT_NE(ParseErrorOf("x = [i for i in y]\n").find("comprehensions are not supported"), std::string::npos);
  std::string deep = "x = " + std::string(90, '(') + "1" + std::string(90, ')') + "\n";
  EXPECT_NE(ParseErrorOf(deep).find("nested too deeply"), std::string::npos);
}

}  // namespace
}  // namespace script
}  // namespace tessera
