// Build: the driver from an IRModule of PrimFuncs to a runtime Module. It
// runs the TIR lowering pipeline (tir::transform::DefaultTIRPipeline, a
// named Sequential) on the module under the current PassContext and hands
// the lowered module to the backend registered for the target's kind
// (target_build.h: "target.build.llvm", ...). This is what tvm.build calls;
// tvm.lower calls Lower.
#pragma once

#include "ir/module.h"
#include "ir/transform.h"
#include "runtime/module.h"
#include "target/target.h"
#include "tir/function.h"

namespace tessera {
namespace codegen {

// The module after the default TIR pipeline, run under the current PassContext.
IRModule Lower(const IRModule& mod);
// The lowered form of `func`, as code generation sees it.
tir::PrimFunc LowerPrimFunc(tir::PrimFunc func);

Module Build(const IRModule& mod, const Target& target);

}  // namespace codegen
}  // namespace tessera
