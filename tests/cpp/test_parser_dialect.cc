// Tests of the parser's dialect-neutral structure: the module builder
// (functions of an @I.ir_module class call each other in any order through
// `cls.f` and the class name; the printer's `cls.f(...)` parses back to the
// same IR), errors naming the culprit, and a toy dialect registered from
// this file (namespace "X") that builds its own function kind beside
// T.prim_func without touching the parser.
#include <gtest/gtest.h>

#include "ir/module.h"
#include "ir/structural_equal.h"
#include "runtime/registry.h"
#include "script/parser/core/evaluator.h"
#include "script/parser/parser.h"
#include "script/printer/script_printer.h"
#include "tir/function.h"
#include "tir/op.h"

namespace tessera {
namespace script {
namespace {

using namespace tir;

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

// ---- a toy dialect --------------------------------------------------------------
// X.num(n) makes a ToyNum; `+` on ToyNums adds; @X.func functions are
// straight-line Python whose `return` value becomes a ToyFunc; calling a
// module function from one records the callee.
class ToyNumObj : public Object {
 public:
  int64_t value = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ToyNumObj, Object, "test.ToyNum");
};
TESSERA_REGISTER_OBJECT_TYPE(ToyNumObj);

class ToyFuncNode : public BaseFuncNode {
 public:
  int64_t value = 0;
  std::vector<std::string> callees;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ToyFuncNode, BaseFuncNode, "test.ToyFunc");
};
TESSERA_REGISTER_OBJECT_TYPE(ToyFuncNode);

Any ToyNum(int64_t v) {
  auto n = make_object<ToyNumObj>();
  n->value = v;
  return Any(AsRef(n));
}

class ToyFrame : public BodyFrame {
 public:
  explicit ToyFrame(Dialect* d) : dialect_(d) {}
  Dialect* dialect() override { return dialect_; }
  std::string Where() const override { return "an X.func body"; }
  void Return(Evaluator& ev, const ast::Stmt& s) override {
    Any v = ev.Eval(*s.value);
    const auto* n = v.as<ToyNumObj>();
    if (n == nullptr) ev.Error(s.value->pos, "an X.func returns an X.num, not a " + ev.TypeName(v));
    result = n->value;
  }
  Dialect* dialect_;
  int64_t result = 0;
  std::vector<std::string> callees;
};

class ToyDialect : public Dialect {
 public:
  std::string name() const override { return "X"; }
  bool Owns(const Any& v) const override { return v.as<ToyNumObj>() != nullptr; }
  std::string TypeName(const Any&) const override { return "X.num"; }
  Any CallMember(Evaluator& ev, CallArgs& call) override {
    if (call.func == "X.num" && call.args.size() == 1) return ToyNum(ev.ToInt(call.args[0], call.arg_pos[0], "a number"));
    return Dialect::CallMember(ev, call);
  }
  Any Binary(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& pos) override {
    auto value = [&](const Any& x) -> int64_t {
      if (const auto* n = x.as<ToyNumObj>()) return n->value;
      return ev.ToInt(x, pos, "an X.num operand");
    };
    if (op != "+") return Dialect::Binary(ev, op, a, b, pos);
    return ToyNum(value(a) + value(b));
  }
  Any CallFunction(Evaluator& ev, const ObjectRef& gv, const FunctionSignature& sig, CallArgs& call) override {
    if (sig.dialect != "X") ev.Error(call.node->pos, "an X.func can only call X.funcs");
    frame_->callees.push_back(Downcast<GlobalVar>(gv)->name_hint);
    return ToyNum(static_cast<int64_t>(call.args.size()));
  }
  bool IsFunctionDecorator(const std::string& path) const override { return path == "X.func"; }
  FunctionSignature DeclareFunction(Evaluator&, const ast::Stmt& def, const Decorator&) override {
    FunctionSignature sig;
    sig.dialect = "X";
    sig.num_params = static_cast<int>(def.args.size());
    return sig;
  }
  ObjectRef BuildFunction(Evaluator& ev, const ast::Stmt& def, const Decorator&) override {
    ToyFrame frame(this);
    frame_ = &frame;
    Evaluator::FrameGuard guard(&ev, &frame);
    Evaluator::ScopeGuard scope(&ev);
    for (const ast::StmtPtr& s : def.body) ev.ExecStmt(*s);
    frame_ = nullptr;
    auto f = make_object<ToyFuncNode>();
    f->value = frame.result;
    f->callees = frame.callees;
    return BaseFunc(f);
  }

