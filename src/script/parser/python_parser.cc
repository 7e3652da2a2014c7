// Recursive-descent parser for the Python subset of TVMScript (see
// python_parser.h). Follows Python's grammar and operator precedence for
// the constructs TVMScript uses; anything else is rejected with a message.
#include "script/parser/python_parser.h"

#include <unordered_set>

#include "script/parser/tokenizer.h"

namespace tessera {
namespace script {
namespace {

using namespace ast;

const std::unordered_set<std::string>& Keywords() {
  static const std::unordered_set<std::string> kw = {
      "False", "None",   "True",    "and",      "as",     "assert", "async", "await",  "break",
      "class", "continue", "def",   "del",      "elif",   "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",     "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",    "while",  "with",  "yield"};
  return kw;
}

constexpr int kMaxDepth = 100;

class Parser {
 public:
  Parser(const SourceFile& src, std::vector<Token> tokens) : src_(src), toks_(std::move(tokens)) {}

  Module ParseFile() {
    Module m;
    while (!AtKind(TokenKind::kEnd)) {
      if (AtKind(TokenKind::kNewline)) {
        Advance();
        continue;
      }
      ParseStatement(&m.body);
    }
    return m;
  }

 private:
  const SourceFile& src_;
  std::vector<Token> toks_;
  size_t k_ = 0;
  Pos prev_end_;
  int depth_ = 0;
  int stmt_depth_ = 0;

  // ---- token helpers --------------------------------------------------------
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(k_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  bool AtKind(TokenKind kind) const { return Peek().kind == kind; }
  bool AtOp(const char* op) const { return Peek().kind == TokenKind::kOp && Peek().text == op; }
  bool AtKeyword(const char* kw) const { return Peek().kind == TokenKind::kName && Peek().text == kw; }
  const Token& Advance() {
    const Token& t = toks_[k_];
    prev_end_ = t.pos;
    if (k_ + 1 < toks_.size()) ++k_;
    return t;
  }
  std::string Describe(const Token& t) const {
    switch (t.kind) {
      case TokenKind::kNewline: return "end of line";
      case TokenKind::kIndent: return "an indented block";
      case TokenKind::kDedent: return "the end of the block";
      case TokenKind::kEnd: return "end of input";
      case TokenKind::kString: return "a string";
      case TokenKind::kInt:
      case TokenKind::kFloat: return "'" + t.text + "'";
      default: return "'" + t.text + "'";
    }
  }
  [[noreturn]] void Expected(const std::string& what) {
    src_.Error(Peek().pos, "invalid syntax: expected " + what + " but found " + Describe(Peek()));
  }
  void ExpectOp(const char* op) {
    if (!AtOp(op)) Expected(std::string("'") + op + "'");
    Advance();
  }
  void ExpectKeyword(const char* kw) {
    if (!AtKeyword(kw)) Expected(std::string("'") + kw + "'");
    Advance();
  }
  std::string ExpectName(const char* what) {
    if (!AtKind(TokenKind::kName) || Keywords().count(Peek().text)) Expected(what);
    return Advance().text;
  }
  // Span from `begin` to the end of the last consumed token.
  Pos SpanFrom(const Pos& begin) const {
    Pos p = begin;
    p.end_line = prev_end_.end_line;
    p.end_col = prev_end_.end_col;
    return p;
  }
  ExprPtr Make(ExprKind kind, const Pos& begin) { return std::make_unique<Expr>(kind, SpanFrom(begin)); }

  struct DepthGuard {
    Parser* p;
    DepthGuard(Parser* parser, const Pos& pos) : p(parser) {
      if (++p->depth_ > kMaxDepth) p->src_.Error(pos, "expression is nested too deeply");
    }
    ~DepthGuard() { --p->depth_; }
  };

  // ---- statements -----------------------------------------------------------
  void ParseStatement(std::vector<StmtPtr>* out) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kIndent) src_.Error(t.pos, "unexpected indent");
    if (t.kind == TokenKind::kDedent) src_.Error(t.pos, "unexpected unindent");
    if (++stmt_depth_ > kMaxDepth) src_.Error(t.pos, "statements are nested too deeply");
    struct Restore {
      int* d;
      ~Restore() { --*d; }
    } restore{&stmt_depth_};
    if (AtOp("@")) {
      std::vector<ExprPtr> decorators;
      while (AtOp("@")) {
        Advance();
        decorators.push_back(ParseTest());
        if (!AtKind(TokenKind::kNewline)) Expected("end of line after the decorator");
        Advance();
      }
      StmtPtr s;
      if (AtKeyword("def")) {
        s = ParseDef();
      } else if (AtKeyword("class")) {
        s = ParseClass();
      } else {
        Expected("'def' or 'class' after decorators");
      }
      s->decorators = std::move(decorators);
      out->push_back(std::move(s));
      return;
    }
    if (t.kind == TokenKind::kName) {
      if (t.text == "def") return out->push_back(ParseDef());
      if (t.text == "class") return out->push_back(ParseClass());
      if (t.text == "if") return out->push_back(ParseIf());
      if (t.text == "for") return out->push_back(ParseFor());
      if (t.text == "while") return out->push_back(ParseWhile());
      if (t.text == "with") return out->push_back(ParseWith());
      if (t.text == "async" || t.text == "try" || t.text == "lambda" || t.text == "raise" || t.text == "del" ||
          t.text == "global" || t.text == "nonlocal" || t.text == "yield" || t.text == "await") {
        src_.Error(t.pos, "'" + t.text + "' is not supported in TVMScript");
      }
    }
    ParseSimpleStatements(out);
  }

