// CodeGenLLVM: translates lowered TIR (no blocks, 1-D buffers) into LLVM IR:
// expressions, statements, vectors, buffers and intrinsic calls. It knows
// nothing of how a function is entered or of a runtime: target backends
// subclass it (codegen_cpu.h: packed entries, parallel launch, workspaces;
// a GPU backend next) and override the hooks below. Intrinsics lower through
// the op attribute "<target kind>.FLowerIntrinsic" (intrin_rule_llvm.cc).
// Codegen layer.
#pragma once

#include <functional>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <unordered_map>
#include <vector>

#include "target/target.h"
#include "tir/functor.h"

namespace tessera {
namespace codegen {

class CodeGenLLVM : public tir::ExprFunctor<llvm::Value*(const PrimExpr&)>,
                    public tir::StmtFunctor<void(const tir::Stmt&)> {
 public:
  // Reads from `target`: the kind (which names the intrinsic lowering
  // attribute), -bound-check (every scalar buffer access is checked; an
  // out-of-bounds access raises through EmitRaise) and the -fast-math* flags
  // put on floating-point instructions.
  CodeGenLLVM(llvm::LLVMContext* ctx, llvm::Module* module, const Target& target);
  virtual ~CodeGenLLVM() = default;

  using tir::ExprFunctor<llvm::Value*(const PrimExpr&)>::VisitExpr;
  using tir::StmtFunctor<void(const tir::Stmt&)>::VisitStmt;

  // Expressions.
  llvm::Value* VisitExpr_(const tir::VarNode* op) override;
  llvm::Value* VisitExpr_(const IntImmNode* op) override;
  llvm::Value* VisitExpr_(const FloatImmNode* op) override;
  llvm::Value* VisitExpr_(const tir::StringImmNode* op) override;
  llvm::Value* VisitExpr_(const tir::CastNode* op) override;
  llvm::Value* VisitExpr_(const tir::AddNode* op) override;
  llvm::Value* VisitExpr_(const tir::SubNode* op) override;
  llvm::Value* VisitExpr_(const tir::MulNode* op) override;
  llvm::Value* VisitExpr_(const tir::DivNode* op) override;
  llvm::Value* VisitExpr_(const tir::ModNode* op) override;
  llvm::Value* VisitExpr_(const tir::FloorDivNode* op) override;
  llvm::Value* VisitExpr_(const tir::FloorModNode* op) override;
  llvm::Value* VisitExpr_(const tir::MinNode* op) override;
  llvm::Value* VisitExpr_(const tir::MaxNode* op) override;
  llvm::Value* VisitExpr_(const tir::EQNode* op) override;
  llvm::Value* VisitExpr_(const tir::NENode* op) override;
  llvm::Value* VisitExpr_(const tir::LTNode* op) override;
  llvm::Value* VisitExpr_(const tir::LENode* op) override;
  llvm::Value* VisitExpr_(const tir::GTNode* op) override;
  llvm::Value* VisitExpr_(const tir::GENode* op) override;
  llvm::Value* VisitExpr_(const tir::AndNode* op) override;
  llvm::Value* VisitExpr_(const tir::OrNode* op) override;
  llvm::Value* VisitExpr_(const tir::NotNode* op) override;
  llvm::Value* VisitExpr_(const tir::SelectNode* op) override;
  llvm::Value* VisitExpr_(const tir::LetNode* op) override;
  llvm::Value* VisitExpr_(const tir::RampNode* op) override;
  llvm::Value* VisitExpr_(const tir::BroadcastNode* op) override;
  llvm::Value* VisitExpr_(const tir::CallNode* op) override;
  llvm::Value* VisitExpr_(const tir::BufferLoadNode* op) override;
  llvm::Value* VisitExprDefault_(const Object* op) override;

  // Statements.
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
  struct BufferPtr {
    llvm::Value* ptr;     // pointer to the storage type
    DataType dtype;       // element dtype (scalar)
  };

  // ---- hooks for target backends -----------------------------------------
  // A loop marked parallel with more than one iteration.
  virtual void EmitParallelFor(const tir::ForNode* op);
  // A loop bound to a GPU thread axis (refused unless a device backend maps it).
  virtual void EmitThreadBinding(const tir::ForNode* op);
  // Heap workspace for allocations too large (or too dynamic) for the stack.
  virtual llvm::Value* EmitWorkspaceAlloc(llvm::Value* bytes);
  virtual void EmitWorkspaceFree(llvm::Value* ptr);
  // Emitted on the back-edge of every while loop: lets the runtime stop a
  // loop that may never end (the CPU backend polls the Ctrl-C flag). No-op
  // by default.
  virtual void EmitWhileBackEdgeCheck() {}
  // Ends the current function with a user-facing error (failed bound check);
  // leaves the builder in a block the caller may abandon.
  virtual void EmitRaise(const std::string& message);
  // Like EmitRaise, for an index outside its axis: the message (an
  // IndexError) names `what`, the index value and the extent (i64 values).
  virtual void EmitRaiseIndex(const std::string& what, llvm::Value* index, llvm::Value* extent);

  // ---- helpers for backends ------------------------------------------------
  llvm::Type* ValueType(DataType t);    // register type (bool: i1, bfloat16: float)
  llvm::Type* StorageType(DataType t);  // memory type (bool: i8, bfloat16: i16)
  llvm::Value* ToStorage(llvm::Value* v, DataType t);
  llvm::Value* FromStorage(llvm::Value* v, DataType t);
  llvm::Value* Cast(llvm::Value* v, DataType from, DataType to);
  llvm::Value* Compare(const tir::BinaryOpNode* op, llvm::CmpInst::Predicate si, llvm::CmpInst::Predicate ui,
                       llvm::CmpInst::Predicate f);
  llvm::Value* CallIntrinsic(llvm::Intrinsic::ID id, const std::vector<llvm::Value*>& args, llvm::Type* type);
  llvm::Value* ElementPtr(const BufferPtr& buf, llvm::Value* index);
  BufferPtr LookupBuffer(const tir::Buffer& buffer);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, llvm::Value* count, unsigned align);
  void EmitSerialFor(const tir::Var& var, llvm::Value* min, llvm::Value* extent, const tir::Stmt& body);
  // Emits the bound check of `index` into `buffer` when enabled.
  void CheckBounds(const tir::Buffer& buffer, llvm::Value* index);
  // The bound check of a vector access whose flat index is `index`: a Ramp
  // checks its first and last lanes (`base` is its emitted base), any other
  // vector index (`lanes`, emitted) every lane.
  void CheckVectorBounds(const tir::Buffer& buffer, const PrimExpr& index, llvm::Value* base, llvm::Value* lanes);
  // The element index of each lane of a vector load/store that is not one
  // contiguous vector (bounds checked here): base + lane * stride for a ramp
  // of constant stride, else the lanes of the index vector.
  using LaneIndices = std::function<llvm::Value*(int)>;
  LaneIndices LaneIndicesOf(const tir::Buffer& buffer, const PrimExpr& index);
  // Always (with or without -bound-check): an integer division or modulo
  // `expr` by zero raises ZeroDivisionError, and of the type's minimum by -1
  // OverflowError, naming `expr`, instead of trapping (SIGFPE). Divisors whose
  // constant bounds exclude 0 (and -1) emit no check.
  void CheckDivisor(const PrimExpr& expr, llvm::Value* a, llvm::Value* b);
  // tir.checked_index(index, extent, what, negative_from_end): the index (if
  // negative_from_end, a negative one plus the extent, once, as NumPy); outside
  // [0, extent) (or [-extent, extent)) the kernel raises IndexError naming
  // `what`, the index and the extent.
  llvm::Value* EmitCheckedIndex(const tir::CallNode* op);
  // Refuses a buffer (parameter or allocation) whose element dtype no
  // access could load: handles, vectors (float32x4), void.
  void CheckBufferDtype(const std::string& buffer, DataType t);
  // The user-facing error raised when `bad` (i1, or a vector of i1: any lane) holds.
  void RaiseIf(llvm::Value* bad, const std::string& message);
  // The value of an intrinsic call no rule lowers further (builtins of TIR
  // and tir.call_llvm_pure_intrin), or nullptr when `op` is not one.
  llvm::Value* EmitBuiltin(const tir::CallNode* op);
  llvm::Value* EmitCallExtern(const tir::CallNode* op, size_t first_arg, const std::string& name);
  [[noreturn]] void Unsupported(const std::string& what);

  llvm::LLVMContext* ctx_;
  llvm::Module* module_;
  std::unique_ptr<llvm::IRBuilder<>> builder_;
  llvm::Function* function_ = nullptr;  // the function being emitted
  std::string func_name_;               // the PrimFunc's name, for messages
  std::string target_kind_;
  std::unordered_map<const tir::VarNode*, llvm::Value*> var_map_;
  std::unordered_map<const tir::VarNode*, BufferPtr> buffers_;
  bool bound_check_ = false;
  // Heap workspaces allocated and not yet freed at the current point of the
  // function being emitted, outermost first: a raise frees them first.
  std::vector<llvm::Value*> live_workspaces_;
};

}  // namespace codegen
}  // namespace tessera
