// The TIR dialect's builder: what T.* values, operators and statements mean
// while the evaluator (core/evaluator.h) runs a `@T.prim_func`. It is the
// BodyFrame of a prim_func (for/with/if/while/assignments build TIR
// statements), performs the PrimExpr side of operators, buffer indexing and
// attributes, and holds the frames (function, block, loop) that the T.*
// builtins (builtins.cc) fill in. One per evaluator (DialectState); reached
// through TIRDialect (tir_dialect.cc). Every user mistake becomes a
// ParseError pointing at the offending expression.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "script/parser/core/evaluator.h"
#include "script/parser/tir/tir_values.h"
#include "tir/function.h"

namespace tessera {
namespace script {

// A handle variable typed by a PointerType (T.handle("float32", "shared"), T.allocate(..., scope=...)).
inline tir::Var AnnotatedVar(const std::string& name, DataType dtype, ObjectRef type_annotation) {
  auto n = make_object<tir::VarNode>();
  n->name_hint = name;
  n->dtype = dtype;
  n->type_annotation = std::move(type_annotation);
  return tir::Var(ObjectPtr<Object>(std::move(n)));
}

class TIRBuilder : public DialectState, public BodyFrame {
 public:
  TIRBuilder(Evaluator& ev, Dialect* dialect) : ev_(ev), dialect_(dialect) {}
  // The builder of evaluator `ev` (created on first use).
  static TIRBuilder& Of(Evaluator& ev);

  Evaluator& ev() { return ev_; }
  const SourceFile& source() const { return ev_.source(); }
  [[noreturn]] void Error(const Pos& pos, const std::string& msg) const { ev_.Error(pos, msg); }
  template <typename F>
  auto Guard(const Pos& pos, F&& f) -> decltype(f()) {
    return ev_.Guard(pos, std::forward<F>(f));
  }

  // ---- functions ----------------------------------------------------------------
  FunctionSignature Declare(const ast::Stmt& def, const Decorator& dec);
  tir::PrimFunc BuildPrimFunc(const ast::Stmt& def, const Decorator& dec);

  // ---- conversions (used by the builtins) -----------------------------------------
  PrimExpr ToPrimExpr(const Any& v, const Pos& pos, const std::string& what = "an expression");
  // The index `item` of dimension `dim` of `buffer`: an integer expression; a
  // constant must fit the dtype of that dimension's extent (t[4294967297] of
  // an int32-shaped buffer is an error at the literal, never a wrap).
  PrimExpr ToIndex(const ast::Expr& item, const tir::Buffer& buffer, size_t dim);
  int64_t ToInt(const Any& v, const Pos& pos, const std::string& what) { return ev_.ToInt(v, pos, what); }
  std::string ToStr(const Any& v, const Pos& pos, const std::string& what) {
    if (const auto* s = v.as<tir::StringImmNode>()) return s->value;
    return ev_.ToStr(v, pos, what);
  }
  bool ToBool(const Any& v, const Pos& pos, const std::string& what) { return ev_.ToBool(v, pos, what); }
  DataType ToDType(const Any& v, const Pos& pos);
  // The result dtype of a call (dtype= of an intrinsic): also "" for void, as in TVM.
  DataType ToCallDType(const Any& v, const Pos& pos) {
    if (const auto* s = v.as<StringObj>(); s && s->data.empty()) return DataType::Void();
    return ToDType(v, pos);
  }
  Array<PrimExpr> ToShape(const Any& v, const Pos& pos);
  // Converts a script value to something storable in attributes/annotations.
  Any ToAttrValue(const Any& v, const Pos& pos);
  tir::BufferRegion ToBufferRegion(const Any& v, const Pos& pos);
  std::string TypeName(const Any& v) const { return ev_.TypeName(v); }

  // ---- expressions (TIRDialect forwards here) ------------------------------------------
  Any CallBuiltin(CallArgs& call);  // builtins.cc
  Any CallMethod(const BoundMethodObj* m, CallArgs& call);  // builtins.cc
  // Whether `path` (T.grid, T.axis, T.float32, T.exp...) names something of
  // the T namespace; binding an unknown one to a name is an error.
  static bool IsKnownName(const std::string& path);  // builtins.cc
  Any SubscriptNamespace(const std::string& path, const ast::Expr& e, std::vector<std::string> names);
  Any Attribute(const Any& base, const ast::Expr& e);
  Any Subscript(const Any& base, const ast::Expr& e);
  Any Unary(const std::string& op, const Any& v, const ast::Expr& e);
  Any Binary(const std::string& op, const Any& a, const Any& b, const Pos& pos);
  Any Compare(const std::string& op, const Any& a, const Any& b, const Pos& a_pos, const Pos& b_pos, const Pos& pos);
  Any BoolOp(bool is_and, const std::vector<Any>& values, const Pos& pos);
  Any IfExp(const Any& cond, const ast::Expr& e);
  Any CallFunction(const GlobalVar& gv, const FunctionSignature& sig, CallArgs& call);

