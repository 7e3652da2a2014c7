// Build: the driver from an IRModule of PrimFuncs to a runtime Module. It
// runs the TIR lowering pipeline on each function (LowerInitBlock,
// LowerBlocks, FlattenBuffer, VectorizeLoop, UnrollLoop) and hands the
// lowered module to the backend registered for the target's kind
// (target_build.h: "target.build.llvm", ...). This is what tvm.build calls.
#pragma once

#include "ir/module.h"
#include "runtime/module.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera {
namespace codegen {

// The lowered form of `func`, as code generation sees it.
tir::PrimFunc LowerPrimFunc(tir::PrimFunc func);

Module Build(const IRModule& mod, const Target& target);

}  // namespace codegen
}  // namespace tessera
