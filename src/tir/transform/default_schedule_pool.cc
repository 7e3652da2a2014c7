// SchedulePool2d (see default_schedule_pool.h). The block
//   out[n, c, y, x] = max/sum over (r, s) of pad[n, c, y*sh + r, x*sw + s]
// (or a depthwise conv2d's sum of pad[...] * W[c, 0, r, s], with its fused
// epilogue computed per tile)
// becomes
//   [n, c, y / R: fused, parallel] [x / V]          ([n, c] [y / R] with many planes)
//     [init] [r, s] [R rows: unrolled] [V columns: vectorized] [write-back]
// with V the widest of 16/8/4 lanes (as the target allows) dividing the
// output width (the widest, with a guarded tail, when none does) and R 4 rows
// when 4 divides the height, else its largest divisor up to 8 (14 and 7 rows:
// 7, where 2 and 1 left MobileNetV2's 14x14 and 7x7 depthwise convs ~15%
// slower); the parallel loop is [n, c] alone when
// those are enough for the cores. The padding stage is computed per channel
// plane under [n, c], not inlined (its select per read measured slower) nor
// over the whole tensor. With a column stride
// S > 1 its buffer is stored deinterleaved, pad[n, c, h, w % S, w / S], so the
// vectorized columns x*S + s read consecutive elements instead of a strided
// gather (a 96-channel 112x112 stride-2 depthwise conv: 1.81 -> 0.58 ms, one
// core), and its copy runs S columns per unrolled step (0.46 -> 0.25 ms). A refused step restores the schedule and the generic rules take over.
#include "tir/transform/default_schedule_pool.h"

#include <array>
#include <optional>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/default_schedule_conv.h"
#include "tir/transform/default_schedule_knobs.h"
#include "tir/transform/default_schedule_pad.h"

