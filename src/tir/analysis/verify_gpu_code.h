// VerifyGPUCode on lowered TIR: the GPU kernels of a PrimFunc checked against
// limits (threads per block and per dimension, shared and local memory per
// block, virtual threads, vector bytes, kernels per function), as TVM's
// tir.analysis.verify_gpu_code. Reads storage scopes through BufferScopes.
// The tuning postproc (meta_schedule/postproc/verify_gpu_code.cc) checks
// scheduled, block-level TIR; this checks what code generation sees.
#pragma once

#include <cstdint>
#include <string>

#include "target/target.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

struct GPULimits {
  // INT64_MAX: not checked.
  int64_t max_threads_per_block = INT64_MAX;
  int64_t max_shared_memory_per_block = INT64_MAX;
  int64_t max_local_memory_per_block = INT64_MAX;
  int64_t max_thread_x = INT64_MAX, max_thread_y = INT64_MAX, max_thread_z = INT64_MAX;
  int64_t max_vthread = INT64_MAX;
  int64_t max_vector_bytes = INT64_MAX;
  int64_t max_kernels = INT64_MAX;
  // Threads per block and shared memory per block of a GPU target (its -max_threads_per_block /
  // -max_num_threads and -max_shared_memory_per_block, else TVM's defaults 1024 and 48 KiB).
  static GPULimits FromTarget(const Target& target);
};

// The first limit `func`'s kernels exceed, as a message naming the function ("" when none). A function marked
// "tir.is_global_func" is one kernel; otherwise each outermost thread-bound loop nest is one. Non-constant
// extents and "shared.dyn" sizes are not counted; a "shared" buffer of non-constant size is a violation.
std::string VerifyGPUCode(const PrimFunc& func, const GPULimits& limits, const std::string& name = "");

}  // namespace tir
}  // namespace tessera
