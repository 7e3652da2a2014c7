// The Relax dialect's builder: what R.* values, statements and calls mean
// while the evaluator (core/evaluator.h) runs an `@R.function`. It is the
// BodyFrame of a Relax function (assignments emit bindings through the
// Relax BlockBuilder, which normalizes and infers struct info; `with
// R.dataflow():` opens a dataflow block whose R.output names escape it;
// `if` on a tensor builds a relax.If; `return` ends the function), turns
// annotations into StructInfo (strings in a signature define symbolic
// variables), and holds the state of the function being built. One per
// evaluator (DialectState); reached through RelaxDialect (relax_dialect.cc);
// the R.* table is in builtins.cc. Every user mistake is a ParseError at the
// offending expression, naming it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "relax/block_builder.h"
#include "relax/expr.h"
#include "script/parser/core/evaluator.h"

namespace tessera {
namespace script {

// R.match_cast(value, sinfo): a binding request, emitted when assigned.
class MatchCastValueObj : public Object {
 public:
  relax::Expr value;
  relax::StructInfo struct_info;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(MatchCastValueObj, Object, "script.RelaxMatchCast");
};

// R.dataflow(): the context of a `with` statement.
class DataflowScopeObj : public Object {
 public:
  TESSERA_DECLARE_FINAL_OBJECT_INFO(DataflowScopeObj, Object, "script.RelaxDataflow");
};

class RelaxBuilder;
// A constant tensor from a Python number, bool or nested list (R.const);
// dtype defaults as TVM's: int -> int32, float -> float32, bool -> bool.
relax::Constant MakeConstant(RelaxBuilder& b, const Any& value, std::optional<DataType> dtype, const Pos& pos);

class RelaxBuilder : public DialectState, public BodyFrame {
 public:
  RelaxBuilder(Evaluator& ev, Dialect* dialect) : ev_(ev), dialect_(dialect) {}
  static RelaxBuilder& Of(Evaluator& ev);

  Evaluator& ev() { return ev_; }
  [[noreturn]] void Error(const Pos& pos, const std::string& msg) const { ev_.Error(pos, msg); }
  template <typename F>
  auto Guard(const Pos& pos, F&& f) -> decltype(f()) {
    return ev_.Guard(pos, std::forward<F>(f));
  }

  // ---- functions --------------------------------------------------------------------
  FunctionSignature Declare(const ast::Stmt& def, const Decorator& dec);
  relax::Function BuildFunction(const ast::Stmt& def, const Decorator& dec);
  bool InFunction() const { return func_ != nullptr; }

  // ---- conversions (used by the builtins) ---------------------------------------------
  // A value as a Relax expression: Relax nodes, Python tuples (relax.Tuple),
  // numbers and bools (R.const), strings (R.str), PrimExprs (R.prim_value).
  relax::Expr ToExpr(const Any& v, const Pos& pos, const std::string& what = "an argument");
  // An annotation: R.Tensor(...), R.Tensor, R.Object, R.Shape(...), ...
  relax::StructInfo ToStructInfo(const Any& v, const Pos& pos);
  // A shape dimension: an int (int64), a PrimExpr, or a string naming a
  // symbolic variable (defined at its first use in a signature).
  PrimExpr ToDim(const Any& v, const Pos& pos);
  PrimExpr ToPrimExpr(const Any& v, const Pos& pos, const std::string& what);
  PrimExpr StringDim(const std::string& text, const Pos& pos);
  DataType ToDType(const Any& v, const Pos& pos);
  std::string ToStr(const Any& v, const Pos& pos, const std::string& what) { return ev_.ToStr(v, pos, what); }
  std::string TypeName(const Any& v) const { return ev_.TypeName(v); }
  // Sets the function attributes (R.func_attr).
  void AddFuncAttrs(const Map<String, Any>& attrs, const Pos& pos);
  // R.output(...): checks and records the outputs of the current dataflow block.
  void Output(const CallArgs& call);
  // Normalizes `e` in the current block (nested calls are bound first).
  relax::Expr Normalize(const relax::Expr& e, const Pos& pos);

  // ---- expressions (RelaxDialect forwards here) --------------------------------------------
  Any CallBuiltin(CallArgs& call);  // builtins.cc
  Any Attribute(const Any& base, const ast::Expr& e);
  Any Subscript(const Any& base, const ast::Expr& e);
  Any CallValue(const Any& callee, CallArgs& call);
  Any CallFunction(const GlobalVar& gv, const FunctionSignature& sig, CallArgs& call);
  // A Python operator `symbol` on Relax values: a call of the registered
  // operator relax.<op_name> (ParseError naming both when there is none).
  Any Operator(const std::string& op_name, const std::string& symbol, const std::vector<Any>& operands, const Pos& pos);

  // ---- statements (BodyFrame) --------------------------------------------------------------
  Dialect* dialect() override { return dialect_; }
  std::string Where() const override { return "an R.function body"; }
  void ExprStmt(Evaluator& ev, const ast::Stmt& s, const Any& value) override;
  void AssignName(Evaluator& ev, const ast::Expr& target, const Any& value, const Pos& value_pos) override;
  void AnnAssign(Evaluator& ev, const ast::Stmt& s) override;
  void With(Evaluator& ev, const ast::Stmt& s) override;
  void If(Evaluator& ev, const ast::Stmt& s, const Any& cond) override;
  void Return(Evaluator& ev, const ast::Stmt& s) override;
  // A nested `@R.function def f(...)`: a local function (a closure over the
  // enclosing function's variables) bound to the variable `f`.
  void Definition(Evaluator& ev, const ast::Stmt& s) override;

 private:
  struct FuncFrame {
    std::string name;
    relax::BlockBuilder bb;
    Map<String, Any> attrs;
    std::optional<relax::Expr> ret;  // set by `return`
    std::vector<relax::BindingBlock> blocks;  // finished blocks of the current scope
    bool in_dataflow = false;
    // Assignment targets whose variable leaves the dataflow block (R.output).
    std::unordered_set<const ast::Expr*> output_targets;
    std::unordered_set<const ast::Stmt*> output_defs;  // nested `def`s whose function R.output names
    std::vector<relax::Var> block_vars;  // variables bound in the current dataflow block
    const ast::Stmt* output_stmt = nullptr;
    int if_depth = 0;
  };

  Evaluator& ev_;
  Dialect* dialect_;
  FuncFrame* func_ = nullptr;
  // Symbolic variables named by strings in annotations, per function.
  std::unordered_map<std::string, tir::Var> sym_vars_;
  bool in_signature_ = false;

  relax::Var Emit(const std::string& name, const Any& value, const std::optional<relax::StructInfo>& ann,
                  const ast::Expr& target, const Pos& value_pos);
  // Runs the statements of a block body (a function, a branch).
  void RunBody(const std::vector<ast::StmtPtr>& body);
  // Closes the current binding block of the function into `blocks`.
  void FinishBlock();
  // Evaluates `m, n = T.int64(), T.int64()` statements at the top of the
  // body before the signature (TVM's prelude rule).
  void DefinePreludeVars(const ast::Stmt& def);
  relax::StructInfo SignatureStructInfo(const ast::Expr& annotation);
  // The branch of an If: its bindings and the value assigned last to the If's variable.
  relax::Expr BuildBranch(const std::vector<ast::StmtPtr>& body, const Pos& pos, std::string* var_name,
                          std::optional<relax::StructInfo>* ann);
};

}  // namespace script
}  // namespace tessera
