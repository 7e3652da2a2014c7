// A small, generic AST for the subset of Python that TVMScript uses
// (expressions, def/class with decorators and annotations, for/while/if/
// with/assign/aug-assign/return/pass). Produced by python_parser.h and
// walked by the dialect-neutral evaluator (core/evaluator.h). Nodes are plain
// structs owned through unique_ptr; every node carries its source Pos.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "script/parser/source.h"

namespace tessera {
namespace script {
namespace ast {

enum class ExprKind {
  kName,       // str
  kInt,        // ival
  kFloat,      // fval
  kStr,        // str
  kBool,       // ival (0/1)
  kNone,
  kAttribute,  // a.str
  kSubscript,  // a[items...]  (items: one entry per comma-separated index)
  kSlice,      // a:b:c (each may be null)
  kCall,       // a(items..., kwargs...)
  kTuple,      // items
  kList,       // items
  kDict,       // items (keys), values
  kUnary,      // op a      (op: "-", "+", "not", "~")
  kBinary,     // a op b    (op: "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@")
  kCompare,    // items[0] ops[0] items[1] ops[1] ...
  kBoolOp,     // items joined by op ("and" / "or")
  kIfExp,      // b if a else c
  kStarred,    // *a
  kLambda,     // lambda items...: a   (items: the parameters, kName)
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  Pos pos;
  ExprPtr value;
};

struct Expr {
  ExprKind kind;
  Pos pos;
  std::string str;
  std::string op;
  int64_t ival = 0;
  double fval = 0;
  ExprPtr a, b, c;
  std::vector<ExprPtr> items;
  std::vector<ExprPtr> values;
  std::vector<Keyword> kwargs;
  std::vector<std::string> ops;
  Expr(ExprKind k, Pos p) : kind(k), pos(p) {}
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;
  // Iterative teardown: `a + b + ... + z` parses into a left chain as long
  // as the source, which recursive destruction would walk on the C++ stack.
  ~Expr() {
    std::vector<ExprPtr> pending;
    TakeChildren(&pending);
    while (!pending.empty()) {
      ExprPtr e = std::move(pending.back());
      pending.pop_back();
      if (e) e->TakeChildren(&pending);
    }
  }

 private:
  void TakeChildren(std::vector<ExprPtr>* out) {
    for (ExprPtr* p : {&a, &b, &c})
      if (*p) out->push_back(std::move(*p));
    for (auto* v : {&items, &values})
      for (ExprPtr& e : *v)
        if (e) out->push_back(std::move(e));
    for (Keyword& k : kwargs)
      if (k.value) out->push_back(std::move(k.value));
  }
};

enum class StmtKind {
  kFunctionDef,  // name, args, decorators, returns (a), body
  kClassDef,     // name, decorators, body
  kFor,          // target, iter (value), body, orelse
  kWhile,        // test (value), body
  kIf,           // test (value), body, orelse
  kWith,         // items, body
  kAssign,       // targets (chain a = b = value), value
  kAnnAssign,    // target, annotation, value (may be null)
  kAugAssign,    // target op= value
  kReturn,       // value (may be null)
  kPass,
  kBreak,
  kContinue,
  kExpr,         // value
  kImport,       // ignored by builders at module level
  kAssert,       // test (value), msg (annotation)
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Arg {
  std::string name;
  Pos pos;
  ExprPtr annotation;
  ExprPtr default_value;
};

struct WithItem {
  ExprPtr context;
  ExprPtr target;  // may be null
};

struct Stmt {
  StmtKind kind;
  Pos pos;
  std::string name;
  std::string op;
  std::vector<ExprPtr> decorators;
  std::vector<Arg> args;
  ExprPtr returns;
  ExprPtr target;
  ExprPtr value;
  ExprPtr annotation;
  std::vector<ExprPtr> targets;
  std::vector<WithItem> items;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
  Stmt(StmtKind k, Pos p) : kind(k), pos(p) {}
};

// A parsed file: its top-level statements.
struct Module {
  std::vector<StmtPtr> body;
};

}  // namespace ast
}  // namespace script
}  // namespace tessera