  void ParseSimpleStatements(std::vector<StmtPtr>* out) {
    while (true) {
      out->push_back(ParseSmallStatement());
      if (AtOp(";")) {
        Advance();
        if (AtKind(TokenKind::kNewline)) break;
        continue;
      }
      break;
    }
    if (!AtKind(TokenKind::kNewline)) Expected("end of line");
    Advance();
  }

  StmtPtr ParseSmallStatement() {
    Pos begin = Peek().pos;
    if (AtKeyword("pass")) {
      Advance();
      return std::make_unique<Stmt>(StmtKind::kPass, SpanFrom(begin));
    }
    if (AtKeyword("break")) {
      Advance();
      return std::make_unique<Stmt>(StmtKind::kBreak, SpanFrom(begin));
    }
    if (AtKeyword("continue")) {
      Advance();
      return std::make_unique<Stmt>(StmtKind::kContinue, SpanFrom(begin));
    }
    if (AtKeyword("return")) {
      Advance();
      ExprPtr value;
      if (!AtKind(TokenKind::kNewline) && !AtOp(";")) value = ParseTestList();
      auto s = std::make_unique<Stmt>(StmtKind::kReturn, SpanFrom(begin));
      s->value = std::move(value);
      return s;
    }
    if (AtKeyword("import") || AtKeyword("from")) {
      // import a.b [as c], ... | from a.b import x [as y], ...  (kept as text)
      Advance();
      while (!AtKind(TokenKind::kNewline) && !AtOp(";") && !AtKind(TokenKind::kEnd)) {
        if (!AtKind(TokenKind::kName) && !AtOp(".") && !AtOp(",") && !AtOp("(") && !AtOp(")") && !AtOp("*")) {
          Expected("a module name in the import statement");
        }
        Advance();
      }
      return std::make_unique<Stmt>(StmtKind::kImport, SpanFrom(begin));
    }
    if (AtKeyword("assert")) {
      Advance();
      auto s = std::make_unique<Stmt>(StmtKind::kAssert, begin);
      s->value = ParseTest();
      if (AtOp(",")) {
        Advance();
        s->annotation = ParseTest();
      }
      s->pos = SpanFrom(begin);
      return s;
    }
    ExprPtr first = ParseTestList(/*allow_star=*/true);
    if (AtOp("=")) {
      auto s = std::make_unique<Stmt>(StmtKind::kAssign, begin);
      s->targets.push_back(std::move(first));
      while (AtOp("=")) {
        Advance();
        s->targets.push_back(ParseTestList(/*allow_star=*/true));
      }
      s->value = std::move(s->targets.back());
      s->targets.pop_back();
      for (const ExprPtr& t : s->targets) CheckTarget(*t);
      s->pos = SpanFrom(begin);
      return s;
    }
    if (AtOp(":")) {
      Advance();
      auto s = std::make_unique<Stmt>(StmtKind::kAnnAssign, begin);
      CheckTarget(*first);
      if (first->kind == ExprKind::kTuple) src_.Error(first->pos, "only a single target can be annotated");
      s->target = std::move(first);
      s->annotation = ParseTest();
      if (AtOp("=")) {
        Advance();
        s->value = ParseTestList();
      }
      s->pos = SpanFrom(begin);
      return s;
    }
    static const char* kAug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^=", "@="};
    for (const char* op : kAug) {
      if (AtOp(op)) {
        Advance();
        auto s = std::make_unique<Stmt>(StmtKind::kAugAssign, begin);
        if (first->kind != ExprKind::kName && first->kind != ExprKind::kSubscript &&
            first->kind != ExprKind::kAttribute) {
          src_.Error(first->pos, "illegal target for augmented assignment");
        }
        s->target = std::move(first);
        std::string o(op);
        s->op = o.substr(0, o.size() - 1);
        s->value = ParseTestList();
        s->pos = SpanFrom(begin);
        return s;
      }
    }
    auto s = std::make_unique<Stmt>(StmtKind::kExpr, SpanFrom(begin));
    s->value = std::move(first);
    return s;
  }

