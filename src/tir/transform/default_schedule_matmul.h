// DefaultCPUSchedule's rule for matmul-like blocks (dense, matmul,
// batch_matmul, with or without an elementwise epilogue): the packed-panel,
// register-blocked GEMM the tuner's MultiLevelTilingPackedPanel finds, made
// without search. Called from default_cpu_schedule.cc for each reduction.
#pragma once

#include <string>

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// The PassContext config key; false leaves matmuls to the generic reduction
// schedule (default true).
inline constexpr const char* kPackedMatmulOption = "tir.default_schedule.packed_matmul";

// When `block` is out[b..., i, j] += A[..., i, k] * B[..., k, j] (B
// contiguous along j; the leading spatial loops are batch loops), schedules
//   [batch, i chunks, j / J: fused, parallel]
//     [B's K x J column panel copied into a compact buffer]
//     [i / R] [k] [R rows: unrolled] [J columns: vectorized]
//     [write-back of the R x J accumulators, then the elementwise consumers
//      of the result on that tile: vectorized]
// with J two vectors and R rows (8 with 32 vector registers, else 4; when
// no tile height divides M >= 16 the last row tile is predicated), and
// returns true. Otherwise (another shape, N not a multiple of the vector
// width, M < 16 not divisible) leaves `sch` as it was and returns false.
bool ScheduleMatmulPacked(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
