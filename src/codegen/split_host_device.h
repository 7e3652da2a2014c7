// SplitHostDevice: separates what runs on the device from what runs on the
// host. In each PrimFunc with a "target" attribute (BindTarget sets it)
// every outermost loop bound to a GPU thread axis
// (ForKind::kThreadBinding), with its body, becomes a kernel PrimFunc
// `<name>_kernel<i>` whose parameters are the variables it reads from the
// host (buffer data pointers, scalars, shape variables; tir/analysis/
// undefined_vars.h) and whose attributes are "target" (the function's),
// "tir.is_global_func", "tir.noalias" and "calling_conv" = 2 (device kernel
// launch, TVM's value) and its launch configuration (KernelLaunchExtents,
// codegen/cuda/launch_extents.h): "tessera.launch_tags", "tessera.launch_extents"
// (over the kernel's parameters) and "tessera.dyn_shmem". The host function's
// region becomes a call of the op tir.tessera_launch_kernel(kernel symbol,
// gx, gy, gz, bx, by, bz, dyn_shmem, kernel args...) (missing dimensions 1),
// which host code generators emit as TesseraLaunchKernel (runtime/kernel_abi.h);
// the host function gets "tessera.device_type" (its arrays live on the device).
// Functions without such loops or without a target are unchanged. For a
// target whose keys lack "gpu" a thread-bound loop raises ValueError naming
// function and loop. Registered as the pass tir.transform.SplitHostDevice;
// target.build.cuda runs it before its code generation. Codegen layer.
#pragma once

#include "ir/module.h"
#include "ir/transform.h"
#include "target/target.h"
#include "tir/expr.h"

namespace tessera {
namespace codegen {

IRModule SplitHostDevice(const IRModule& mod);

// The attribute SplitHostDevice sets on a host function that launches
// kernels: the DLDeviceType its array arguments must be on (MakePackedAPI's
// FunctionInfo.device_type).
inline constexpr const char* kAttrDeviceType = "tessera.device_type";

// A tir.tessera_launch_kernel call, taken apart.
struct LaunchKernelCall {
  std::string kernel;          // the kernel's symbol
  std::vector<PrimExpr> dims;  // gx, gy, gz, bx, by, bz, dyn_shmem
  std::vector<PrimExpr> args;  // the kernel's arguments
};
bool IsLaunchKernel(const tir::CallNode* call);
// Raises ValueError naming `func_name` for a malformed call.
LaunchKernelCall ParseLaunchKernel(const tir::CallNode* call, const std::string& func_name);

namespace transform {
using tessera::transform::Pass;
using tessera::transform::PassContext;
Pass SplitHostDevice();
}  // namespace transform

}  // namespace codegen
}  // namespace tessera
