// SchedulePool2d (see default_schedule_pool.h). The block
//   out[n, c, y, x] = max/sum over (r, s) of pad[n, c, y*sh + r, x*sw + s]
// becomes
//   [n, c, y / R, x / V: fused, parallel]
//     [init] [r, s] [R rows: unrolled] [V columns: vectorized] [write-back]
// with V the widest of 16/8/4 lanes (as the target allows) dividing the
// output width (the widest, with a guarded tail, when none does) and R 4 or
// 2 rows when they divide the height. The padding stage stays a separate
// loop (inlined, its select per read measured slower). A refused step restores the schedule and the generic rules take over.
#include "tir/transform/default_schedule_pool.h"

namespace tessera {
namespace tir {

bool SchedulePool2d(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  const std::string& name = b->name_hint;
  if ((name.rfind("pool_max", 0) != 0 && name.rfind("pool_sum", 0) != 0) || b->iter_vars.size() != 6 || !b->init) {
    return false;
  }
  Array<LoopRV> loops = sch.GetLoops(block);
  if (loops.size() != 6) return false;
  std::vector<int64_t> extent;
  for (const LoopRV& l : loops) {
    const int64_t* c = AsConstInt(sch.Get(l).cast<For>()->extent);
    extent.push_back(c != nullptr ? *c : -1);
  }
  for (size_t i = 1; i < 6; ++i) {
    if (extent[i] < 1) return false;
  }
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
    sch.Reorder({loops[0], loops[1], ys[0], xs[0], loops[4], loops[5], ys[1], xs[1]});
    BlockRV write_back = sch.CacheWrite(block, 0, "local");
    sch.ReverseComputeAt(write_back, xs[0], true, -1);
    BlockRV init = sch.DecomposeReduction(block, loops[4]);
    sch.Vectorize(xs[1]);
    sch.Unroll(ys[1]);
    Array<LoopRV> init_loops = sch.GetLoops(init);
    sch.Vectorize(init_loops[init_loops.size() - 1]);
    Array<LoopRV> wb_loops = sch.GetLoops(write_back);
    sch.Vectorize(wb_loops[wb_loops.size() - 1]);
    int64_t work = std::max<int64_t>(1, extent[0]) * extent[1] * extent[2] * extent[3] * extent[4] * extent[5];
    if (opt.num_cores > 1 && work >= opt.min_parallel_work) sch.Parallel(sch.Fuse({loops[0], loops[1], ys[0], xs[0]}, true));
  } catch (const Error&) {
    sch = backup;
    return false;
  }
  return true;
}

}  // namespace tir
}  // namespace tessera
