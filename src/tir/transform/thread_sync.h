// ThreadSync(storage_scope): inserts tir.tvm_storage_sync(scope) into GPU
// kernels where threads of a block may see each other's accesses to memory of
// that scope out of order: before a read of data written earlier (and before a
// write over data read earlier) with no barrier between, and at
// the end of a loop body whose next iteration would otherwise race with this
// one. Never inside a branch that depends on the thread index (the barrier
// goes around the branch). TIR transform, run on kernels before CUDA codegen.
#pragma once

#include <string>

#include "ir/transform.h"
#include "tir/stmt.h"

namespace tessera {
namespace tir {

// The kernel body `body` with the barriers it needs for `scope` ("shared", "shared.dyn", "warp", ...).
Stmt ThreadSync(const Stmt& body, const std::string& scope);

namespace transform {
tessera::transform::Pass ThreadSync(std::string storage_scope);
}  // namespace transform

}  // namespace tir
}  // namespace tessera
