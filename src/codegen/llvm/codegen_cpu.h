// CodeGenCPU: the CPU host part of LLVM code generation, on top of the
// generic CodeGenLLVM. Each PrimFunc becomes an internal compute function
// with typed, noalias buffer pointers plus the exported packed entry
// `tessera_kernel_<name>(void** args)` of the runtime's kernel ABI, laid
// out by MakePackedAPI (tir/transform/make_packed_api.h, recorded on the function by the pass; the FunctionInfo it returns
// drives the runtime's argument checks). Parallel loops are outlined into tasks run by TesseraParallelFor,
// large allocations come from TesseraWorkspaceAlloc and failed bound checks
// report through TesseraSetLastError; device kernel launches
// (tir.tessera_launch_kernel, from SplitHostDevice) call TesseraLaunchKernel.
// Codegen layer.
#pragma once

#include "codegen/llvm/codegen_llvm.h"
#include "runtime/kernel_abi.h"
#include "tir/function.h"

namespace tessera {
namespace codegen {

class CodeGenCPU : public CodeGenLLVM {
 public:
  CodeGenCPU(llvm::LLVMContext* ctx, llvm::Module* module, const Target& target);

  // Emits `func` (lowered: the output of the lowering pipeline, parameters
  // and buffer_map intact) under `name`. Raises ValueError /
  // NotImplementedError naming the function for constructs it cannot compile.
  FunctionInfo AddFunction(const std::string& name, const tir::PrimFunc& func);

 protected:
  void EmitParallelFor(const tir::ForNode* op) override;
  llvm::Value* EmitWorkspaceAlloc(llvm::Value* bytes) override;
  void EmitWorkspaceFree(llvm::Value* ptr) override;
  void EmitRaise(const std::string& message) override;
  void EmitRaiseIndex(const std::string& what, llvm::Value* index, llvm::Value* extent) override;
  // Polls TesseraInterruptRequested (runtime/interrupt.h): Ctrl-C stops the loop.
  void EmitWhileBackEdgeCheck() override;
  // A tir.tessera_launch_kernel call becomes TesseraLaunchKernel (runtime/kernel_abi.h).
  void VisitStmt_(const tir::EvaluateNode* op) override;

 private:
  // The exported `tessera_kernel_<name>(void** args)` calling `compute`:
  // unpacks each slot per the kernel ABI (buffers as pointers, scalars as
  // int64/double, then the symbolic shape variables).
  void EmitPackedEntry(const std::string& name, const FunctionInfo& info, llvm::Function* compute);

  // Frees live_workspaces_ (innermost first) before an early return.
  void FreeLiveWorkspaces();

  int task_counter_ = 0;
};

}  // namespace codegen
}  // namespace tessera
