// DefaultGPUSchedule: a fixed, untuned schedule for the GPU PrimFuncs nobody
// scheduled (the TOPI functions LegalizeOps makes), as TVM's dlight rules do:
// convolutions tiled first (their pad stage becomes the shared input window),
// elementwise producers inlined, then per function or block the first rule
// that applies (rows, matmul, one thread per output), epilogues computed in
// their producer's threads, and a fallback binding whatever is left. The
// "cuda" kind's "tir.default_schedule"; relax.build runs it. Rules live in
// default_schedule_gpu_<rule>.cc, one per file.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/transform.h"
#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/default_schedule_apply.h"

namespace tessera {
namespace tir {

struct DefaultGPUScheduleOptions {
  int64_t max_threads = 256;  // threads per block (the target's max_num_threads caps it)
  // Matmul tiling: per block (tile_y x tile_x), per thread (reg x reg), k step.
  int64_t matmul_threads_y = 16, matmul_threads_x = 16, matmul_reg = 4, matmul_k = 8;
};

// Schedules `func` (unless it has "tir.is_scheduled" or any thread-bound
// loop: functions scheduled by hand are left alone) and marks it
// "tir.is_scheduled". Every block ends under blockIdx/threadIdx loops; a block
// no rule can bind raises ValueError naming the function and the block.
PrimFunc DefaultGPUSchedule(PrimFunc func, const DefaultGPUScheduleOptions& options);

// The options for `target` (its max_num_threads / max_threads_per_block).
DefaultGPUScheduleOptions DefaultGPUScheduleOptionsFor(const Target& target);

// ---- the rules (each in its own file) ----

// default_schedule_gpu_elementwise.cc: `block`'s spatial loops (moved outside
// its reduction loops) fused, split by the thread count and bound to
// blockIdx.x / threadIdx.x: one thread per output element, reductions serial
// in the thread (elementwise, injective, and the first-correctness schedule of
// reductions and conv2d). False (schedule unchanged) when the block has no
// spatial loop or a primitive refuses.
bool ScheduleGPUThreadPerOutput(Schedule* sch, const BlockRV& block, const DefaultGPUScheduleOptions& opt);

// (same file) Splits `loop` by the thread count (its extent when smaller) and
// binds the parts to blockIdx.x / threadIdx.x; a primitive's refusal propagates.
void BindOneThreadPerIteration(Schedule* sch, const LoopRV& loop, const DefaultGPUScheduleOptions& opt);

// default_schedule_gpu_rows.cc: softmax / layer_norm / row sums (the CPU row
// kernels' shape, default_schedule_rows.h): every stage computed under the
// last block's row loops, rows fused and bound one thread per row, per-row
// intermediates in "local". True when applied.
bool ScheduleGPURows(Schedule* sch, const DefaultGPUScheduleOptions& opt);

// default_schedule_gpu_matmul.cc: C[b.., i, j] += A[b.., i, k] * B[b.., k, j]
// (or B[b.., j, k]) with tile-dividing extents: shared-memory tiles of A and B
// per k step fetched cooperatively, a per-thread register tile in "local",
// batch on blockIdx.z. True when applied.
bool ScheduleGPUMatmul(Schedule* sch, const BlockRV& block, const DefaultGPUScheduleOptions& opt);

// default_schedule_gpu_conv.cc: an NCHW convolution block (topi.nn.group_conv2d_nchw:
// strides, padding, dilation, groups, depthwise) with constant extents: an output tile of
// channels x rows x columns per thread block, threads over (channels, rows, columns), a
// few output channels x 2 columns per thread in "local", the input window (its pad stage) and the
// weights staged in "shared" per step of input channels. Run before producers are
// inlined. True when applied.
bool ScheduleGPUConv(Schedule* sch, const BlockRV& block, const DefaultGPUScheduleOptions& opt);

// default_schedule_gpu_fallback.cc: binds every block not yet under a
// thread-bound loop (one thread per output, or a single thread for a scalar
// block) and checks that none is left (ValueError naming the block).
void BindRemainingBlocks(Schedule* sch, const DefaultGPUScheduleOptions& opt, const std::string& func_name);

// loops[begin, end).
Array<LoopRV> LoopSlice(const Array<LoopRV>& loops, size_t begin, size_t end);

// A cooperative fetch: the loops of `stage` (a cache or pad stage computed at some loop) below its first
// `outer` ones fused, split by the thread block's `threads` extents (outermost first) and bound to their
// tags, the remaining outer part a serial loop. A primitive's refusal propagates (a ValueError when
// `stage` has no loop below `outer`).
void BindCooperativeFetch(Schedule* sch, const BlockRV& stage, size_t outer,
                          const std::vector<std::pair<int64_t, std::string>>& threads);

// Whether the loop is bound to a GPU thread axis.
bool IsThreadBound(const Schedule& sch, const LoopRV& loop);

namespace transform {
// tir.transform.DefaultGPUSchedule(target): the pass form (each function's
// "target" attribute when no target is given). opt_level 0.
tessera::transform::Pass DefaultGPUSchedule(std::optional<Target> target = std::nullopt);
}  // namespace transform

}  // namespace tir
}  // namespace tessera