  void CheckTarget(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kName:
      case ExprKind::kSubscript:
      case ExprKind::kAttribute: return;
      case ExprKind::kTuple:
      case ExprKind::kList:
        for (const ExprPtr& x : e.items) CheckTarget(*x);
        return;
      case ExprKind::kStarred: CheckTarget(*e.a); return;
      default: src_.Error(e.pos, "cannot assign to this expression");
    }
  }

  // suite: simple statements on the same line, or NEWLINE INDENT stmt+ DEDENT.
  std::vector<StmtPtr> ParseSuite() {
    ExpectOp(":");
    std::vector<StmtPtr> body;
    if (!AtKind(TokenKind::kNewline)) {
      ParseSimpleStatements(&body);
      return body;
    }
    Advance();
    if (!AtKind(TokenKind::kIndent)) Expected("an indented block");
    Advance();
    while (!AtKind(TokenKind::kDedent) && !AtKind(TokenKind::kEnd)) {
      if (AtKind(TokenKind::kNewline)) {
        Advance();
        continue;
      }
      ParseStatement(&body);
    }
    if (AtKind(TokenKind::kDedent)) Advance();
    return body;
  }

  StmtPtr ParseDef() {
    Pos begin = Peek().pos;
    ExpectKeyword("def");
    auto s = std::make_unique<Stmt>(StmtKind::kFunctionDef, begin);
    s->name = ExpectName("a function name");
    ExpectOp("(");
    while (!AtOp(")")) {
      if (AtOp("*") || AtOp("**") || AtOp("/")) src_.Error(Peek().pos, "'*', '**' and '/' parameters are not supported in TVMScript");
      Arg arg;
      arg.pos = Peek().pos;
      arg.name = ExpectName("a parameter name");
      for (const Arg& other : s->args) {
        if (other.name == arg.name) src_.Error(arg.pos, "duplicate parameter '" + arg.name + "'");
      }
      if (AtOp(":")) {
        Advance();
        arg.annotation = ParseTest();
      }
      if (AtOp("=")) {
        Advance();
        arg.default_value = ParseTest();
      }
      s->args.push_back(std::move(arg));
      if (AtOp(",")) {
        Advance();
        continue;
      }
      if (!AtOp(")")) Expected("',' or ')' in the parameter list");
    }
    Advance();
    if (AtOp("->")) {
      Advance();
      s->returns = ParseTest();
    }
    s->pos = SpanFrom(begin);
    s->body = ParseSuite();
    return s;
  }

  StmtPtr ParseClass() {
    Pos begin = Peek().pos;
    ExpectKeyword("class");
    auto s = std::make_unique<Stmt>(StmtKind::kClassDef, begin);
    s->name = ExpectName("a class name");
    if (AtOp("(")) {
      Advance();
      while (!AtOp(")")) {
        s->targets.push_back(ParseTest());  // base classes (ignored by builders)
        if (AtOp(",")) {
          Advance();
          continue;
        }
        if (!AtOp(")")) Expected("',' or ')'");
      }
      Advance();
    }
    s->pos = SpanFrom(begin);
    s->body = ParseSuite();
    return s;
  }

