// TIRPrinter: turns TensorIR (PrimFuncs, statements, expressions, buffers)
// into TVMScript text in the style TVM prints, with the course's sugar
// (T.grid folding, T.axis.remap, the implicit root block, infix operators
// with minimal parentheses). A dialect printer on top of the shared core
// (PrinterContext: names, frames, span marks); its PrimExpr printing
// (PrintPrimExpr) serves every dialect. It registers itself as the function
// printer of "tir.PrimFunc". Implementation is split by concept:
// tir_expr_printer.cc (expressions and values), tir_stmt_printer.cc
// (statements, loops, blocks, buffer declarations), tir_function_printer.cc
// (functions and fragments).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/expr_deep_equal.h"
#include "script/printer/printer_context.h"
#include "tir/function.h"

namespace tessera {
namespace script {
namespace printer {

// Python operator precedence, lowest first, as used for parenthesization.
enum Precedence : int {
  kPrecOr = 10,
  kPrecAnd = 15,
  kPrecNot = 20,
  kPrecCompare = 30,
  kPrecAdd = 40,
  kPrecMul = 50,
  kPrecUnary = 60,
  kPrecAtom = 100,
};

class TIRPrinter {
 public:
  // Prints with the names, frames and span marks of `ctx` (which outlives it).
  explicit TIRPrinter(PrinterContext* ctx);

  // Appends `@T.prim_func\ndef name(...):` and the body at indentation level
  // `indent` to `out`. ctx->in_module selects how GlobalVars print (cls.f).
  void PrintPrimFunc(const tir::PrimFunc& func, const std::string& name, int indent, std::string* out);
  // A PrimExpr in the current frames of the context (for any dialect: a
  // Relax printer prints shapes `(n, 4)` with the TIR's names). Variables
  // not yet named are named in the current frame without a definition line.
  std::string PrintPrimExpr(const PrimExpr& expr) {
    free_scope_ = names_.depth() - 1;
    return PrintExpr(expr);
  }
  // A statement outside a function: definitions of its free variables and
  // buffers, then the statement.
  std::string PrintStmtFragment(const tir::Stmt& stmt);
  // An expression (free variables print by name, without definitions).
  std::string PrintExprFragment(const PrimExpr& expr);
  // Buffers, regions, iteration variables, ranges and other values.
  std::string PrintValueFragment(const Any& value);

 private:
  // ---- expressions and values (tir_expr_printer.cc) ----------------------
  std::string PrintExpr(const PrimExpr& e);                    // without outer parentheses
  std::string PrintExprPrec(const PrimExpr& e, int* prec);     // and its precedence (span-marked)
  std::string PrintExprPrecImpl(const PrimExpr& e, int* prec);
  std::string Operand(const PrimExpr& e, int min_prec);        // parenthesized below min_prec
  std::string PrintBinary(const PrimExpr& a, const PrimExpr& b, const char* op, int op_prec, int* prec);
  std::string PrintCall(const tir::CallNode* op);
  std::string GlobalVarText(const GlobalVarNode* gv) const;  // `cls.f` in a module, `f` elsewhere
  std::string PrintConst(const PrimExpr& e, int* prec);
  std::string PrintVarUse(const tir::Var& v);
  std::string PrintBufferUse(const tir::Buffer& b);
  std::string PrintIndices(const Array<PrimExpr>& indices);
  std::string PrintRegion(const tir::BufferRegion& region);
  std::string PrintValue(const Any& v);  // attribute / annotation values
  std::string PrintDict(const Map<String, Any>& dict);
  std::string PrintTuple(const Array<PrimExpr>& items);
  std::string T(const char* name) const { return cfg_.tir_prefix + "." + name; }
  std::string T(const std::string& name) const { return cfg_.tir_prefix + "." + name; }

  // ---- statements (tir_stmt_printer.cc) -----------------------------------
  void Line(const std::string& text);
  void PrintBody(const tir::Stmt& body);  // the statements of a scope, at the current indentation
  void PrintStmt(const tir::Stmt& stmt, bool concise);  // span-marked
  void PrintStmtImpl(const tir::Stmt& stmt, bool concise);
  // `text` wrapped in the span marks of `node` (unchanged without spans).
  std::string Mark(const ObjectRef& node, const std::string& text) { return ctx_->marks.Wrap(node, text); }
  void PrintFor(const tir::ForNode* op);
  void PrintBlock(const tir::BlockNode* block, const tir::BlockRealizeNode* realize);
  void PrintBlockIterVars(const tir::BlockNode* block, const tir::BlockRealizeNode* realize);
  void PrintLetStmt(const tir::LetStmtNode* op, bool concise);
  void PrintAllocate(const tir::AllocateNode* op, bool concise);
  // Defines (as `name = T.Buffer(..., data=<data>)` lines) the buffers used in
  // `body` over the memory `data` that no statement declares, right after the
  // statement defining `data`: defined with the other free buffers at the top
  // of the function they would name `data` before its definition.
  void DefineAliasBuffers(const tir::Var& data, const tir::Stmt& body);
  void PrintDeclBuffer(const tir::DeclBufferNode* op, bool concise);
  // Emits `n = T.int32()` lines (into the current output) for the variables
  // in the buffer's shape, strides and offset that are not yet defined.
  void DefineBufferVars(const tir::Buffer& buffer);
  // `T.method(extra..., shape, dtype, data=..., scope=..., ...)`; the dtype is
  // left out when float32 unless `always_dtype`.
  std::string BufferDeclCall(const tir::Buffer& buffer, const std::string& method,
                             const std::vector<std::string>& extra_args, bool always_dtype);
  // Defines the buffer's name (in the innermost scope, or in NameTable scope
  // `scope_index`) and claims its data variable when nothing else defines it.
  const std::string& DefineBuffer(const tir::Buffer& buffer, std::optional<size_t> scope_index = std::nullopt);
  // The definition line of a variable (`T.int32()`, `T.handle()`).
  std::string VarCreation(const tir::Var& v);
  // T.handle, or T.handle("float32", "shared") for a handle with a PointerType annotation.
  std::string HandleType(const tir::Var& v);

  // ---- free definitions (tir_function_printer.cc) -------------------------
  // Defines an undefined variable / buffer at the top of the current
  // function (or fragment) and records its definition line.
  const std::string& DefineFreeVar(const tir::Var& v);
  const std::string& DefineFreeBuffer(const tir::Buffer& b);

  PrinterContext* ctx_;
  const PrinterConfig& cfg_;
  NameTable& names_;
  std::string pending_marks_;  // span marks opened by statements, emitted by the next Line()
  std::string* out_ = nullptr;  // where statements go
  int indent_ = 0;              // current indentation level
  std::string free_defs_;       // definitions of free variables and buffers
  int free_defs_indent_ = 0;
  size_t free_scope_ = 0;       // NameTable scope holding free definitions
  // Data variable -> the buffer whose declaration defines it (prints as `A.data`).
  std::unordered_map<const Object*, const tir::BufferNode*> data_var_owner_;
  std::vector<const tir::ForNode*> loops_;  // enclosing loops, outermost first
};

// Expression trees compared with variables by identity (the arith helper).
using arith::ExprDeepEqual;

}  // namespace printer
}  // namespace script
}  // namespace tessera
