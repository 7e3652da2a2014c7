// SchedulePool2d (see default_schedule_pool.h). The block
//   out[n, c, y, x] = max/sum over (r, s) of pad[n, c, y*sh + r, x*sw + s]
// (or a depthwise conv2d's sum of pad[...] * W[c, 0, r, s], with its fused
// epilogue computed per tile)
// becomes
//   [n, c, y / R: fused, parallel] [x / V]
//     [init] [r, s] [R rows: unrolled] [V columns: vectorized] [write-back]
// with V the widest of 16/8/4 lanes (as the target allows) dividing the
// output width (the widest, with a guarded tail, when none does) and R 4 or
// 2 rows when they divide the height. The padding stage stays a separate
// loop (inlined, its select per read measured slower). A refused step restores the schedule and the generic rules take over.
#include "tir/transform/default_schedule_pool.h"

#include "tir/transform/default_schedule_conv.h"

namespace tessera {
namespace tir {

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
  std::vector<int64_t> extent;
  for (const LoopRV& l : loops) {
    const int64_t* c = AsConstInt(sch.Get(l).cast<For>()->extent);
    extent.push_back(c != nullptr ? *c : -1);
  }
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
  int64_t rows = extent[2] % 4 == 0 ? 4 : extent[2] % 2 == 0 ? 2 : 1;
  if (lanes < 2) return false;
  Schedule backup = sch.Copy();
  try {
    Array<LoopRV> ys = sch.Split(loops[2], Array<Any>({Any(), Any(rows)}), true);
    Array<LoopRV> xs = sch.Split(loops[3], Array<Any>({Any(), Any(lanes)}), true);
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
    if (opt.num_cores > 1 && work >= opt.min_parallel_work) sch.Parallel(sch.Fuse({loops[0], loops[1], ys[0]}, true));
  } catch (const Error&) {
    sch = backup;
    return false;
  }
  return true;
}

}  // namespace tir
}  // namespace tessera