 private:
  ToyFrame* frame_ = nullptr;
};

TESSERA_REGISTER_SCRIPT_DIALECT(ToyDialect);

TEST(ParserDialect, ToyDialectBuildsItsFunctionsBesidePrimFuncs) {
  const char* text = R"(@I.ir_module
class Mixed:
    @X.func
    def caller():
        return cls.seven() + Mixed.later(1, 2)

    @X.func
    def seven():
        a = 3
        a += 1
        b = X.num(a) + 3
        return b

    @T.prim_func
    def zero(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)

    @X.func
    def later(x, y):
        return X.num(1)
)";
  IRModule mod = Downcast<IRModule>(ParseTVMScript(text, "m.py"));
  ASSERT_EQ(mod->functions.size(), 4u);
  const auto* seven = mod->Lookup("seven").as<ToyFuncNode>();
  ASSERT_NE(seven, nullptr);
  EXPECT_EQ(seven->value, 7);
  const auto* caller = mod->Lookup("caller").as<ToyFuncNode>();
  ASSERT_NE(caller, nullptr);
  EXPECT_EQ(caller->callees, (std::vector<std::string>{"seven", "later"}));
  EXPECT_EQ(caller->value, 0 + 2);  // the toy call returns its argument count
  EXPECT_NE(mod->Lookup("zero").as<PrimFuncNode>(), nullptr);

  // The toy dialect's own errors and the evaluator's defaults for it.
  std::string bad_member = ErrorOf("@I.ir_module\nclass M:\n    @X.func\n    def f():\n        return X.nope(1)\n");
  EXPECT_NE(bad_member.find("m.py:5:16: error: unknown TVMScript function 'X.nope'"), std::string::npos) << bad_member;
  std::string bad_op = ErrorOf("@I.ir_module\nclass M:\n    @X.func\n    def f():\n        return X.num(1) * 2\n");
  EXPECT_NE(bad_op.find("m.py:5:16: error: unsupported operand types for '*': X.num and int"), std::string::npos)
      << bad_op;
  std::string bad_stmt = ErrorOf("@I.ir_module\nclass M:\n    @X.func\n    def f():\n        for i in (1, 2):\n"
                                 "            pass\n        return X.num(1)\n");
  EXPECT_NE(bad_stmt.find("m.py:5:9: error: 'for' is not supported in an X.func body"), std::string::npos) << bad_stmt;
  std::string cross = ErrorOf("@I.ir_module\nclass M:\n    @X.func\n    def f():\n        return cls.g()\n"
                              "    @T.prim_func\n    def g():\n        T.evaluate(0)\n");
  EXPECT_NE(cross.find("m.py:5:16: error: an X.func can only call X.funcs"), std::string::npos) << cross;
}

// ---- module functions calling each other ------------------------------------------------
const char* kCalls = R"(@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = cls.twice(i) + Module.add(i, 1)
        cls.side(A.data)

    @T.prim_func
    def twice(x: T.int32) -> T.int32:
        T.evaluate(x * 2)

    @T.prim_func
    def add(x: T.int32, y: T.int32) -> T.int32:
        T.evaluate(x + y)

    @T.prim_func
    def side(p: T.handle):
        T.evaluate(0)
)";

TEST(ParserModule, FunctionsCallEachOtherInAnyOrder) {
  IRModule mod = Downcast<IRModule>(ParseTVMScript(kCalls, "m.py"));
  GlobalVar twice = mod->GetGlobalVar("twice"), add = mod->GetGlobalVar("add"), side = mod->GetGlobalVar("side");
  PrimFunc main = Downcast<PrimFunc>(mod->Lookup("main"));
  EXPECT_EQ(Downcast<PrimFunc>(mod->Lookup("twice"))->ret_type, DataType::Int(32));
  SeqStmt seq = Downcast<SeqStmt>(main->body);
  BufferStore store = Downcast<BufferStore>(Downcast<For>(seq->seq[0])->body);
  Add sum = Downcast<Add>(store->value);
  Call c1 = Downcast<Call>(sum->a), c2 = Downcast<Call>(sum->b);
  // The calls refer to the module's own GlobalVars (declared before any body).
  EXPECT_TRUE(c1->op.same_as(twice));
  EXPECT_TRUE(c2->op.same_as(add));
  EXPECT_EQ(c1->dtype, DataType::Int(32));
  EXPECT_EQ(c2->args.size(), 2u);
  Call c3 = Downcast<Call>(Downcast<Evaluate>(seq->seq[1])->value);
  EXPECT_TRUE(c3->op.same_as(side));
  EXPECT_TRUE(c3->dtype.is_void());
}

TEST(ParserModule, PrintedCallsParseBackToTheSameModule) {
  IRModule mod = Downcast<IRModule>(ParseTVMScript(kCalls, "m.py"));
  std::string text = printer::AsTVMScript(mod);
  EXPECT_NE(text.find("cls.twice(i)"), std::string::npos) << text;
  EXPECT_NE(text.find("cls.add(i, 1)"), std::string::npos) << text;
  IRModule again = Downcast<IRModule>(ParseTVMScript(text, "printed.py"));
  EXPECT_TRUE(StructuralEqual(mod, again)) << text << "\n----\n" << printer::AsTVMScript(again);
  EXPECT_EQ(printer::AsTVMScript(again), text);

  // A module built in C++: a caller before its callee, as the printer sorts them.
  Var p("p"), q("q");
  GlobalVar callee("callee"), caller("a_caller");
  PrimFunc f_callee({p}, Evaluate(p + 1), {}, {}, DataType::Int(32));
  PrimFunc f_caller({q}, Evaluate(Call(DataType::Int(32), callee, {q * 2})));
  Map<GlobalVar, BaseFunc> funcs;
  funcs.Set(caller, f_caller);
  funcs.Set(callee, f_callee);
  IRModule built(funcs);
  std::string built_text = printer::AsTVMScript(built);
  IRModule parsed = Downcast<IRModule>(ParseTVMScript(built_text, "built.py"));
  EXPECT_TRUE(StructuralEqual(built, parsed, true)) << built_text << "\n----\n" << printer::AsTVMScript(parsed);
}

