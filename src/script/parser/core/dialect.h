// The interface between the dialect-neutral evaluator (evaluator.h) and a
// TVMScript dialect (T.* in parser/tir, I.* in parser/ir, R.* next): a
// Dialect owns a namespace ("T"), the values it creates (PrimExprs,
// buffers...), the meaning of operators, attributes, subscripts and calls on
// them, and the functions its decorator defines (@T.prim_func). Dialects
// register once by namespace name (TESSERA_REGISTER_SCRIPT_DIALECT); the
// evaluator dispatches by namespace for `T.xxx(...)` and by value type for
// everything else. A function body's statements go to a BodyFrame.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/any.h"
#include "script/parser/python_ast.h"

namespace tessera {
namespace script {

class Evaluator;

// A call's evaluated arguments with their positions.
struct CallArgs {
  const ast::Expr* node = nullptr;  // the call (or subscript) expression
  std::string func;                 // canonical callee name, e.g. "T.grid"
  std::vector<Any> args;
  std::vector<Pos> arg_pos;
  std::vector<std::pair<std::string, Any>> kwargs;
  std::vector<Pos> kwarg_pos;
  std::vector<std::string> names;  // assignment targets naming the result
};

// An evaluated decorator: @T.prim_func or @T.prim_func(private=True).
struct Decorator {
  std::string path;  // canonical, e.g. "T.prim_func"
  Pos pos;
  CallArgs call;     // its keyword arguments (func == path; kwarg_pos: the values)
  std::vector<Pos> kwarg_name_pos;  // where each keyword's name is
  // In an ir_module: the function's GlobalVar name when global_var= gave one
  // other than the def's name (empty otherwise); dialects name the function
  // after it (e.g. its default global_symbol).
  std::string global_name;
};

// What the module builder learns about a function before any body is
// built, so that functions can call each other in any order.
struct FunctionSignature {
  std::string dialect;  // namespace of the dialect that builds it
  int num_params = -1;  // -1 when unknown
  Any ret;              // the evaluated return annotation; None when absent
};

// Per-evaluator state of a dialect (e.g. the TIR builder's frames).
class DialectState {
 public:
  virtual ~DialectState() = default;
};

class Dialect {
 public:
  virtual ~Dialect() = default;
  // The namespace this dialect owns: "T", "I", "R".
  virtual std::string name() const = 0;

  // ---- values ----------------------------------------------------------------
  // True for values this dialect created or gives meaning to.
  virtual bool Owns(const Any& v) const { return false; }
  // True for owned values that are symbolic (no Python truth value), e.g.
  // PrimExprs: `not x`, `x and y`, `a if x else b` build IR for them.
  virtual bool IsSymbolic(const Any& v) const { return false; }
  // A short description of an owned value for messages ("buffer").
  virtual std::string TypeName(const Any& v) const;

  // `ns.member(...)`: call.func is the member's canonical path. Also gets
  // un-namespaced builtins (`range`) when this dialect builds the enclosing
  // function, and calls in namespaces no dialect owns (to name them).
  virtual Any CallMember(Evaluator& ev, CallArgs& call);
  // `ns.member[...]` (T.Buffer[(4,), "float32"]).
  virtual Any SubscriptMember(Evaluator& ev, const std::string& path, const ast::Expr& e,
                              std::vector<std::string> names);
  // Operations whose (first) operand this dialect owns; when no dialect
  // owns any operand, the dialect of the enclosing function is asked.
  virtual Any Attribute(Evaluator& ev, const Any& base, const ast::Expr& e);
  virtual Any Subscript(Evaluator& ev, const Any& base, const ast::Expr& e, std::vector<std::string> names);
  virtual Any CallValue(Evaluator& ev, const Any& callee, CallArgs& call);
  virtual Any Unary(Evaluator& ev, const std::string& op, const Any& v, const ast::Expr& e);
  virtual Any Binary(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& pos);
  virtual Any Compare(Evaluator& ev, const std::string& op, const Any& a, const Any& b, const Pos& a_pos,
                      const Pos& b_pos, const Pos& pos);
  virtual Any BoolOp(Evaluator& ev, bool is_and, const std::vector<Any>& values, const Pos& pos);
  virtual Any IfExp(Evaluator& ev, const Any& cond, const ast::Expr& e);
  // A call of another function of the module (cls.f(...)) inside a function
  // of this dialect; `sig` is the callee's declared signature.
  virtual Any CallFunction(Evaluator& ev, const ObjectRef& global_var, const FunctionSignature& sig, CallArgs& call);

