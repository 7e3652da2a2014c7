// CodeGenC: translates lowered TIR (no blocks, 1-D buffers) into C source
// (GNU C11: statement expressions carry the checks inside expressions). It
// knows nothing of how a function is entered or of a runtime: the CPU host
// part (codegen_c_host.h: packed entries, parallel launch, workspaces,
// errors) and a future CUDA generator subclass it and override the hooks
// below; types (float16, bfloat16) print through ValueType/StorageType, and
// intrinsics lower through the op attribute "<target kind>.FLowerIntrinsic"
// (intrin_rule_c.cc). Vector expressions (from vectorized loops) are
// scalarized: a vector store becomes a loop over its lanes, which the C
// compiler vectorizes again. Codegen layer.
#pragma once

#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "target/target.h"
#include "tir/functor.h"

namespace tessera {
namespace codegen {

class CodeGenC : public tir::ExprFunctor<std::string(const PrimExpr&)>,
                 public tir::StmtFunctor<void(const tir::Stmt&)> {
 public:
  // Reads from `target` its kind (naming the intrinsic lowering attribute)
  // and -bound-check (every scalar buffer access is checked; an
  // out-of-bounds access raises through RaiseStmt).
  explicit CodeGenC(const Target& target);
  virtual ~CodeGenC() = default;

  // The translation unit: the prelude, then every declaration and function
  // emitted so far, in order.
  std::string Finish();

  using tir::ExprFunctor<std::string(const PrimExpr&)>::VisitExpr;
  using tir::StmtFunctor<void(const tir::Stmt&)>::VisitStmt;

  std::string VisitExpr_(const tir::VarNode* op) override;
  std::string VisitExpr_(const IntImmNode* op) override;
  std::string VisitExpr_(const FloatImmNode* op) override;
  std::string VisitExpr_(const tir::StringImmNode* op) override;
  std::string VisitExpr_(const tir::CastNode* op) override;
  std::string VisitExpr_(const tir::AddNode* op) override;
  std::string VisitExpr_(const tir::SubNode* op) override;
  std::string VisitExpr_(const tir::MulNode* op) override;
  std::string VisitExpr_(const tir::DivNode* op) override;
  std::string VisitExpr_(const tir::ModNode* op) override;
  std::string VisitExpr_(const tir::FloorDivNode* op) override;
  std::string VisitExpr_(const tir::FloorModNode* op) override;
  std::string VisitExpr_(const tir::MinNode* op) override;
  std::string VisitExpr_(const tir::MaxNode* op) override;
  std::string VisitExpr_(const tir::EQNode* op) override;
  std::string VisitExpr_(const tir::NENode* op) override;
  std::string VisitExpr_(const tir::LTNode* op) override;
  std::string VisitExpr_(const tir::LENode* op) override;
  std::string VisitExpr_(const tir::GTNode* op) override;
  std::string VisitExpr_(const tir::GENode* op) override;
  std::string VisitExpr_(const tir::AndNode* op) override;
  std::string VisitExpr_(const tir::OrNode* op) override;
  std::string VisitExpr_(const tir::NotNode* op) override;
  std::string VisitExpr_(const tir::SelectNode* op) override;
  std::string VisitExpr_(const tir::LetNode* op) override;
  std::string VisitExpr_(const tir::RampNode* op) override;
  std::string VisitExpr_(const tir::BroadcastNode* op) override;
  std::string VisitExpr_(const tir::CallNode* op) override;
  std::string VisitExpr_(const tir::BufferLoadNode* op) override;
  std::string VisitExprDefault_(const Object* op) override;

  void VisitStmt_(const tir::BufferStoreNode* op) override;
  void VisitStmt_(const tir::ForNode* op) override;
  void VisitStmt_(const tir::IfThenElseNode* op) override;
  void VisitStmt_(const tir::SeqStmtNode* op) override;
  void VisitStmt_(const tir::EvaluateNode* op) override;
  void VisitStmt_(const tir::LetStmtNode* op) override;
  void VisitStmt_(const tir::AttrStmtNode* op) override;
  void VisitStmt_(const tir::AllocateNode* op) override;
  void VisitStmt_(const tir::DeclBufferNode* op) override;
  void VisitStmt_(const tir::WhileNode* op) override;
  void VisitStmtDefault_(const Object* op) override;

 protected:
  struct BufferInfo {
    std::string name;  // the C pointer variable
    DataType dtype;    // element dtype (scalar)
  };

  // ---- hooks for target backends -----------------------------------------
  // Headers and helper functions at the top of the translation unit.
  virtual void PrintPrelude(std::ostream& os);
  // The C type of a value of `t` (scalar) and of a buffer element in memory.
  virtual std::string ValueType(DataType t);
  virtual std::string StorageType(DataType t);
  // A loop marked parallel with more than one iteration (refused by default).
  virtual void EmitParallelFor(const tir::ForNode* op);
  // A loop bound to a GPU thread axis (refused unless a device backend maps it).
  virtual void EmitThreadBinding(const tir::ForNode* op);
  // Heap workspace: an expression allocating `bytes` (int64), and a statement freeing `ptr`.
  virtual std::string WorkspaceAlloc(const std::string& bytes);
  virtual std::string WorkspaceFree(const std::string& ptr);
  // A statement ending the current function with a user-facing error.
  virtual std::string RaiseStmt(const std::string& message);
  // A statement ending the current function with "IndexError: <what>: index
  // <index> is out of bounds for size <extent>" (index, extent: C int64 expressions).
  virtual std::string RaiseIndexStmt(const std::string& what, const std::string& index, const std::string& extent);
  // Emitted at the end of every while loop's body (no-op by default).
  virtual void EmitWhileBackEdgeCheck() {}

  // ---- helpers for backends ------------------------------------------------
  void Line(const std::string& text);  // one indented line of the current function
  std::ostream& Stream() { return *stream_; }
  // A fresh C identifier based on `hint` (unique in the translation unit's function being emitted).
  std::string FreshName(const std::string& hint);
  // Binds `var` to a fresh C name and returns it.
  std::string BindVar(const tir::Var& var);
  std::string LookupVar(const tir::VarNode* var);
  BufferInfo LookupBuffer(const tir::Buffer& buffer);
  std::string Cast(const std::string& v, DataType from, DataType to);
  // Memory <-> value conversions (bool, bfloat16); virtual for device backends.
  virtual std::string FromStorage(const std::string& v, DataType t);
  virtual std::string ToStorage(const std::string& v, DataType t);
  // C string literal of `s`.
  static std::string Quote(const std::string& s);
  // The checks of an integer division or modulo `expr` by zero (and of the
  // type's minimum by -1) on the already evaluated temporaries a and b, as
  // statements (empty when the divisor's bounds exclude the cases).
  std::string DivisorChecks(const PrimExpr& expr, const std::string& a, const std::string& b);
  // Refuses a buffer whose element dtype no access could load (handles, vectors, void).
  void CheckBufferDtype(const std::string& buffer, DataType t);
  [[noreturn]] void Unsupported(const std::string& what);
  // Binary operator `op` on the lane-wise values of a and b.
  std::string Binary(const tir::BinaryOpNode* op, const char* c_op);
  // Binary for arithmetic: the result converted back to types narrower than int.
  std::string Arith(const tir::BinaryOpNode* op, const char* c_op);
  // The flat element index of an access (N-d buffers with axis_separators linearized).
  PrimExpr FlatIndex(const tir::Buffer& buffer, const Array<PrimExpr>& indices);
  // The element pointer expression `buf + index` with the bound check when enabled.
  virtual std::string CheckedIndex(const tir::Buffer& buffer, const std::string& index, DataType index_type);
  // tir.checked_index(index, extent, what, negative_from_end) and
  // tir.checked_value(cond, value, message): run-time checks raising through
  // RaiseIndexStmt / RaiseStmt, as the LLVM backend's.
  std::string EmitCheckedIndex(const tir::CallNode* op);
  std::string EmitCheckedValue(const tir::CallNode* op);
  // Statements that begin and end a function body (reset per function).
  void BeginFunction(const std::string& name);
  // Emits `text` (a complete top-level declaration or function) before the
  // function being emitted.
  void AddDeclaration(const std::string& text);

  std::string target_kind_;
  std::string func_name_;  // the PrimFunc's name, for messages
  bool bound_check_ = false;
  // The lane variable while a vector statement is scalarized, else empty.
  std::string lane_;
  std::unordered_map<const tir::VarNode*, std::string> var_names_;
  std::unordered_map<const tir::VarNode*, BufferInfo> buffers_;
  std::set<std::string> used_names_;
  std::set<std::string> declared_externs_;
  // Heap workspaces live at the current point, outermost first: a raise frees them first.
  std::vector<std::string> live_workspaces_;
  std::ostringstream decls_;      // finished top-level text, in order
  std::ostream* stream_ = nullptr;  // where the current function's statements go
  int indent_ = 0;
};

}  // namespace codegen
}  // namespace tessera
