// The checks behind the checking postprocessors DisallowDynamicLoop and
// VerifyGPUCode: each looks at a candidate's module and keeps it (true) or
// rejects it (false, with the reason). Free functions reached through FFI
// by the Python PyPostprocs (python/tessera/meta_schedule/postproc/).
// MetaSchedule layer.
#pragma once

#include <string>

#include "ir/module.h"
#include "target/target.h"

namespace tessera {
namespace meta_schedule {

// True when no loop of any PrimFunc in `mod` has a non-constant extent.
bool CheckNoDynamicLoop(const IRModule& mod, std::string* why);

// Limits VerifyGPUCode checks, read from a CUDA-like target (TVM's defaults
// for what the target leaves out).
struct GPUCodeLimits {
  int64_t max_threads_per_block = 1024;
  int64_t max_shared_memory_per_block = 48 * 1024;
  int64_t max_vthread = 8;
  int64_t max_vector_bytes = 16;
  static GPUCodeLimits FromTarget(const Target& target);
};
// True when every kernel of `mod` stays within `limits`: threads per block,
// each threadIdx extent, shared memory allocated per block, virtual threads,
// vector width in bytes.
bool CheckGPUCode(const IRModule& mod, const GPUCodeLimits& limits, std::string* why);

}  // namespace meta_schedule
}  // namespace tessera
