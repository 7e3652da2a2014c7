// KernelLaunchExtents: the launch configuration of one device kernel region
// (an outermost thread-bound loop nest): which of blockIdx.x/y/z and
// threadIdx.x/y/z it binds, each one's extent, and the bytes of "shared.dyn"
// memory it allocates. Used by SplitHostDevice (kernel attrs, the host's
// launch call) and by CodeGenCUDA (__launch_bounds__, thread guards).
#pragma once

#include <string>

#include "tir/stmt.h"

namespace tessera {
namespace codegen {

struct LaunchExtents {
  // A subset of blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, in that order.
  Array<String> tags;
  // One per tag: the launch extent (constant: the largest loop bound to the tag; otherwise the loops'
  // common extent), an expression over variables defined outside the region.
  Array<PrimExpr> extents;
  // Bytes of "shared.dyn" memory allocated in the region (an int64 expression, 0 when none; each allocation
  // rounded up to kDynShmemAlign bytes).
  PrimExpr dyn_shmem;
};

// Raises ValueError naming `func_name` and the tag when loops bound to one tag have different non-constant
// extents, when an extent uses a variable defined inside the region, or for an unknown thread tag.
// "vthread" loops are not launch dimensions (codegen emits them as serial loops).
LaunchExtents KernelLaunchExtents(const tir::Stmt& region, const std::string& func_name = "");

// Each "shared.dyn" allocation starts at a multiple of this many bytes of the kernel's dynamic shared memory.
constexpr int64_t kDynShmemAlign = 16;
// The bytes an allocation of `extents` x `dtype` takes in dynamic shared memory (rounded up to kDynShmemAlign).
PrimExpr DynShmemBytes(DataType dtype, const Array<PrimExpr>& extents);

// The extent of `tag` in `extents`, or nullopt when the kernel does not bind it.
std::optional<PrimExpr> LaunchExtentOf(const LaunchExtents& extents, const std::string& tag);

}  // namespace codegen
}  // namespace tessera
