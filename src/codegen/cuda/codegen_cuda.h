// CodeGenCUDA: lowered device kernels (PrimFuncs made by SplitHostDevice) ->
// one CUDA C translation unit for NVRTC. A CodeGenC subclass: thread-bound
// loops become thread index variables (guarded where the loop is shorter than
// the launch), "shared"/"shared.dyn"/"local" allocations become __shared__,
// extern __shared__ and register arrays, tvm_storage_sync __syncthreads(),
// float16/bfloat16 use cuda_fp16.h/cuda_bf16.h, GNU statement expressions
// (which NVRTC lacks) are replaced by device helpers; consecutive 4-lane 32-bit
// accesses are 128-bit (codegen_cuda_vector.cc). Codegen layer.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "codegen/cuda/launch_extents.h"
#include "codegen/source/codegen_c.h"
#include "ir/module.h"
#include "tir/function.h"

namespace tessera {
namespace codegen {

class CodeGenCUDA : public CodeGenC {
 public:
  explicit CodeGenCUDA(const Target& target);

  // Emits `func` as `extern "C" __global__ void <symbol>(...)`.
  void AddKernel(const std::string& symbol, const tir::PrimFunc& func);

  using CodeGenC::VisitExpr_;
  using CodeGenC::VisitStmt_;
  std::string VisitExpr_(const IntImmNode* op) override;
  std::string VisitExpr_(const tir::CastNode* op) override;
  std::string VisitExpr_(const tir::DivNode* op) override;
  std::string VisitExpr_(const tir::ModNode* op) override;
  std::string VisitExpr_(const tir::FloorDivNode* op) override;
  std::string VisitExpr_(const tir::FloorModNode* op) override;
  std::string VisitExpr_(const tir::MinNode* op) override;
  std::string VisitExpr_(const tir::MaxNode* op) override;
  std::string VisitExpr_(const tir::LetNode* op) override;
  std::string VisitExpr_(const tir::CallNode* op) override;
  void VisitStmt_(const tir::AllocateNode* op) override;
  void VisitStmt_(const tir::AttrStmtNode* op) override;
  void VisitStmt_(const tir::EvaluateNode* op) override;
  // codegen_cuda_vector.cc: 128-bit stores and loads of 4 consecutive 32-bit elements.
  void VisitStmt_(const tir::BufferStoreNode* op) override;
  std::string VisitExpr_(const tir::BufferLoadNode* op) override;

 protected:
  void PrintPrelude(std::ostream& os) override;
  std::string ValueType(DataType t) override;
  std::string StorageType(DataType t) override;
  std::string FromStorage(const std::string& v, DataType t) override;
  std::string ToStorage(const std::string& v, DataType t) override;
  std::string CheckedIndex(const tir::Buffer& buffer, const std::string& index, DataType index_type) override;
  void EmitThreadBinding(const tir::ForNode* op) override;
  std::string WorkspaceAlloc(const std::string& bytes) override;
  std::string RaiseStmt(const std::string& message) override;

 private:
  // Binds `var` to the hardware index of `tag` (plus `min`), guarded when `extent` is below the launch extent;
  // `body` is emitted inside.
  void EmitThreadIndex(const tir::Var& var, const std::string& tag, const PrimExpr& min, const PrimExpr& extent,
                       const tir::Stmt& body);
  // The tensor-core builtins (ptx_mma, ptx_ldmatrix, mma_store, mma_fill) as statements; false for other calls.
  bool EmitTensorCoreBuiltin(const tir::CallNode* op);
  // A pointer operand: a buffer's data variable (its C array) or any pointer expression, plus an element offset.
  std::string PointerOperand(const PrimExpr& ptr, const PrimExpr& offset);
  // Whether integer division by `divisor` might divide by zero (then the helper traps).
  bool MaybeZero(const PrimExpr& divisor);
  [[noreturn]] void Refuse(const std::string& what);

  // (codegen_cuda_vector.cc) The first of 4 consecutive 32-bit elements an access of dtype `t` reads or
  // writes (its index a Ramp of stride 1), or nullopt.
  std::optional<PrimExpr> ConsecutiveBase(const tir::Buffer& buffer, const Array<PrimExpr>& indices, DataType t);
  // A 4-lane store of consecutive 32-bit elements as one 128-bit store, its value's consecutive 4-lane
  // loads as 128-bit loads, under a run-time check that every address is 16-byte aligned (else the lanes
  // one by one); false (nothing emitted) for any other store.
  bool EmitVectorStore(const tir::BufferStoreNode* op);
  std::unordered_map<const tir::BufferLoadNode*, std::string> vector_loads_;  // the load's float4 temporary

  bool need_fp16_ = false;
  bool need_bf16_ = false;
  LaunchExtents launch_;
  std::unordered_map<const tir::VarNode*, std::string> scopes_;
  std::string dyn_shmem_name_;  // the kernel's extern __shared__ array once declared
  PrimExpr dyn_shmem_offset_;   // bytes of it handed out so far
};

// One CUDA C translation unit for every PrimFunc of `kernels` (each a kernel, named by its "global_symbol").
// Checks each kernel against the target's limits (VerifyGPUCode) first; raises ValueError naming the kernel and
// the culprit for what CUDA cannot express (global allocations in a kernel, a shared buffer passed in, ...).
std::string CodeGenCUDASource(const IRModule& kernels, const Target& target);

}  // namespace codegen
}  // namespace tessera
