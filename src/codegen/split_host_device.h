// SplitHostDevice: separates what runs on the device from what runs on the
// host. In each PrimFunc every outermost loop bound to a GPU thread axis
// (ForKind::kThreadBinding), with its body, becomes a kernel PrimFunc
// `<name>_kernel<i>` whose parameters are the variables it reads from the
// host (buffer data pointers, scalars, shape variables; tir/analysis/
// undefined_vars.h) and whose attributes are "target" (the target string),
// "tir.is_global_func", "tir.noalias" and "calling_conv" = 2 (device kernel
// launch, TVM's value); the host function calls it through its GlobalVar.
// Functions without such loops are unchanged. For a target whose keys lack
// "gpu" a thread-bound loop raises ValueError naming function and loop.
// Module -> module, ready to be registered as tir.transform.SplitHostDevice
// when the pass infrastructure lands; the GPU backend ([H]) runs it before
// its codegen. Codegen layer.
#pragma once

#include "ir/module.h"
#include "target/target.h"

namespace tessera {
namespace codegen {

IRModule SplitHostDevice(const IRModule& mod, const Target& target);

}  // namespace codegen
}  // namespace tessera