  StmtPtr ParseIf() {
    Pos begin = Peek().pos;
    Advance();  // 'if' or 'elif'
    auto s = std::make_unique<Stmt>(StmtKind::kIf, begin);
    s->value = ParseTest();
    s->pos = SpanFrom(begin);
    s->body = ParseSuite();
    if (AtKeyword("elif")) {
      s->orelse.push_back(ParseIf());
    } else if (AtKeyword("else")) {
      Advance();
      s->orelse = ParseSuite();
    }
    return s;
  }

  StmtPtr ParseFor() {
    Pos begin = Peek().pos;
    ExpectKeyword("for");
    auto s = std::make_unique<Stmt>(StmtKind::kFor, begin);
    s->target = ParseTargetList();
    ExpectKeyword("in");
    s->value = ParseTestList();
    s->pos = SpanFrom(begin);
    s->body = ParseSuite();
    if (AtKeyword("else")) {
      Advance();
      s->orelse = ParseSuite();
    }
    return s;
  }

  // for-loop targets: names / subscripts separated by commas (no 'in' parsing).
  ExprPtr ParseTargetList() {
    Pos begin = Peek().pos;
    std::vector<ExprPtr> items;
    bool comma = false;
    while (true) {
      ExprPtr e = ParseBitOr();
      CheckTarget(*e);
      items.push_back(std::move(e));
      if (!AtOp(",")) break;
      Advance();
      comma = true;
      if (AtKeyword("in")) break;
    }
    if (!comma) return std::move(items[0]);
    auto t = Make(ExprKind::kTuple, begin);
    t->items = std::move(items);
    return t;
  }

  StmtPtr ParseWhile() {
    Pos begin = Peek().pos;
    ExpectKeyword("while");
    auto s = std::make_unique<Stmt>(StmtKind::kWhile, begin);
    s->value = ParseTest();
    s->pos = SpanFrom(begin);
    s->body = ParseSuite();
    if (AtKeyword("else")) src_.Error(Peek().pos, "'while ... else' is not supported in TVMScript");
    return s;
  }

  StmtPtr ParseWith() {
    Pos begin = Peek().pos;
    ExpectKeyword("with");
    auto s = std::make_unique<Stmt>(StmtKind::kWith, begin);
    while (true) {
      WithItem item;
      item.context = ParseTest();
      if (AtKeyword("as")) {
        Advance();
        item.target = ParseTargetList();
      }
      s->items.push_back(std::move(item));
      if (!AtOp(",")) break;
      Advance();
    }
    s->pos = SpanFrom(begin);
    s->body = ParseSuite();
    return s;
  }

  // ---- expressions ----------------------------------------------------------
  // testlist: test (',' test)* [','] -> a tuple when a comma is present.
  ExprPtr ParseTestList(bool allow_star = false) {
    Pos begin = Peek().pos;
    ExprPtr first = ParseTestOrStar(allow_star);
    if (!AtOp(",")) return first;
    auto t = Make(ExprKind::kTuple, begin);
    t->items.push_back(std::move(first));
    while (AtOp(",")) {
      Advance();
      if (!StartsExpression()) break;
      t->items.push_back(ParseTestOrStar(allow_star));
    }
    t->pos = SpanFrom(begin);
    return t;
  }

  ExprPtr ParseTestOrStar(bool allow_star) {
    if (allow_star && AtOp("*")) {
      Pos begin = Peek().pos;
      Advance();
      auto e = Make(ExprKind::kStarred, begin);
      e->a = ParseBitOr();
      e->pos = SpanFrom(begin);
      return e;
    }
    return ParseTest();
  }

  bool StartsExpression() const {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kName:
        return !Keywords().count(t.text) || t.text == "None" || t.text == "True" || t.text == "False" ||
               t.text == "not" || t.text == "lambda";
      case TokenKind::kInt:
      case TokenKind::kFloat:
      case TokenKind::kString: return true;
      case TokenKind::kOp:
        return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
               t.text == "~" || t.text == "*" || t.text == "...";
      default: return false;
    }
  }