  // ---- statements (BodyFrame) --------------------------------------------------------
  Dialect* dialect() override { return dialect_; }
  std::string Where() const override { return "a T.prim_func body"; }
  void ExprStmt(Evaluator& ev, const ast::Stmt& s, const Any& value) override;
  void AssignName(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos& value_pos) override;
  void AssignSubscript(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos& value_pos) override;
  void AnnAssign(Evaluator& ev, const ast::Stmt& s) override;
  void AugAssign(Evaluator& ev, const ast::Stmt& s) override;
  void For(Evaluator& ev, const ast::Stmt& s, const Any& iter) override;
  void With(Evaluator& ev, const ast::Stmt& s) override;
  void If(Evaluator& ev, const ast::Stmt& s, const Any& cond) override;
  void While(Evaluator& ev, const ast::Stmt& s) override;
  void LoopControl(Evaluator& ev, const ast::Stmt& s) override;

  // ---- frames the builtins may touch ---------------------------------------------------
  struct BlockFrame {
    std::string name;
    Pos pos;
    Array<tir::IterVar> iter_vars;
    Array<PrimExpr> iter_values;
    std::optional<Array<tir::BufferRegion>> reads, writes;
    std::optional<PrimExpr> predicate;
    std::optional<Map<String, Any>> annotations;
    Array<tir::Buffer> alloc_buffers;
    Array<tir::MatchBufferRegion> match_buffers;
    std::optional<tir::Stmt> init;
  };
  struct FuncFrame {
    Array<tir::Var> params;
    Map<tir::Var, tir::Buffer> buffer_map;
    Map<String, Any> attrs;
    Array<tir::Buffer> root_allocs;
    bool is_private = false;
    bool in_params = false;
  };
  // kNone: outside any prim_func (e.g. a T.* call in I.module_attrs).
  enum class FrameKind { kNone, kFunc, kBlock, kLoop, kInit, kIf, kWhile, kLet };
  FrameKind innermost_frame() const { return frames_.empty() ? FrameKind::kNone : frames_.back(); }
  BlockFrame* current_block() { return blocks_.empty() ? nullptr : blocks_.back(); }
  FuncFrame* current_func() { return func_; }
  std::optional<Range> LoopDomain(const tir::Var& v) const;
  // Marks a variable as freshly declared (T.int64(), T.axis.*): binding it to
  // a name names it instead of creating a LetStmt.
  void MarkFresh(const ObjectRef& v) { fresh_.insert(v.get()); }
  // Thread variables of T.env_thread (their tag), and the IterVar each is launched with
  // (T.launch_thread); one IterVar per variable, however often it is launched.
  std::unordered_map<const Object*, std::string>& env_thread_tags() { return env_thread_tags_; }
  std::unordered_map<const Object*, tir::IterVar>& launched_threads() { return launched_threads_; }
  // A buffer created by a declaration builtin (T.Buffer, T.alloc_buffer...).
  tir::Buffer MakeBuffer(const std::string& name, Array<PrimExpr> shape, DataType dtype, Array<PrimExpr> strides,
                         std::optional<PrimExpr> elem_offset, std::string scope, int align, int offset_factor,
                         const Pos& pos);

 private:
  Evaluator& ev_;
  Dialect* dialect_;
  std::vector<FrameKind> frames_;
  std::vector<BlockFrame*> blocks_;
  FuncFrame* func_ = nullptr;
  std::unordered_map<const Object*, Range> loop_doms_;
  std::unordered_set<const Object*> fresh_;
  std::unordered_map<const Object*, std::string> env_thread_tags_;
  std::unordered_map<const Object*, tir::IterVar> launched_threads_;
  int num_blocks_ = 0;          // blocks built in the current function
  bool any_inferred_ = false;   // some block needs its regions inferred

  // The statement list being built and the let-binding the current
  // statement introduced (its body is the rest of the list).
  // `wrap`, when set, makes the statement instead of a LetStmt (x = T.allocate(...)).
  struct LetBinding {
    tir::Var var;
    PrimExpr value;
    Pos pos;
    std::function<tir::Stmt(tir::Stmt)> wrap;
  };
  std::vector<tir::Stmt>* out_ = nullptr;
  std::optional<LetBinding> pending_let_;

  struct FrameGuard;
  void Emit(tir::Stmt s);
  void SetLet(LetBinding let, const Pos& pos);
  tir::Stmt VisitBody(const std::vector<ast::StmtPtr>& body);
  tir::Stmt MakeStore(const ast::Expr& target, const Any& buffer_value, const Any& value, const Pos& value_pos);
  tir::Stmt BuildBlock(const ast::Stmt& s, const CallArgs& call);
  // Binds the name of x = T.allocate(...) / T.decl_buffer(...) and returns
  // the statement around a body.
  std::function<tir::Stmt(tir::Stmt)> BindAlloc(const AllocValueObj& alloc, const std::string& name, const Pos& pos);
  void WithAlloc(const ast::Stmt& s, const Any& value);
  void WithScope(const ast::Stmt& s, const ScopeStmtValueObj& scope);
  void BindParam(const ast::Arg& arg);
};

}  // namespace script
}  // namespace tessera
