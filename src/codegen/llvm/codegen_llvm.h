// CodeGenLLVM: translates lowered TIR (no blocks, 1-D buffers) into LLVM IR.
// Each PrimFunc becomes an internal compute function with typed, noalias
// buffer pointers plus an exported entry `tessera_kernel_<name>(void**)`
// following the runtime's kernel ABI (runtime/kernel_abi.h). Parallel
// loops are outlined into tasks run by TesseraParallelFor; vector nodes
// become LLVM vector IR. Codegen layer.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <unordered_map>

#include "runtime/kernel_abi.h"
#include "tir/functor.h"

namespace tessera {
namespace codegen {

class CodeGenLLVM : public tir::ExprFunctor<llvm::Value*(const PrimExpr&)>,
                    public tir::StmtFunctor<void(const tir::Stmt&)> {
 public:
  // `bound_check`: every scalar buffer access is checked against the
  // buffer's extent; an out-of-bounds access makes the call raise instead of
  // touching memory (target option `-bound-check`, TVM's
  // tir.instrument_bound_checkers).
  CodeGenLLVM(llvm::LLVMContext* ctx, llvm::Module* module, bool bound_check = false);

  // Emits `lowered` (the output of the lowering pipeline) under `name`;
  // `original` supplies the parameter buffers' shapes. Raises ValueError /
  // NotImplementedError naming the function for constructs it cannot compile.
  FunctionInfo AddFunction(const std::string& name, const tir::PrimFunc& original, const tir::PrimFunc& lowered);

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

 private:
  struct BufferPtr {
    llvm::Value* ptr;     // pointer to the storage type
    DataType dtype;       // element dtype (scalar)
  };

  llvm::Type* ValueType(DataType t);    // register type (bool: i1, bfloat16: float)
  llvm::Type* StorageType(DataType t);  // memory type (bool: i8, bfloat16: i16)
  llvm::Value* ToStorage(llvm::Value* v, DataType t);
  llvm::Value* FromStorage(llvm::Value* v, DataType t);
  llvm::Value* Cast(llvm::Value* v, DataType from, DataType to);
  llvm::Value* Compare(const tir::BinaryOpNode* op, llvm::CmpInst::Predicate si, llvm::CmpInst::Predicate ui,
                       llvm::CmpInst::Predicate f);
  llvm::Value* CallLibm(const std::string& name, llvm::Value* x, DataType t);
  llvm::Value* CallIntrinsic(llvm::Intrinsic::ID id, const std::vector<llvm::Value*>& args, llvm::Type* type);
  llvm::Value* ElementPtr(const BufferPtr& buf, llvm::Value* index);
  // Emits the bound check of `index` into `buffer` when enabled.
  void CheckBounds(const tir::Buffer& buffer, llvm::Value* index);
  BufferPtr LookupBuffer(const tir::Buffer& buffer);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, llvm::Value* count, unsigned align);
  void EmitParallelFor(const tir::ForNode* op);
  void EmitSerialFor(const tir::Var& var, llvm::Value* min, llvm::Value* extent, const tir::Stmt& body);
  [[noreturn]] void Unsupported(const std::string& what);

  llvm::LLVMContext* ctx_;
  llvm::Module* module_;
  std::unique_ptr<llvm::IRBuilder<>> builder_;
  llvm::Function* function_ = nullptr;
  std::string func_name_;
  std::unordered_map<const tir::VarNode*, llvm::Value*> var_map_;
  std::unordered_map<const tir::VarNode*, BufferPtr> buffers_;
  int task_counter_ = 0;
  bool bound_check_ = false;
};

}  // namespace codegen
}  // namespace tessera