TEST(ParserModule, Errors) {
  // A missing module function names itself and the module's functions.
  std::string undefined = ErrorOf(
      "@I.ir_module\nclass Module:\n    @T.prim_func\n    def main():\n        T.evaluate(cls.undefined())\n");
  EXPECT_NE(undefined.find("m.py:5:20: error: module 'Module' has no function 'undefined' (it defines: main)"),
            std::string::npos)
      << undefined;
  std::string by_name = ErrorOf(
      "@I.ir_module\nclass Module:\n    @T.prim_func\n    def main():\n        T.evaluate(Module.nope(1))\n");
  EXPECT_NE(by_name.find("m.py:5:20: error: module 'Module' has no function 'nope'"), std::string::npos) << by_name;
  // Wrong arity and keyword arguments.
  const char* arity = "@I.ir_module\nclass Module:\n    @T.prim_func\n    def main():\n        T.evaluate(cls.f(1))\n"
                      "    @T.prim_func\n    def f(x: T.int32, y: T.int32):\n        T.evaluate(x + y)\n";
  EXPECT_NE(ErrorOf(arity).find("m.py:5:20: error: f() takes 2 arguments but 1 was given"), std::string::npos)
      << ErrorOf(arity);
  const char* kw = "@I.ir_module\nclass Module:\n    @T.prim_func\n    def main():\n        T.evaluate(cls.f(x=1))\n"
                   "    @T.prim_func\n    def f(x: T.int32):\n        T.evaluate(x)\n";
  EXPECT_NE(ErrorOf(kw).find("m.py:5:28: error: f() takes no keyword arguments"), std::string::npos) << ErrorOf(kw);
  // An unknown T member names itself at its position.
  std::string member = ErrorOf("@T.prim_func\ndef main():\n    T.evaluate(T.frobnicate(1))\n");
  EXPECT_NE(member.find("m.py:3:16: error: unknown TVMScript function 'T.frobnicate'"), std::string::npos) << member;
  // `cls` only exists inside a module class.
  std::string no_cls = ErrorOf("@T.prim_func\ndef main():\n    T.evaluate(cls.f())\n");
  EXPECT_NE(no_cls.find("m.py:3:16: error: undefined name 'cls'"), std::string::npos) << no_cls;
  // A bad return annotation is reported while declaring, before any body.
  std::string ret = ErrorOf("@I.ir_module\nclass Module:\n    @T.prim_func\n    def main() -> T.Buffer:\n"
                            "        T.evaluate(0)\n");
  EXPECT_NE(ret.find("m.py:4:19: error: unknown dtype 'Buffer'"), std::string::npos) << ret;
  // Module-level only builtins.
  std::string attrs = ErrorOf("@T.prim_func\ndef main():\n    I.module_attrs({\"a\": 1})\n");
  EXPECT_NE(attrs.find("m.py:3:5: error: I.module_attrs() is only allowed directly in the body of an @I.ir_module"),
            std::string::npos)
      << attrs;
}

TEST(ParserModule, ModuleAttrsAndRegistry) {
  IRModule mod = Downcast<IRModule>(ParseTVMScript(
      "@I.ir_module\nclass M:\n    I.module_attrs({\"n\": 3, \"s\": \"x\", \"l\": [1, 2.5]})\n"
      "    @T.prim_func\n    def f():\n        T.evaluate(0)\n",
      "m.py"));
  EXPECT_TRUE(IsConstInt(mod->attrs.at("n").cast<PrimExpr>(), 3));
  EXPECT_EQ(mod->attrs.at("s").cast<std::string>(), "x");
  EXPECT_EQ(mod->attrs.at("l").cast<Array<Any>>().size(), 2u);
  EXPECT_NE(DialectRegistry::Global().Find("T"), nullptr);
  EXPECT_NE(DialectRegistry::Global().Find("I"), nullptr);
  EXPECT_EQ(DialectRegistry::Global().FindByDecorator("T.prim_func"), DialectRegistry::Global().Find("T"));
  EXPECT_NE(DialectRegistry::Global().Find("R"), nullptr);  // the Relax dialect (parser/relax)
  EXPECT_EQ(DialectRegistry::Global().FindByDecorator("R.function"), DialectRegistry::Global().Find("R"));
  EXPECT_THROW(DialectRegistry::Global().Register(std::make_unique<ToyDialect>()), Error);
}

}  // namespace
}  // namespace script
}  // namespace tessera
