// The TIR builder: walks the Python-subset AST of a `@T.prim_func` (or of
// an `@I.ir_module` class holding several) and builds PrimFuncs / an
// IRModule through the checked TIR constructors, resolving free names with
// a caller-supplied resolver. Third stage of the script parser, after the
// tokenizer and python_parser. Every user mistake becomes a ParseError
// pointing at the offending expression.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "runtime/packed_func.h"
#include "script/parser/python_ast.h"
#include "script/parser/script_value.h"
#include "tir/function.h"

namespace tessera {
namespace script {

// Looks up a free name: returns its value, or nullopt when it is undefined.
using NameResolver = std::function<std::optional<Any>(const std::string& name)>;

// Arguments of a builtin call, evaluated, with their positions.
struct CallArgs {
  const ast::Expr* node = nullptr;  // the call expression
  std::string func;                 // canonical name, e.g. "T.grid"
  std::vector<Any> args;
  std::vector<Pos> arg_pos;
  std::vector<std::pair<std::string, Any>> kwargs;
  std::vector<Pos> kwarg_pos;
  std::vector<std::string> names;  // assignment targets naming the result
};

class TIRBuilder {
 public:
  TIRBuilder(const SourceFile& source, NameResolver resolver);

  // A `def` decorated with T.prim_func (is_private from T.prim_func(private=True)).
  tir::PrimFunc BuildPrimFunc(const ast::Stmt& def, bool is_private);
  // A class decorated with I.ir_module.
  IRModule BuildModule(const ast::Stmt& cls);
  // A whole file: one prim_func or one ir_module (imports and comments allowed).
  ObjectRef BuildFile(const ast::Module& module);

  // ---- used by the builtin handlers (tir_builtins.cc) ----------------------
  const SourceFile& source() const { return src_; }
  [[noreturn]] void Error(const Pos& pos, const std::string& msg) const { src_.Error(pos, msg); }
  PrimExpr ToPrimExpr(const Any& v, const Pos& pos, const std::string& what = "an expression");
  int64_t ToInt(const Any& v, const Pos& pos, const std::string& what);
  std::string ToStr(const Any& v, const Pos& pos, const std::string& what);
  DataType ToDType(const Any& v, const Pos& pos);
  bool ToBool(const Any& v, const Pos& pos, const std::string& what);
  Array<PrimExpr> ToShape(const Any& v, const Pos& pos);
  // Converts a script value to something storable in attributes/annotations.
  Any ToAttrValue(const Any& v, const Pos& pos);
  tir::BufferRegion ToBufferRegion(const Any& v, const Pos& pos);
  // Runs `f`, turning any non-ParseError error into a ParseError at `pos`.
  template <typename F>
  auto Guard(const Pos& pos, F&& f) -> decltype(f());

  // Frames the builtins may touch.
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
  enum class FrameKind { kFunc, kBlock, kLoop, kInit, kIf, kWhile, kLet };
  FrameKind innermost_frame() const { return frames_.back(); }
  BlockFrame* current_block() { return blocks_.empty() ? nullptr : blocks_.back(); }
  FuncFrame* current_func() { return func_; }
  std::optional<Range> LoopDomain(const tir::Var& v) const;
  // Marks a variable as freshly declared (T.int64(), T.axis.*): binding it to
  // a name names it instead of creating a LetStmt.
  void MarkFresh(const ObjectRef& v) { fresh_.insert(v.get()); }
  // A buffer created by a declaration builtin (T.Buffer, T.alloc_buffer...).
  tir::Buffer MakeBuffer(const std::string& name, Array<PrimExpr> shape, DataType dtype, Array<PrimExpr> strides,
                         std::optional<PrimExpr> elem_offset, std::string scope, int align, int offset_factor,
                         const Pos& pos);

 private:
  const SourceFile& src_;
  NameResolver resolver_;
  std::vector<std::unordered_map<std::string, Any>> scopes_;
  std::vector<FrameKind> frames_;
  std::vector<BlockFrame*> blocks_;
  FuncFrame* func_ = nullptr;
  std::unordered_map<const Object*, Range> loop_doms_;
  std::unordered_set<const Object*> fresh_;
  std::vector<std::string> pending_names_;
  int num_blocks_ = 0;          // blocks built in the current function
  bool any_inferred_ = false;   // some block needs its regions inferred

  struct ScopeGuard;
  struct FrameGuard;

  // Names.
  std::optional<Any> Lookup(const std::string& name);
  void Bind(const std::string& name, Any value) { scopes_.back()[name] = std::move(value); }

  // Expressions.
  Any Eval(const ast::Expr& e);
  Any EvalNamed(const ast::Expr& e, std::vector<std::string> names);
  Any EvalAttribute(const ast::Expr& e);
  Any EvalSubscript(const ast::Expr& e);
  Any EvalCall(const ast::Expr& e);
  Any EvalUnary(const ast::Expr& e);
  Any EvalBinary(const std::string& op, const Any& a, const Any& b, const Pos& pos);
  Any EvalCompare(const ast::Expr& e);
  Any EvalBoolOp(const ast::Expr& e);
  Any CallBuiltin(CallArgs& call);
  Any CallMethod(const BoundMethodObj* m, CallArgs& call);

  // Statements: appends to `out`; a let-binding statement returns the
  // (var, value) whose body is the rest of the statement list.
  struct LetBinding {
    tir::Var var;
    PrimExpr value;
    Pos pos;
  };
  tir::Stmt VisitBody(const std::vector<ast::StmtPtr>& body);
  std::optional<LetBinding> VisitStmt(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  std::optional<LetBinding> VisitStmtImpl(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  std::optional<LetBinding> VisitAssign(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  std::optional<LetBinding> BindTarget(const ast::Expr& target, const Any& value, const Pos& value_pos,
                                       std::vector<tir::Stmt>* out);
  tir::Stmt MakeStore(const ast::Expr& target, const Any& buffer_value, const Any& value, const Pos& value_pos);
  void VisitFor(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  void VisitWith(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  void VisitIf(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  void VisitExprStmt(const ast::Stmt& s, std::vector<tir::Stmt>* out);
  tir::Stmt BuildBlock(const ast::Stmt& s, const CallArgs& call);

  // Functions and modules.
  struct DecoratorInfo {
    std::string path;
    bool is_private = false;
    Pos pos;
  };
  DecoratorInfo EvalDecorator(const ast::Expr& e);
  void BindParam(const ast::Arg& arg);
};

template <typename F>
auto TIRBuilder::Guard(const Pos& pos, F&& f) -> decltype(f()) {
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
