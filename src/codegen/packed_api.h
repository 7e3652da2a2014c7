// MakePackedAPI: the packed calling convention of a PrimFunc, independent of
// the backend: the ordered argument slots of its entry `tessera_kernel_<name>
// (void** args)` (each parameter, then the symbolic shape variables bound from
// the buffers' shapes) and the FunctionInfo the runtime checks arguments
// against (runtime/kernel_abi.h). CodeGenCPU emits the entry from it; a GPU
// host stub will too. Becomes tir.transform.MakePackedAPI's analysis when
// the pass infrastructure lands. Codegen layer.
#pragma once

#include <string>
#include <vector>

#include "runtime/kernel_abi.h"
#include "tir/function.h"

namespace tessera {
namespace codegen {

struct PackedAPI {
  FunctionInfo info;
  std::vector<tir::Buffer> buffers;  // per parameter: its buffer, or undefined for a scalar
  std::vector<tir::Var> sym_vars;    // slots after the parameters, in order
};

// Raises NotImplementedError naming `name` and the parameter for signatures
// the ABI cannot express (strided or offset buffers, shapes that are
// expressions, handles without a buffer).
PackedAPI MakePackedAPI(const std::string& name, const tir::PrimFunc& func);

}  // namespace codegen
}  // namespace tessera