  ExprPtr ParseTest() {
    DepthGuard guard(this, Peek().pos);
    Pos begin = Peek().pos;
    if (AtKeyword("lambda")) return ParseLambda();
    ExprPtr body = ParseOr();
    if (AtKeyword("if")) {
      Advance();
      auto e = Make(ExprKind::kIfExp, begin);
      e->a = ParseOr();
      ExpectKeyword("else");
      e->b = std::move(body);
      e->c = ParseTest();
      e->pos = SpanFrom(begin);
      return e;
    }
    if (AtOp(":=")) src_.Error(Peek().pos, "assignment expressions (:=) are not supported in TVMScript");
    return body;
  }

  // lambda x, y: body (plain positional parameters only).
  ExprPtr ParseLambda() {
    Pos begin = Peek().pos;
    Advance();  // 'lambda'
    auto e = Make(ExprKind::kLambda, begin);
    while (!AtOp(":")) {
      if (AtOp("*") || AtOp("**")) src_.Error(Peek().pos, "lambda parameters must be plain names in TVMScript");
      Pos p = Peek().pos;
      auto param = Make(ExprKind::kName, p);
      param->str = ExpectName("a lambda parameter name");
      if (AtOp("=")) src_.Error(Peek().pos, "lambda parameters cannot have default values in TVMScript");
      for (const ExprPtr& other : e->items) {
        if (other->str == param->str) src_.Error(p, "duplicate lambda parameter '" + param->str + "'");
      }
      param->pos = SpanFrom(p);
      e->items.push_back(std::move(param));
      if (AtOp(",")) {
        Advance();
        continue;
      }
      if (!AtOp(":")) Expected("',' or ':' in the lambda parameters");
    }
    Advance();  // ':'
    e->a = ParseTest();
    e->pos = SpanFrom(begin);
    return e;
  }

  ExprPtr ParseBoolChain(const char* op, ExprPtr (Parser::*next)()) {
    Pos begin = Peek().pos;
    ExprPtr first = (this->*next)();
    if (!AtKeyword(op)) return first;
    auto e = Make(ExprKind::kBoolOp, begin);
    e->op = op;
    e->items.push_back(std::move(first));
    while (AtKeyword(op)) {
      Advance();
      e->items.push_back((this->*next)());
    }
    e->pos = SpanFrom(begin);
    return e;
  }
  ExprPtr ParseOr() { return ParseBoolChain("or", &Parser::ParseAnd); }
  ExprPtr ParseAnd() { return ParseBoolChain("and", &Parser::ParseNot); }

  ExprPtr ParseNot() {
    if (AtKeyword("not")) {
      DepthGuard guard(this, Peek().pos);
      Pos begin = Peek().pos;
      Advance();
      auto e = Make(ExprKind::kUnary, begin);
      e->op = "not";
      e->a = ParseNot();
      e->pos = SpanFrom(begin);
      return e;
    }
    return ParseComparison();
  }

  ExprPtr ParseComparison() {
    Pos begin = Peek().pos;
    ExprPtr first = ParseBitOr();
    auto comp_op = [&]() -> std::string {
      static const char* kOps[] = {"<", ">", "==", ">=", "<=", "!="};
      for (const char* op : kOps)
        if (AtOp(op)) return op;
      if (AtKeyword("in")) return "in";
      if (AtKeyword("is")) return "is";
      if (AtKeyword("not") && Peek(1).kind == TokenKind::kName && Peek(1).text == "in") return "not in";
      return "";
    };
    std::string op = comp_op();
    if (op.empty()) return first;
    auto e = Make(ExprKind::kCompare, begin);
    e->items.push_back(std::move(first));
    while (!op.empty()) {
      Advance();
      if (op == "not in") Advance();
      if (op == "is" && AtKeyword("not")) {
        Advance();
        op = "is not";
      }
      e->ops.push_back(op);
      e->items.push_back(ParseBitOr());
      op = comp_op();
    }
    e->pos = SpanFrom(begin);
    return e;
  }

