// MakePackedAPI: the packed calling convention of a PrimFunc, independent of
// the backend: the ordered argument slots of its entry `tessera_kernel_<name>
// (void** args)` (each parameter, then the symbolic shape variables bound from
// the buffers' shapes) and the FunctionInfo the runtime checks arguments
// against (runtime/kernel_abi.h). The pass tir.transform.MakePackedAPI (last
// step of tir.default_pipeline) validates the signature and records the slots
// on the function; CodeGenCPU reads them back with GetPackedAPI. TIR layer.
#pragma once

#include <string>
#include <vector>

#include "ir/transform.h"
#include "runtime/kernel_abi.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// Attribute keys the pass sets: "calling_conv" (kCallingConvPacked, as TVM's
// CallingConv::kCPackedFunc) and "tessera.packed_args" (Array<Var>: the slots).
inline constexpr const char* kAttrCallingConv = "calling_conv";
inline constexpr const char* kAttrPackedArgs = "tessera.packed_args";
inline constexpr int64_t kCallingConvPacked = 1;

struct PackedAPI {
  FunctionInfo info;
  std::vector<Buffer> buffers;  // per parameter: its buffer, or undefined for a scalar
  std::vector<Var> sym_vars;    // slots after the parameters, in order
};

// Computes the convention. A dimension that is an expression of the size
// variables (n * 2) gets a slot of its own, checked against the expression at
// the call (FunctionInfo::checks). Raises NotImplementedError naming `name` and
// the parameter for signatures the ABI cannot express (strided or offset
// buffers, an expression over a variable no dimension or integer parameter
// gives, handles without a buffer).
PackedAPI ComputePackedAPI(const std::string& name, const PrimFunc& func);

// The convention recorded by the pass (read from "tessera.packed_args");
// raises ValueError naming `name` if the pass did not run or the attribute
// does not match the signature.
PackedAPI GetPackedAPI(const std::string& name, const PrimFunc& func);

namespace transform {
// The pass form (registered as tir.transform.MakePackedAPI; opt_level 0).
tessera::transform::Pass MakePackedAPI();
}  // namespace transform

}  // namespace tir
}  // namespace tessera
