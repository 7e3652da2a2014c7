// DefaultGPUSchedule's one-thread-per-output rule (see default_gpu_schedule.h):
// elementwise and injective blocks, and (correctness first) reductions and
// conv2d, whose reduction loops run serially in the thread. The block's
// spatial loops go outside its reduction loops, are fused, split by the thread
// count (a non-dividing split is guarded by a predicate) and bound to
// blockIdx.x / threadIdx.x.
#include "tir/transform/default_gpu_schedule.h"

#include "tir/op.h"
#include "tir/schedule/analysis.h"

namespace tessera {
namespace tir {

void BindOneThreadPerIteration(Schedule* sch, const LoopRV& loop, const DefaultGPUScheduleOptions& opt) {
  int64_t threads = opt.max_threads;
  if (const int64_t* c = AsConstInt(sch->Get(loop).cast<For>()->extent); c != nullptr && *c < threads) {
    threads = std::max<int64_t>(*c, 1);
  }
  Array<LoopRV> parts = sch->Split(loop, Array<Any>({Any(), Any(threads)}), true);
  sch->Bind(parts[0], "blockIdx.x");
  sch->Bind(parts[1], "threadIdx.x");
}

bool ScheduleGPUThreadPerOutput(Schedule* sch_ptr, const BlockRV& block, const DefaultGPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  return ApplyOrRestore(sch_ptr, [&] {
    Array<LoopRV> loops = sch.GetLoops(block);
    Block b = sch.Get(block).cast<Block>();
    std::optional<BlockLocation> loc = FindBlock(sch.FuncOf(sch->func_name), b->name_hint);
    if (!loc) return false;
    // Each loop is spatial or reduce by the iteration variables whose binding uses it.
    Array<LoopRV> spatial, reduce;
    for (const LoopRV& l : loops) {
      const VarNode* lv = sch.Get(l).cast<For>()->loop_var.get();
      bool is_reduce = false, used = false;
      for (size_t i = 0; i < loc->realize->iter_values.size(); ++i) {
        if (UsesVar(loc->realize->iter_values[i], lv)) {
          used = true;
          is_reduce = is_reduce || b->iter_vars[i]->iter_type != kDataPar;
        }
      }
      if (used) (is_reduce ? reduce : spatial).push_back(l);
    }
    if (spatial.empty()) return false;
    if (!reduce.empty()) {
      Array<LoopRV> order = spatial;
      for (const LoopRV& l : reduce) order.push_back(l);
      sch.Reorder(order);
    }
    BindOneThreadPerIteration(&sch, spatial.size() > 1 ? sch.Fuse(spatial, true) : spatial[0], opt);
    return true;
  });
}

}  // namespace tir
}  // namespace tessera
