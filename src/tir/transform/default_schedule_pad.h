// The padding stage ("pad_temp", topi.nn.pad: x inside, 0 outside) under
// DefaultCPUSchedule: its column loop cut at the borders so the interior is a
// plain copy LLVM vectorizes. Used per (n, c) plane by the window rule
// (default_schedule_pool.cc) and, as a rule of its own, for the standalone
// padding stage in front of the packed conv2d (default_schedule_conv.cc).
#pragma once

#include <cstdint>
#include <optional>

#include "tir/schedule/schedule.h"
#include "tir/transform/default_cpu_schedule.h"

namespace tessera {
namespace tir {

// PassContext switch: False leaves the packed conv2d's padding stage to the
// generic spatial rule (one select per element over a split vector loop).
inline constexpr const char* kPadPlanesOption = "tir.default_schedule.pad_planes";

// The innermost (column) loop of the padding block `pad` cut into its left
// border, interior and right border (loop_partition); where the reads do not
// show the padding form, split by `lanes` and vectorized instead. Throws what
// the schedule primitives throw (the caller restores its schedule). A stage
// stored deinterleaved by the column stride S is cut in groups of S columns,
// S unrolled, unless `group_by_stride` is false (the PassContext switch
// tir.default_schedule.strided_pad_copy).
void PartitionPaddedColumns(Schedule* sch, const BlockRV& pad, int64_t lanes, bool group_by_stride = true);

// Schedules `block` when it is a 4-D NCHW padding stage left standalone in
// front of a packed conv2d block ("conv2d_nchw_packed", which reads every
// input channel, so the pad cannot move under its tile loops): [n, c] fused
// into one plane loop, parallel when the work is worth it, its rows serial
// and its columns cut by PartitionPaddedColumns. With a batch other than 1
// (or symbolic) it only claims the block (true, left unscheduled): the conv
// rule computes it per image through SchedulePackedConvPadding. Returns false
// (schedule unchanged) otherwise or when a step is refused.
bool SchedulePaddingPlanes(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt);

// For the packed conv2d block `conv` whose padding stage SchedulePaddingPlanes
// left unscheduled: that stage's planes under `image` (the conv block's image
// loop n, before its tiles: one image padded at a time, still in cache when
// the tiles read it), or at the root without `image` (when the conv rule was
// refused). False (schedule unchanged) when there is no such stage or a step
// is refused.
bool SchedulePackedConvPadding(Schedule* sch, const BlockRV& conv, std::optional<LoopRV> image,
                               const DefaultCPUScheduleOptions& opt);

}  // namespace tir
}  // namespace tessera
