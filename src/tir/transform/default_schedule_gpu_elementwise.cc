// DefaultGPUSchedule's one-thread-per-output rule (see default_gpu_schedule.h):
// elementwise and injective blocks, and (correctness first) reductions and
// conv2d, whose reduction loops run serially in the thread. The block's
// spatial loops go outside its reduction loops, are fused, split by the thread
// count (a non-dividing split is guarded by a predicate) and bound to
// blockIdx.x / threadIdx.x. An elementwise block storing 32-bit values along
// its innermost loop (extent a multiple of 4) gets 4 of them per thread in a
// vectorized loop: 128-bit loads and stores (CodeGenCUDA's float4 accesses).
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

namespace {

constexpr int64_t kVectorLanes = 4;  // 4 x 32 bits: one 128-bit load / store (float4, int4)

// kVectorLanes when `innermost` (the block's last spatial loop, the last of its loops) can be vectorized
// into 128-bit accesses: the block stores one 32-bit value whose last index is that loop's variable
// alone, and the loop's constant extent is a multiple of kVectorLanes; else 1.
int64_t VectorLanes(const Schedule& sch, const Block& b, const BlockLocation& loc, const LoopRV& innermost) {
  const auto* store = b->body.as<BufferStoreNode>();
  if (!store || b->init || b->writes.size() != 1 || loc.loops.empty() || store->indices.empty()) return 1;
  DataType t = store->buffer->dtype;
  if (t.bits() != 32 || t.lanes() != 1 || !(t.is_float() || t.is_int() || t.is_uint())) return 1;
  const For loop = sch.Get(innermost).cast<For>();
  if (loop.get() != loc.loops.back()) return 1;
  const int64_t* extent = AsConstInt(loop->extent);
  if (!extent || *extent % kVectorLanes != 0 || !IsConstInt(loop->min, 0)) return 1;
  const VarNode* last = store->indices.back().as<VarNode>();
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i]->var.get() == last) {
      return loc.realize->iter_values[i].get() == loop->loop_var.get() ? kVectorLanes : 1;
    }
  }
  return 1;
}

}  // namespace

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
    if (reduce.empty() && VectorLanes(sch, b, *loc, spatial.back()) > 1) {
      // 128-bit accesses: the innermost loop split by 4 and vectorized inside each thread.
      // (vectorized first: a non-dividing thread split's predicate would make the bindings non-affine)
      Array<LoopRV> parts = sch.Split(spatial.back(), Array<Any>({Any(), Any(kVectorLanes)}), true);
      sch.Vectorize(parts[1]);
      Array<LoopRV> outer = LoopSlice(spatial, 0, spatial.size() - 1);
      outer.push_back(parts[0]);
      BindOneThreadPerIteration(&sch, outer.size() > 1 ? sch.Fuse(outer, true) : outer[0], opt);
      return true;
    }
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
