// CSourceModule: the runtime Module produced by building for the "c" target.
// It holds the generated C, compiles it with the system C compiler (CC, else
// `cc`; started through runtime/process.h, never a shell) into a shared
// library it loads at once, and answers rt_mod["f"] (the kernel ABI of
// runtime/kernel_abi.h, as LLVM-built kernels), get_source() (the C) and
// export_library (the same C compiled to the given path, sealed for
// load_module). Codegen layer.
#pragma once

#include <string>
#include <vector>

#include "runtime/kernel_abi.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tessera {
namespace codegen {

// Compiles `source` and loads it. RuntimeError naming the compiler when it
// cannot be run or fails (with its output).
Module CreateCSourceModule(std::string source, std::vector<FunctionInfo> infos, const Target& target);

}  // namespace codegen
}  // namespace tessera
