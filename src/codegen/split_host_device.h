// SplitHostDevice: separates what runs on the device from what runs on the
// host. In each PrimFunc with a "target" attribute (BindTarget sets it)
// every outermost loop bound to a GPU thread axis
// (ForKind::kThreadBinding), with its body, becomes a kernel PrimFunc
// `<name>_kernel<i>` whose parameters are the variables it reads from the
// host (buffer data pointers, scalars, shape variables; tir/analysis/
// undefined_vars.h) and whose attributes are "target" (the function's),
// "tir.is_global_func", "tir.noalias" and "calling_conv" = 2 (device kernel
// launch, TVM's value); the host function calls it through its GlobalVar.
// Functions without such loops or without a target are unchanged. For a
// target whose keys lack "gpu" a thread-bound loop raises ValueError naming
// function and loop. Registered as the pass tir.transform.SplitHostDevice;
// the GPU backend ([H]) runs it before its code generation. Codegen layer.
#pragma once

#include "ir/module.h"
#include "ir/transform.h"
#include "target/target.h"

namespace tessera {
namespace codegen {

IRModule SplitHostDevice(const IRModule& mod);

namespace transform {
using tessera::transform::Pass;
using tessera::transform::PassContext;
Pass SplitHostDevice();
}  // namespace transform

}  // namespace codegen
}  // namespace tessera
