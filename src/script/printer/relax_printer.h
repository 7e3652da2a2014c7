// RelaxPrinter: Relax functions, bindings, expressions and struct info as
// the TVMScript TVM v0.18 prints (`@R.function`, `with R.dataflow():`,
// `lv: R.Tensor((1, n), dtype="float32") = R.add(x, y)`, `R.call_tir(cls.f,
// (x,), out_sinfo=...)`, metadata["relax.expr.Constant"][i] for tensors).
// A dialect printer on the shared core (PrinterContext: names, span marks,
// metadata); PrimExprs (shapes) print through TIRPrinter in the same frames.
// Split by concept: relax_expr_printer.cc (expressions, struct info,
// constants), relax_function_printer.cc (functions, blocks, bindings, If,
// the function-printer registration and Relax fragments).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "relax/expr.h"
#include "script/printer/printer_context.h"

namespace tessera {
namespace script {
namespace printer {

class RelaxPrinter {
 public:
  explicit RelaxPrinter(PrinterContext* ctx);

  // Appends `@R.function ... def name(...):` and its body at indentation
  // level `indent` to `out`.
  void PrintFunction(const relax::Function& func, const std::string& name, int indent, std::string* out);
  // A Relax expression, binding, block or struct info outside a function:
  // the symbolic variables it uses are defined first (`n = T.int64()`).
  std::string PrintFragment(const ObjectRef& node);

 private:
  // ---- expressions and struct info (relax_expr_printer.cc) ----------------
  std::string PrintExpr(const relax::Expr& e);
  std::string PrintExprImpl(const relax::Expr& e);
  std::string PrintCall(const relax::CallNode* call);
  // The callee argument of call_tir/call_dps_packed/call_pure_packed: an
  // ExternFunc prints as its name in quotes.
  std::string PrintCallee(const relax::Expr& e);
  std::string PrintAttrKwargs(const ObjectRef& attrs, const relax::CallNode* call);
  std::string PrintConstant(const relax::ConstantNode* c);
  std::string PrintStructInfo(const relax::StructInfo& s);
  // A shape dimension: in a function's signature, a dimension over a
  // variable the signature defines prints as a string ("n").
  std::string PrintShapeDim(const PrimExpr& e);
  // A PrimExpr with int64 literals bare (Relax's default integer type).
  std::string PrintPrim(const PrimExpr& e);
  // Defines (a `n = T.int64()` line in the function prelude) the symbolic
  // variables of `e` not yet named.
  void DefineSymbolicVars(const PrimExpr& e);
  std::string VarUse(const relax::VarNode* v);
  std::string GlobalVarUse(const GlobalVarNode* gv);
  std::string R(const std::string& name) const { return "R." + name; }

  // ---- statements (relax_function_printer.cc) -----------------------------
  void Line(const std::string& text);
  // The blocks of `seq`, then `return body` (use_ret), or `target: ann = body`
  // when `target` is given (If branches).
  void PrintSeqExpr(const relax::SeqExpr& seq, bool use_ret, const std::string* target, const std::string* ann);
  void PrintBlock(const relax::BindingBlock& block);
  void PrintBinding(const relax::Binding& binding);
  // The annotation of a binding's var (empty when TVM leaves it out: a
  // call_tir/call_dps_packed whose var has exactly the declared out_sinfo).
  std::string BindingAnnotation(const relax::Var& var, const relax::Expr& value);
  std::string DefineVar(const relax::Var& var);
  std::string Mark(const ObjectRef& node, const std::string& text) { return ctx_->marks.Wrap(node, text); }

  PrinterContext* ctx_;
  const PrinterConfig& cfg_;
  NameTable& names_;
  std::string* out_ = nullptr;  // statements go here
  int indent_ = 0;
  // Lines printed at the top of the function body (symbolic variable
  // definitions, `cls = Module`), in the order they are first needed.
  std::string prelude_;
  int prelude_indent_ = 0;
  size_t func_scope_ = 0;          // NameTable scope of the function
  bool in_signature_ = false;      // printing parameters / return annotation
  bool cls_defined_ = false;       // `cls = Module` already in the prelude
  std::unordered_set<const Object*> signature_vars_;  // symbolic vars the signature defines
};

}  // namespace printer
}  // namespace script
}  // namespace tessera
