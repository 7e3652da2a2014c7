// The dialect-neutral evaluator of TVMScript's Python subset: names (lexical
// scopes, then the caller's resolver for free names), literals, tuples,
// lists, dicts, attributes, subscripts, calls with positional / keyword /
// starred arguments, unary / binary / compare / bool ops and conditional
// expressions on Python values, and the statements of a function body.
// It knows no IR: namespace members (T.grid) go to the dialect owning the
// namespace, operations on IR values to the dialect owning the value, and
// statements to the BodyFrame of the function being built (dialect.h).
// Sits between the Python-subset parser (python_parser.h) and the dialects
// (parser/tir, parser/ir).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/error.h"
#include "script/parser/core/dialect.h"
#include "script/parser/core/scope.h"
#include "script/parser/core/values.h"
#include "script/parser/python_ast.h"
#include "script/parser/source.h"

namespace tessera {
namespace script {

class Evaluator {
 public:
  Evaluator(const SourceFile& source, NameResolver resolver);
  ~Evaluator();

  const SourceFile& source() const { return src_; }
  [[noreturn]] void Error(const Pos& pos, const std::string& msg) const { src_.Error(pos, msg); }
  // Runs `f`, turning any non-ParseError error into a ParseError at `pos`.
  template <typename F>
  auto Guard(const Pos& pos, F&& f) -> decltype(f());

  // ---- names and scopes --------------------------------------------------------
  std::optional<Any> Lookup(const std::string& name) const;
  void Bind(const std::string& name, Any value) { scopes_.Bind(name, std::move(value)); }
  struct ScopeGuard {
    Evaluator* ev;
    explicit ScopeGuard(Evaluator* e) : ev(e) { ev->scopes_.Push(); }
    ~ScopeGuard() { ev->scopes_.Pop(); }
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;
  };

  // ---- expressions ---------------------------------------------------------------
  Any Eval(const ast::Expr& e);
  // Evaluates a lambda's body with its parameters bound to `args` (in a new scope over the current one).
  Any CallLambda(const LambdaObj& lam, const std::vector<Any>& args, const Pos& pos);
  // Evaluates the value of an assignment to `names` (a call or subscript
  // sees them in CallArgs::names: `A = T.alloc_buffer(...)` names the buffer).
  Any EvalNamed(const ast::Expr& e, std::vector<std::string> names);
  // Evaluates a decorator expression (@T.prim_func or @T.prim_func(private=True)).
  Decorator EvalDecorator(const ast::Expr& e);

  // ---- statements -------------------------------------------------------------------
  // Runs one statement of a function body through the current BodyFrame.
  void ExecStmt(const ast::Stmt& s);
  BodyFrame* frame() const { return frame_; }
  struct FrameGuard {
    Evaluator* ev;
    BodyFrame* saved;
    FrameGuard(Evaluator* e, BodyFrame* f) : ev(e), saved(e->frame_) { ev->frame_ = f; }
    ~FrameGuard() { ev->frame_ = saved; }
    FrameGuard(const FrameGuard&) = delete;
    FrameGuard& operator=(const FrameGuard&) = delete;
  };

  // ---- Python values ------------------------------------------------------------------
  static bool IsNumber(const Any& v);
  static bool IsIntLike(const Any& v);
  // Python truth value of a non-symbolic value.
  static bool Truthy(const Any& v);
  // An integer constant (Python int/bool or an IntImm).
  int64_t ToInt(const Any& v, const Pos& pos, const std::string& what) const;
  // A Python string.
  std::string ToStr(const Any& v, const Pos& pos, const std::string& what) const;
  bool ToBool(const Any& v, const Pos& pos, const std::string& what) const;
  // A short description of a value's type for messages.
  std::string TypeName(const Any& v) const;
  // An attribute/annotation value: Python numbers become IR constants, lists
  // and dicts are converted item by item, and the parser's own helper values
  // ("script.*": namespaces, slices, buffer regions...) are refused at `pos`.
  Any ToAttrValue(const Any& v, const Pos& pos) const;
  // True when a dialect owns `v` and says it is symbolic.
  bool IsSymbolic(const Any& v) const;

  // ---- dispatch ---------------------------------------------------------------------------
  // The dialect owning `a` (else `b`), else that of the enclosing function,
  // else a fallback that raises generic errors. Never null.
  Dialect* DialectFor(const Any& a, const Any* b = nullptr) const;
  // The dialect owning namespace root `name`, else the enclosing function's,
  // else the fallback. Never null.
  Dialect* DialectForNamespace(const std::string& path) const;

  // Per-evaluator state of a dialect or builder, keyed by its address
  // (created on first use by `make`).
  template <typename T, typename Make>
  T& State(const void* key, Make&& make) {
    auto it = states_.find(key);
    if (it == states_.end()) it = states_.emplace(key, make()).first;
    return static_cast<T&>(*it->second);
  }

 private:
  const SourceFile& src_;
  NameResolver resolver_;
  ScopeStack scopes_;
  BodyFrame* frame_ = nullptr;
  std::vector<std::string> pending_names_;
  std::unordered_map<const void*, std::unique_ptr<DialectState>> states_;

  Any EvalAttribute(const ast::Expr& e);
  Any EvalSubscript(const ast::Expr& e);
  Any EvalCall(const ast::Expr& e);
  Any EvalUnary(const ast::Expr& e);
  Any EvalBinary(const std::string& op, const Any& a, const Any& b, const Pos& pos);
  Any EvalCompare(const ast::Expr& e);
  Any EvalBoolOp(const ast::Expr& e);
  void ExecStmtImpl(const ast::Stmt& s);
  void ExecAssign(const ast::Stmt& s);
  void AssignTarget(const ast::Expr& target, const Any& value, const Pos& value_pos);
  void ExecAugAssign(const ast::Stmt& s);

 public:
  // Python arithmetic on two numbers (both IsNumber); used for `x op= y` too.
  Any PythonBinary(const std::string& op, const Any& a, const Any& b, const Pos& pos) const;
  // `a op b` for any operands: Python semantics on Python values, else the
  // dialect owning an operand.
  Any Binary(const std::string& op, const Any& a, const Any& b, const Pos& pos) { return EvalBinary(op, a, b, pos); }
};

template <typename F>
auto Evaluator::Guard(const Pos& pos, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ::tessera::Error& e) {
    if (e.kind() == "ParseError" || e.kind() == "RecursionError") throw;  // deep input: retried on a large stack
    src_.Error(pos, e.what());
  } catch (const std::exception& e) {
    src_.Error(pos, e.what());
  }
}

}  // namespace script
}  // namespace tessera
