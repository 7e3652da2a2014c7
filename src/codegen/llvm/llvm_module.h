// LLVMModule: the runtime Module produced by building for "llvm" targets.
// It owns an ORC LLJIT holding the optimized kernels, answers
// rt_mod["f"], get_source("ll"/"asm"), and export_library (object file +
// link into a shared library that needs only the runtime). Codegen layer.
#pragma once

#include <llvm/IR/Module.h>

#include "runtime/kernel_abi.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tessera {
namespace codegen {

// Optimizes `module` (O3 for the target's CPU), JIT-compiles it and wraps it.
Module CreateLLVMModule(std::unique_ptr<llvm::LLVMContext> ctx, std::unique_ptr<llvm::Module> module,
                        std::vector<FunctionInfo> infos, const Target& target);

// Prepares an llvm::Module for `target` (triple, data layout).
void ConfigureLLVMModule(llvm::Module* module, const Target& target);

}  // namespace codegen
}  // namespace tessera
