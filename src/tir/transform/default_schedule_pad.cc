// PartitionPaddedColumns and SchedulePaddingPlanes (see
// default_schedule_pad.h). A padding block
//   pad[n, c, h, w] = if_then_else(t <= h < t + H && l <= w < l + W, x[n, c, h - t, w - l], 0)
// becomes, per (n, c) plane,
//   [h] { [w in 0..l): select } { [w in l..l+W): copy, vectorized by LLVM } { [w in l+W..): select }
// where the column loop's cut makes the column condition provably true in the
// interior: a vector loop kept one scalar select per element (a 32x112x112
// pad: 119 -> 45 us).
#include "tir/transform/default_schedule_pad.h"

#include <optional>

#include "arith/analyzer.h"
#include "ir/transform.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

constexpr const char* kPadPrefix = "pad_temp";
constexpr const char* kPackedConvPrefix = "conv2d_nchw_packed";

// The ranges [l, W, rest] of the column loop `cols` of `pad` (empty ones left
// out), or nullopt when its single read is not x[.., w - l] with a constant l
// and a static width W. With `align` > 1 the cuts move to multiples of it
// (the interior shrinks to whole groups of `align` columns).
std::optional<Array<Any>> PaddedColumnRanges(const Schedule& sch, const BlockRV& pad, const LoopRV& cols,
                                             int64_t align) {
  Block b = sch.Get(pad).cast<Block>();
  const int64_t* wp = AsConstInt(sch.Get(cols).cast<For>()->extent);
  if (b->reads.size() != 1 || b->iter_vars.empty() || wp == nullptr) return std::nullopt;
  const BufferRegion& in = b->reads[0];
  if (in->region.size() != b->iter_vars.size() || in->buffer->shape.empty()) return std::nullopt;
  const PrimExpr width = in->buffer->shape[in->buffer->shape.size() - 1];
  const int64_t* w = AsConstInt(width);
  arith::Analyzer ana;
  const Var& v = b->iter_vars[b->iter_vars.size() - 1]->var;
  const PrimExpr offset = ana.Simplify(sub(in->region[in->region.size() - 1]->min, v));
  const int64_t* off = AsConstInt(offset);
  if (w == nullptr || off == nullptr) return std::nullopt;
  const int64_t l = -*off;
  if (l < 0 || *wp - l - *w < 0 || *wp - *w == 0) return std::nullopt;
  const int64_t left = (l + align - 1) / align * align, end = (l + *w) / align * align;
  if (end <= left) return std::nullopt;
  Array<Any> parts;
  for (int64_t r : {left, end - left, *wp - end}) {
    if (r > 0) parts.push_back(Any(r));
  }
  return parts;
}

}  // namespace

void PartitionPaddedColumns(Schedule* sch_ptr, const BlockRV& pad, int64_t lanes, bool group_by_stride) {
  Schedule& sch = *sch_ptr;
  Array<LoopRV> loops = sch.GetLoops(pad);
  const LoopRV& cols = loops[loops.size() - 1];
  // A pad stored deinterleaved by the column stride S (pad[n, c, h, w % S, w / S],
  // default_schedule_pool.cc): each range is cut into groups of S columns, S
  // unrolled, so the S reads of a group are consecutive and the S writes go to
  // the S rows (LLVM's interleaved accesses: wide loads and shuffles).
  const Buffer out = sch.Get(pad).cast<Block>()->writes[0]->buffer;
  int64_t group = 1;
  if (group_by_stride && out->shape.size() == 5) {
    const PrimExpr s = out->shape[3];
    if (const int64_t* stride = AsConstInt(s); stride != nullptr && *stride > 1) group = *stride;
  }
  if (std::optional<Array<Any>> parts = PaddedColumnRanges(sch, pad, cols, group)) {
    LoopRV outer = cols;
    if (group > 1) {  // [w / S] [S: unrolled], the ranges cut in whole groups
      Array<LoopRV> split = sch.Split(cols, Array<Any>({Any(), Any(group)}), true);
      sch.Unroll(split[1]);
      outer = split[0];
      Array<Any> groups;
      for (const Any& p : *parts) groups.push_back(Any(p.cast<int64_t>() / group));
      parts = groups;
    }
    sch.LoopPartition(outer, *parts, true);
  } else {
    Array<LoopRV> split = sch.Split(cols, Array<Any>({Any(), Any(lanes)}), true);
    sch.Vectorize(split[1]);
  }
}

