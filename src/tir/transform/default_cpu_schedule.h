// DefaultCPUSchedule: a fixed, untuned schedule for the CPU PrimFuncs nobody
// scheduled (the TOPI functions LegalizeOps makes): inline elementwise
// producers, parallelize the outer spatial loops, vectorize the innermost
// contiguous spatial loop, tile reductions around a vectorized spatial loop.
// Built on the schedule primitives (tir/schedule); relax.build runs it.
#pragma once

#include <optional>

#include "ir/transform.h"
#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/default_schedule_apply.h"  // what the rules run their steps with

namespace tessera {
namespace tir {

struct DefaultCPUScheduleOptions {
  int vector_bits = 128;   // SIMD register width of the target (512 for AVX-512)
  int num_cores = 1;       // parallel loops only when > 1
  // A block whose loop nest runs fewer iterations than this stays serial.
  int64_t min_parallel_work = int64_t(1) << 15;
  // Matmul-like blocks get the packed-panel schedule (default_schedule_matmul.h).
  bool packed_matmul = true;
  // Softmax / layer_norm style functions: one parallel row loop (default_schedule_rows.h).
  bool row_kernels = true;
  // Deinterleaved padding stages of strided windows copied S columns a step (default_schedule_pool.h).
  bool strided_pad_copy = true;
  // The sampled form (default_schedule_knobs.h): the rules' tile factors come
  // from sampling instructions whose decisions are the default's factors, so
  // the trace replays to the same schedule and the tuner can move around it.
  bool sampled = false;
  // The packed conv2d's padding stage per (n, c) plane, its borders cut off
  // (default_schedule_pad.h).
  bool pad_planes = true;
  // The packed conv2d's write-back with its epilogue vectorized along the
  // output width (default_schedule_conv.h).
  bool conv_vector_epilogue = true;
  // The 1x1-conv GEMM's pixel tiles grouped in blocks whose input slice fits
  // the L2 cache, the output-channel tiles inside (default_schedule_conv1x1.h).
  bool conv1x1_pixel_blocks = true;
  // At least kChunksPerCore parallel iterations per core where a rule can
  // fuse more loops into its parallel loop (default_schedule_chunks.h).
  bool parallel_chunks = true;
};

// Schedules `func` (unless it has "tir.is_scheduled" or a loop that is not
// serial) and marks it "tir.is_scheduled". A step a primitive refuses for a
// block is skipped; the function always computes what it computed before.
PrimFunc DefaultCPUSchedule(PrimFunc func, const DefaultCPUScheduleOptions& options);

// The schedule DefaultCPUSchedule applies to `func` (not yet scheduled), as a
// tir.Schedule whose trace replays it: the untuned candidate meta_schedule
// measures first. The function is not marked "tir.is_scheduled".
Schedule DefaultCPUScheduleOf(PrimFunc func, const DefaultCPUScheduleOptions& options);

// The options for `target` (a CPU target): its vector width and its
// -num-cores, else the host's cores (TargetVectorBits / TargetNumCores).
DefaultCPUScheduleOptions DefaultCPUScheduleOptionsFor(const Target& target);

// Whether `target` has the "cpu" key (llvm, c).
bool IsCPUTarget(const Target& target);

namespace transform {
// tir.transform.DefaultCPUSchedule(target): the pass form; without a target,
// each function's "target" attribute, else the host (DefaultHostTarget).
// Each function gets its target kind's default schedule (the kind attribute
// "tir.default_schedule"; the CPU kinds: DefaultCPUSchedule above); kinds
// without one leave it alone. opt_level 0.
tessera::transform::Pass DefaultCPUSchedule(std::optional<Target> target = std::nullopt);
}  // namespace transform

}  // namespace tir
}  // namespace tessera
