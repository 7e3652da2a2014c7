// The backend registry: code generation is chosen by target kind. A backend
// registers the global function "target.build.<kind>" (TVM's names) taking
// the lowered IRModule and the Target and returning a runtime Module; the
// "llvm" backend is codegen/llvm/build_llvm.cc. Adding a backend (CUDA next)
// is one such registration; nothing here or in other backends changes.
// Codegen layer.
#pragma once

#include "ir/module.h"
#include "runtime/module.h"
#include "target/target.h"

namespace tessera {
namespace codegen {

// Hands `lowered` to the backend of `target`'s kind; raises
// NotImplementedError naming the kind when none is registered.
Module BuildForTarget(const IRModule& lowered, const Target& target);

}  // namespace codegen
}  // namespace tessera