  // ---- functions ---------------------------------------------------------------
  // True when `path` (e.g. "T.prim_func") decorates functions of this dialect.
  virtual bool IsFunctionDecorator(const std::string& path) const { return false; }
  // Reads a function's signature without building its body.
  virtual FunctionSignature DeclareFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec);
  // Builds the function (a BaseFunc). `global_name` is its name in the module.
  virtual ObjectRef BuildFunction(Evaluator& ev, const ast::Stmt& def, const Decorator& dec);
};

// What the statements of a function body mean: implemented by the dialect
// that builds the function, installed on the evaluator while it runs the
// body. The defaults raise "... is not supported in <Where()>".
class BodyFrame {
 public:
  virtual ~BodyFrame() = default;
  virtual Dialect* dialect() = 0;
  // "a T.prim_func body", for messages.
  virtual std::string Where() const = 0;

  // An expression statement whose value is not None.
  virtual void ExprStmt(Evaluator& ev, const ast::Stmt& s, const Any& value);
  // `name = value` (the default binds the name).
  virtual void AssignName(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos& value_pos);
  // `base[...] = value`.
  virtual void AssignSubscript(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos& value_pos);
  virtual void AnnAssign(Evaluator& ev, const ast::Stmt& s);
  // Augmented assignments the evaluator cannot do on Python values.
  virtual void AugAssign(Evaluator& ev, const ast::Stmt& s);
  virtual void For(Evaluator& ev, const ast::Stmt& s, const Any& iter);
  virtual void With(Evaluator& ev, const ast::Stmt& s);
  virtual void If(Evaluator& ev, const ast::Stmt& s, const Any& cond);
  virtual void While(Evaluator& ev, const ast::Stmt& s);
  virtual void Return(Evaluator& ev, const ast::Stmt& s);
  virtual void Assert(Evaluator& ev, const ast::Stmt& s);
  virtual void LoopControl(Evaluator& ev, const ast::Stmt& s);  // break / continue
  virtual void Definition(Evaluator& ev, const ast::Stmt& s);   // nested def / class
  virtual void Import(Evaluator& ev, const ast::Stmt& s);
};

// Dialects by namespace name. Registration happens at static-init time;
// lookups afterwards are read-only.
class DialectRegistry {
 public:
  static DialectRegistry& Global();
  // Registers `d` under d->name(); a second dialect for one name is a bug.
  Dialect* Register(std::unique_ptr<Dialect> d);
  // The dialect owning namespace root `name` ("T"), or nullptr.
  Dialect* Find(const std::string& name) const;
  // The dialect whose decorator is `path`, or nullptr.
  Dialect* FindByDecorator(const std::string& path) const;
  // The first dialect owning `v`, or nullptr.
  Dialect* Owner(const Any& v) const;
  const std::vector<std::unique_ptr<Dialect>>& dialects() const { return dialects_; }

 private:
  std::vector<std::unique_ptr<Dialect>> dialects_;
};

#define TESSERA_SCRIPT_DIALECT_CAT2(a, b) a##b
#define TESSERA_SCRIPT_DIALECT_CAT(a, b) TESSERA_SCRIPT_DIALECT_CAT2(a, b)
// TESSERA_REGISTER_SCRIPT_DIALECT(TIRDialect): one instance, registered by name.
#define TESSERA_REGISTER_SCRIPT_DIALECT(Type)                                              \
  [[maybe_unused]] static ::tessera::script::Dialect* TESSERA_SCRIPT_DIALECT_CAT(          \
      __tessera_script_dialect_, __COUNTER__) =                                            \
      ::tessera::script::DialectRegistry::Global().Register(std::make_unique<Type>())

}  // namespace script
}  // namespace tessera