  ExprPtr ParseBinaryLevel(std::initializer_list<const char*> ops, ExprPtr (Parser::*next)()) {
    Pos begin = Peek().pos;
    ExprPtr left = (this->*next)();
    while (true) {
      const char* found = nullptr;
      for (const char* op : ops)
        if (AtOp(op)) found = op;
      if (found == nullptr) return left;
      Advance();
      auto e = Make(ExprKind::kBinary, begin);
      e->op = found;
      e->a = std::move(left);
      e->b = (this->*next)();
      e->pos = SpanFrom(begin);
      left = std::move(e);
    }
  }
  ExprPtr ParseBitOr() { return ParseBinaryLevel({"|"}, &Parser::ParseBitXor); }
  ExprPtr ParseBitXor() { return ParseBinaryLevel({"^"}, &Parser::ParseBitAnd); }
  ExprPtr ParseBitAnd() { return ParseBinaryLevel({"&"}, &Parser::ParseShift); }
  ExprPtr ParseShift() { return ParseBinaryLevel({"<<", ">>"}, &Parser::ParseArith); }
  ExprPtr ParseArith() { return ParseBinaryLevel({"+", "-"}, &Parser::ParseTerm); }
  ExprPtr ParseTerm() { return ParseBinaryLevel({"*", "/", "//", "%", "@"}, &Parser::ParseFactor); }

  ExprPtr ParseFactor() {
    if (AtOp("-") || AtOp("+") || AtOp("~")) {
      DepthGuard guard(this, Peek().pos);
      Pos begin = Peek().pos;
      std::string op = Advance().text;
      auto e = Make(ExprKind::kUnary, begin);
      e->op = op;
      e->a = ParseFactor();
      e->pos = SpanFrom(begin);
      return e;
    }
    return ParsePower();
  }

  ExprPtr ParsePower() {
    Pos begin = Peek().pos;
    ExprPtr base = ParseAtomExpr();
    if (AtOp("**")) {
      Advance();
      auto e = Make(ExprKind::kBinary, begin);
      e->op = "**";
      e->a = std::move(base);
      e->b = ParseFactor();
      e->pos = SpanFrom(begin);
      return e;
    }
    return base;
  }

  ExprPtr ParseAtomExpr() {
    Pos begin = Peek().pos;
    ExprPtr e = ParseAtom();
    int trailers = 0;
    while (true) {
      if (++trailers > 4 * kMaxDepth) src_.Error(Peek().pos, "expression is too long");
      if (AtOp("(")) {
        Advance();
        auto call = Make(ExprKind::kCall, begin);
        call->a = std::move(e);
        ParseArguments(call.get());
        ExpectOp(")");
        call->pos = SpanFrom(begin);
        e = std::move(call);
      } else if (AtOp("[")) {
        Advance();
        auto sub = Make(ExprKind::kSubscript, begin);
        sub->a = std::move(e);
        while (true) {
          sub->items.push_back(ParseSubscript());
          if (!AtOp(",")) break;
          Advance();
          if (AtOp("]")) break;
        }
        ExpectOp("]");
        sub->pos = SpanFrom(begin);
        e = std::move(sub);
      } else if (AtOp(".")) {
        Advance();
        auto attr = Make(ExprKind::kAttribute, begin);
        attr->a = std::move(e);
        attr->str = ExpectName("an attribute name after '.'");
        attr->pos = SpanFrom(begin);
        e = std::move(attr);
      } else {
        return e;
      }
    }
  }

  void ParseArguments(Expr* call) {
    bool seen_keyword = false;
    while (!AtOp(")")) {
      if (AtOp("**")) src_.Error(Peek().pos, "'**' arguments are not supported in TVMScript");
      if (AtKind(TokenKind::kName) && Peek(1).kind == TokenKind::kOp && Peek(1).text == "=") {
        Keyword kw;
        kw.pos = Peek().pos;
        kw.name = ExpectName("a keyword argument name");
        Advance();  // '='
        kw.value = ParseTest();
        for (const Keyword& other : call->kwargs) {
          if (other.name == kw.name) src_.Error(kw.pos, "keyword argument repeated: " + kw.name);
        }
        call->kwargs.push_back(std::move(kw));
        seen_keyword = true;
      } else {
        Pos p = Peek().pos;
        ExprPtr arg = ParseTestOrStar(/*allow_star=*/true);
        if (seen_keyword) src_.Error(p, "positional argument follows keyword argument");
        call->items.push_back(std::move(arg));
      }
      if (AtOp(",")) {
        Advance();
        continue;
      }
      if (!AtOp(")")) Expected("',' or ')' in the argument list");
    }
  }

