// CodeGenCHost: the CPU host part of C code generation, on top of the
// generic CodeGenC, as CodeGenCPU is for LLVM. Each PrimFunc becomes the
// exported packed entry `int32_t tessera_kernel_<name>(void** args)` of the
// runtime's kernel ABI (runtime/kernel_abi.h, laid out by MakePackedAPI):
// buffers arrive as pointers (restrict under tir.noalias, alignment told to
// the compiler), scalars as int64/double, then the symbolic shape variables.
// Parallel loops are outlined into tasks run by TesseraParallelFor, large
// allocations come from TesseraWorkspaceAlloc, errors report through
// TesseraSetLastError, while loops poll the Ctrl-C flag. Codegen layer.
#pragma once

#include "codegen/source/codegen_c.h"
#include "runtime/kernel_abi.h"
#include "tir/function.h"

namespace tessera {
namespace codegen {

class CodeGenCHost : public CodeGenC {
 public:
  explicit CodeGenCHost(const Target& target);

  // Emits `func` (lowered: the output of the lowering pipeline) under
  // `name`. Raises ValueError / NotImplementedError naming the function for
  // constructs it cannot express.
  FunctionInfo AddFunction(const std::string& name, const tir::PrimFunc& func);

 protected:
  void PrintPrelude(std::ostream& os) override;
  void EmitParallelFor(const tir::ForNode* op) override;
  std::string WorkspaceAlloc(const std::string& bytes) override;
  std::string WorkspaceFree(const std::string& ptr) override;
  std::string RaiseStmt(const std::string& message) override;
  std::string RaiseIndexStmt(const std::string& what, const std::string& index, const std::string& extent) override;
  void EmitWhileBackEdgeCheck() override;
  void VisitStmt_(const tir::EvaluateNode* op) override;

 private:
  // Statements freeing the live heap workspaces, innermost first (before a raise).
  std::string FreeLiveWorkspaces();

  int task_counter_ = 0;
  std::string c_name_;                     // the C identifier of the function being emitted
  std::set<std::string> function_names_;  // C identifiers of the functions emitted
};

}  // namespace codegen
}  // namespace tessera