namespace {

// Whether `block` is a 4-D padding stage whose consumers are all packed conv2d blocks.
bool IsPackedConvPadding(const Schedule& sch, const BlockRV& block) {
  Block b = sch.Get(block).cast<Block>();
  if (!b->name_hint.starts_with(kPadPrefix) || b->iter_vars.size() != 4 || b->init || b->writes.size() != 1) {
    return false;
  }
  Array<BlockRV> consumers = sch.GetConsumers(block);
  for (const BlockRV& c : consumers) {
    if (!sch.Get(c).cast<Block>()->name_hint.starts_with(kPackedConvPrefix)) return false;
  }
  return !consumers.empty() && sch.GetLoops(block).size() == 4;
}

// Whether the padding stage `pad` is left for its single packed conv2d
// consumer to compute per image: a batch other than 1, or symbolic.
bool PaddedPerImage(const Schedule& sch, const BlockRV& pad) {
  Array<BlockRV> consumers = sch.GetConsumers(pad);
  if (consumers.size() != 1) return false;
  const int64_t* batch = AsConstInt(sch.Get(sch.GetLoops(consumers[0])[0]).cast<For>()->extent);
  return batch == nullptr || *batch > 1;
}

// The planes of `pad` (under `image` when given, else at the root) as one
// fused loop, parallel when worth it, the columns cut at the borders.
bool SchedulePlanes(Schedule* sch_ptr, const BlockRV& pad, std::optional<LoopRV> image,
                    const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Array<LoopRV> loops = sch.GetLoops(pad);
  int64_t work = 1;  // per image
  for (size_t i = 1; i < loops.size(); ++i) {
    const int64_t* e = AsConstInt(sch.Get(loops[i]).cast<For>()->extent);
    work *= e != nullptr ? *e : 1;
  }
  const int64_t lanes =
      std::max(1, opt.vector_bits / std::max(1, sch.Get(pad).cast<Block>()->writes[0]->buffer->dtype.bits()));
  return ApplyOrRestore(sch_ptr, [&] {
    if (image) {
      sch.ComputeAt(pad, *image, true, -1);
      loops = sch.GetLoops(pad);  // [image, n: 1, c, h, w]
    }
    const size_t k = loops.size();
    LoopRV plane = sch.Fuse({loops[k - 4], loops[k - 3]}, true);
    // Parallel before the partition: its opaque blocks would refuse it.
    if (opt.num_cores > 1 && work >= opt.min_parallel_work) sch.Parallel(plane);
    PartitionPaddedColumns(&sch, pad, lanes);
  });
}

}  // namespace

bool SchedulePaddingPlanes(Schedule* sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  if (!opt.pad_planes || !IsPackedConvPadding(*sch, block)) return false;
  if (PaddedPerImage(*sch, block)) return true;  // left unscheduled for SchedulePackedConvPadding
  return SchedulePlanes(sch, block, std::nullopt, opt);
}

bool SchedulePackedConvPadding(Schedule* sch, const BlockRV& conv, std::optional<LoopRV> image,
                               const DefaultCPUScheduleOptions& opt) {
  if (!opt.pad_planes) return false;
  for (const BlockRV& p : sch->GetProducers(conv)) {
    if (IsPackedConvPadding(*sch, p) && PaddedPerImage(*sch, p)) return SchedulePlanes(sch, p, image, opt);
  }
  return false;
}

// False keeps the packed conv2d's padding stage on the generic spatial rule.
TESSERA_REGISTER_PASS_CONFIG_OPTION(kPadPlanesOption, bool);

}  // namespace tir
}  // namespace tessera