  ExprPtr ParseSubscript() {
    Pos begin = Peek().pos;
    ExprPtr lower;
    if (!AtOp(":")) {
      lower = ParseTest();
      if (!AtOp(":")) return lower;
    }
    auto s = Make(ExprKind::kSlice, begin);
    s->a = std::move(lower);
    Advance();  // ':'
    if (!AtOp(":") && !AtOp(",") && !AtOp("]")) s->b = ParseTest();
    if (AtOp(":")) {
      Advance();
      if (!AtOp(",") && !AtOp("]")) s->c = ParseTest();
    }
    s->pos = SpanFrom(begin);
    return s;
  }

  ExprPtr ParseAtom() {
    DepthGuard guard(this, Peek().pos);
    const Token& t = Peek();
    Pos begin = t.pos;
    switch (t.kind) {
      case TokenKind::kInt: {
        Advance();
        auto e = Make(ExprKind::kInt, begin);
        e->ival = t.ival;
        return e;
      }
      case TokenKind::kFloat: {
        Advance();
        auto e = Make(ExprKind::kFloat, begin);
        e->fval = t.fval;
        return e;
      }
      case TokenKind::kString: {
        std::string value;
        while (AtKind(TokenKind::kString)) value += Advance().text;  // implicit concatenation
        auto e = Make(ExprKind::kStr, begin);
        e->str = std::move(value);
        return e;
      }
      case TokenKind::kName: {
        if (t.text == "True" || t.text == "False") {
          Advance();
          auto e = Make(ExprKind::kBool, begin);
          e->ival = t.text == "True";
          return e;
        }
        if (t.text == "None") {
          Advance();
          return Make(ExprKind::kNone, begin);
        }
        if (Keywords().count(t.text)) Expected("an expression");
        Advance();
        auto e = Make(ExprKind::kName, begin);
        e->str = toks_[k_ - 1].text;
        return e;
      }
      case TokenKind::kOp: {
        if (t.text == "(") {
          Advance();
          if (AtOp(")")) {
            Advance();
            return Make(ExprKind::kTuple, begin);
          }
          ExprPtr inner = ParseTestOrStar(true);
          if (AtKeyword("for")) src_.Error(Peek().pos, "comprehensions are not supported in TVMScript");
          if (AtOp(")")) {
            Advance();
            return inner;  // parenthesised expression (keeps its own position)
          }
          auto tup = Make(ExprKind::kTuple, begin);
          tup->items.push_back(std::move(inner));
          while (AtOp(",")) {
            Advance();
            if (AtOp(")")) break;
            tup->items.push_back(ParseTestOrStar(true));
          }
          ExpectOp(")");
          tup->pos = SpanFrom(begin);
          return tup;
        }
        if (t.text == "[") {
          Advance();
          auto list = Make(ExprKind::kList, begin);
          while (!AtOp("]")) {
            list->items.push_back(ParseTestOrStar(true));
            if (AtKeyword("for")) src_.Error(Peek().pos, "comprehensions are not supported in TVMScript");
            if (AtOp(",")) {
              Advance();
              continue;
            }
            if (!AtOp("]")) Expected("',' or ']'");
          }
          Advance();
          list->pos = SpanFrom(begin);
          return list;
        }
        if (t.text == "{") {
          Advance();
          auto dict = Make(ExprKind::kDict, begin);
          while (!AtOp("}")) {
            dict->items.push_back(ParseTest());
            if (!AtOp(":")) Expected("':' in the dictionary (sets are not supported)");
            Advance();
            dict->values.push_back(ParseTest());
            if (AtKeyword("for")) src_.Error(Peek().pos, "comprehensions are not supported in TVMScript");
            if (AtOp(",")) {
              Advance();
              continue;
            }
            if (!AtOp("}")) Expected("',' or '}'");
          }
          Advance();
          dict->pos = SpanFrom(begin);
          return dict;
        }
        if (t.text == "...") src_.Error(t.pos, "'...' is not supported in TVMScript");
        break;
      }
      default: break;
    }
    Expected("an expression");
  }
};

}  // namespace

ast::Module ParsePython(const SourceFile& source) {
  Parser parser(source, Tokenize(source));
  return parser.ParseFile();
}

}  // namespace script
}  // namespace tessera