namespace tessera {
namespace tir {
namespace {

// The stride S of the block's reads of `buf` along its last axis as the
// block variable `vx` steps by one (0 when not a constant).
int64_t ColumnStride(const Block& b, const Buffer& buf, const Var& vx) {
  int64_t stride = 0;
  bool consistent = true;
  PostOrderVisit(b->body, [&](const ObjectRef& n) {
    const auto* load = n.as<BufferLoadNode>();
    if (load == nullptr || !load->buffer.same_as(buf) || load->indices.empty()) return;
    PrimExpr idx = load->indices[load->indices.size() - 1];
    PrimExpr next = Substitute(idx, [&](const Var& v) -> std::optional<PrimExpr> {
      if (v.same_as(vx)) return add(v, IntImm(v.dtype(), 1));
      return std::nullopt;
    });
    arith::Analyzer analyzer;
    PrimExpr diff = analyzer.Simplify(sub(next, idx));
    const int64_t* c = AsConstInt(diff);
    int64_t s = c != nullptr ? *c : 0;
    if (stride != 0 && s != stride) consistent = false;
    stride = s;
  });
  return consistent ? stride : 0;
}

// Stores the padding stage feeding `block` deinterleaved by its column
// stride (see the file comment); leaves it as it is when there is no stride to
// transform or the transform is refused. (PartitionPaddedColumns reads the
// stride back from the stored buffer's shape.)
void DeinterleavePaddedInput(Schedule* sch_ptr, const BlockRV& block) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  if (b->iter_vars.size() < 4) return;
  Var vx = b->iter_vars[3]->var;
  for (const BlockRV& producer : sch.GetProducers(block)) {
    Block p = sch.Get(producer).cast<Block>();
    if (p->name_hint.rfind("pad_temp", 0) != 0 || p->writes.size() != 1) continue;
    Buffer pad = p->writes[0]->buffer;
    if (pad->shape.size() != 4) continue;
    int64_t stride = ColumnStride(b, pad, vx);
    if (stride < 2 || stride > 4) continue;
    Array<Var> idx;
    for (const char* name : {"n", "c", "h", "w"}) idx.push_back(Var(name, pad->shape[0].dtype()));
    PrimExpr s = IntImm(idx[3].dtype(), stride);
    IndexMap map(idx, Array<PrimExpr>{idx[0], idx[1], idx[2], floormod(idx[3], s), floordiv(idx[3], s)});
    // Refused when S does not divide the padded width (not a bijection).
    ApplyOrRestore(&sch, [&] { sch.TransformLayout(producer, true, 0, map); });
    return;
  }
}

// Parallel iterations per core wanted before the parallel loop is images x
// channels alone (else rows join it and the padding stays one whole stage).
constexpr int64_t kPlanesPerCore = 4;

// The padding stage feeding `block` computed per (n, c) plane, just before
// the plane's row tiles read it (a plane of the padded input stays in cache
// instead of the whole padded tensor making a round trip through memory; a
// 96-channel 112x112 stride-2 depthwise conv: see docs/performance.md), the
// (n, c) loop parallel when `parallel`. False (schedule unchanged) when there
// is no such stage or a step is refused. `group_by_stride`: a stage stored
// deinterleaved by the column stride is copied in groups of that stride
// (PartitionPaddedColumns).
bool PadPerChannel(Schedule* sch_ptr, const BlockRV& block, const LoopRV& n, const LoopRV& c, int64_t lanes,
                   bool parallel, bool group_by_stride) {
  Schedule& sch = *sch_ptr;
  BlockRV pad;
  int found = 0;
  for (const BlockRV& p : sch.GetProducers(block)) {
    if (sch.Get(p).cast<Block>()->name_hint.rfind("pad_temp", 0) == 0) {
      pad = p;
      ++found;
    }
  }
  if (found != 1) return false;
  return ApplyOrRestore(sch_ptr, [&] {
    LoopRV plane = sch.Fuse({n, c}, true);
    sch.ComputeAt(pad, plane, true, -1);
    if (parallel) sch.Parallel(plane);  // before the partition: its opaque blocks would refuse it
    PartitionPaddedColumns(&sch, pad, lanes, group_by_stride);  // default_schedule_pad.cc
  });
}

}  // namespace

bool SchedulePool2d(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  const std::string& name = b->name_hint;
  bool pool = name.rfind("pool_max", 0) == 0 || name.rfind("pool_sum", 0) == 0;
  bool depthwise = name.rfind("group_conv2d_nchw", 0) == 0;  // one input channel per group: checked below
  size_t nloops = pool ? 6 : 7;
  if ((!pool && !depthwise) || b->iter_vars.size() != nloops || !b->init) return false;
  Array<LoopRV> loops = sch.GetLoops(block);
  if (loops.size() != nloops) return false;
  std::vector<int64_t> extent = LoopExtents(sch, loops);
  for (size_t i = 1; i < nloops; ++i) {
    if (extent[i] < 1) return false;
  }
  if (depthwise && extent[4] != 1) return false;
  int64_t max_lanes = std::max(1, opt.vector_bits / std::max(1, b->writes[0]->buffer->dtype.bits()));
  int64_t lanes = 0;
  for (int64_t v = max_lanes; v >= 4 && lanes == 0; v /= 2) {
    if (extent[3] % v == 0) lanes = v;
  }
  if (lanes == 0) lanes = std::min(max_lanes, extent[3]);
  int64_t rows = extent[2] % 4 == 0 ? 4 : 1;
  for (int64_t r = 8; r >= 2 && rows == 1; --r) {
    if (extent[2] % r == 0) rows = r;
  }
  if (lanes < 2) return false;
  return ApplyOrRestore(sch_ptr, [&] {
    DeinterleavePaddedInput(&sch, block);
    Array<LoopRV> ys = SplitByKnob(sch, loops[2], extent[2], rows, 8, {}, opt);
    Array<LoopRV> xs = SplitByKnob(sch, loops[3], extent[3], lanes, 2 * max_lanes, {4, 8, 16}, opt);
    Array<LoopRV> order = {loops[0], loops[1], ys[0], xs[0]};
    for (size_t i = 4; i < nloops; ++i) order.push_back(loops[i]);
    order.push_back(ys[1]);
    order.push_back(xs[1]);
    sch.Reorder(order);
    // A fused epilogue (bias, activation) follows per tile.
    BlockRV write_back = CacheWriteTile(&sch, block, xs[0], true);
    BlockRV init = sch.DecomposeReduction(block, loops[4]);
    sch.Vectorize(xs[1]);
    sch.Unroll(ys[1]);
    Array<LoopRV> init_loops = sch.GetLoops(init);
    sch.Vectorize(init_loops[init_loops.size() - 1]);
    Array<LoopRV> wb_loops = sch.GetLoops(write_back);
    sch.Vectorize(wb_loops[wb_loops.size() - 1]);
    int64_t work = std::max<int64_t>(1, extent[0]);
    for (size_t i = 1; i < nloops; ++i) work *= extent[i];
    // The column-tile loop stays out of the fused parallel loop: with it, the
    // rows x lanes tile would not be contiguous along the fused iterations and
    // CompactBufferAllocation could not keep it per iteration (in registers).
    // With enough images x channels for the cores, the parallel loop is
    // theirs and each iteration pads its channel's plane (rows of a tile
    // overlap their neighbours'; whole planes do not); with few planes the
    // rows join the parallel loop and the padding stays one stage.
    const bool par = opt.num_cores > 1 && work >= opt.min_parallel_work;
    const bool planes = std::max<int64_t>(1, extent[0]) * extent[1] >= kPlanesPerCore * opt.num_cores;  // symbolic n: 1
    const bool per_plane =
        (!par || planes) && PadPerChannel(&sch, block, loops[0], loops[1], lanes, par, opt.strided_pad_copy);
    if (!per_plane && par) sch.Parallel(sch.Fuse({loops[0], loops[1], ys[0]}, true));
  });
}

}  // namespace tir
}  // namespace tessera
