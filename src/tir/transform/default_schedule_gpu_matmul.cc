// DefaultGPUSchedule's matmul rule (see default_gpu_schedule.h): matmul,
// dense and batch_matmul blocks with extents the tiles divide:
//   [batch: fused, blockIdx.z] [i0: blockIdx.y] [j0: blockIdx.x]
//     [i1: threadIdx.y] [j1: threadIdx.x]
//       [init of the reg x reg tile]
//       [k0]  [A, B tiles of the block -> "shared", fetched by all threads]
//             [k1] [i2] [j2]   the reg x reg accumulators, in "local"
//       [write-back of the tile]
// Blocks that do not match, or whose extents the tiles do not divide, keep
// one thread per output (default_schedule_gpu_elementwise.cc).
#include "tir/transform/default_gpu_schedule.h"

#include "tir/op.h"
#include "tir/schedule/analysis.h"

namespace tessera {
namespace tir {
namespace {

// The buffer read index of the operand whose last two region dimensions are
// (row var, k var) or (k var, row var); -1 when none.
int OperandIndex(const Block& b, const VarNode* a, const VarNode* k, const BufferRegion& skip) {
  for (size_t r = 0; r < b->reads.size(); ++r) {
    const BufferRegion& read = b->reads[r];
    if (read->buffer.same_as(skip->buffer) || read->region.size() < 2) continue;
    size_t n = read->region.size();
    const VarNode* x = read->region[n - 2]->min.as<VarNode>();
    const VarNode* y = read->region[n - 1]->min.as<VarNode>();
    if ((x == a && y == k) || (x == k && y == a)) return static_cast<int>(r);
  }
  return -1;
}

}  // namespace

bool ScheduleGPUMatmul(Schedule* sch_ptr, const BlockRV& block, const DefaultGPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  if (b->writes.size() != 1 || b->reads.size() < 2 || b->reads.size() > 3 || !b->init) return false;
  std::optional<BlockLocation> loc = FindBlock(sch.FuncOf(sch->func_name), b->name_hint);
  if (!loc || loc->loops.size() != b->iter_vars.size()) return false;
  size_t n = b->iter_vars.size();
  if (n < 3 || b->iter_vars[n - 1]->iter_type != kCommReduce) return false;
  for (size_t i = 0; i + 1 < n; ++i) {
    if (b->iter_vars[i]->iter_type != kDataPar) return false;
  }
  for (size_t i = 0; i < n; ++i) {
    if (loc->realize->iter_values[i].get() != loc->loops[i]->loop_var.get() || !IsConstInt(loc->loops[i]->min, 0)) {
      return false;
    }
  }
  // C[b.., i, j]: written at the spatial variables in order.
  const BufferRegion& out = b->writes[0];
  if (out->region.size() != n - 1) return false;
  for (size_t d = 0; d + 1 < n; ++d) {
    if (out->region[d]->min.get() != b->iter_vars[d]->var.get()) return false;
  }
  const VarNode* vi = b->iter_vars[n - 3]->var.get();
  const VarNode* vj = b->iter_vars[n - 2]->var.get();
  const VarNode* vk = b->iter_vars[n - 1]->var.get();
  int a_index = OperandIndex(b, vi, vk, out);
  int b_index = OperandIndex(b, vj, vk, out);
  if (a_index < 0 || b_index < 0 || a_index == b_index) return false;
  const int64_t ty = opt.matmul_threads_y, tx = opt.matmul_threads_x, reg = opt.matmul_reg, kt = opt.matmul_k;
  const int64_t* m = AsConstInt(loc->loops[n - 3]->extent);
  const int64_t* nn = AsConstInt(loc->loops[n - 2]->extent);
  const int64_t* kk = AsConstInt(loc->loops[n - 1]->extent);
  if (!m || !nn || !kk || *m % (ty * reg) != 0 || *nn % (tx * reg) != 0 || *kk % kt != 0) return false;

  return ApplyOrRestore(sch_ptr, [&] {
    // The operand buffers, by name: cache_write adds a read-free block, the
    // read indices of `block` stay.
    BlockRV c_local = sch.CacheWrite(block, 0, "local");
    Array<LoopRV> loops = sch.GetLoops(block);
    Array<LoopRV> batch = LoopSlice(loops, 0, n - 3);
    Array<LoopRV> is = sch.Split(loops[n - 3], Array<Any>({Any(), Any(ty), Any(reg)}), true);
    Array<LoopRV> js = sch.Split(loops[n - 2], Array<Any>({Any(), Any(tx), Any(reg)}), true);
    Array<LoopRV> ks = sch.Split(loops[n - 1], Array<Any>({Any(), Any(kt)}), true);
    Array<LoopRV> order = batch;
    for (const LoopRV& l : {is[0], js[0], is[1], js[1], ks[0], ks[1], is[2], js[2]}) order.push_back(l);
    sch.Reorder(order);
    if (!batch.empty()) sch.Bind(batch.size() > 1 ? sch.Fuse(batch, true) : batch[0], "blockIdx.z");
    sch.Bind(is[0], "blockIdx.y");
    sch.Bind(js[0], "blockIdx.x");
    sch.Bind(is[1], "threadIdx.y");
    sch.Bind(js[1], "threadIdx.x");
    sch.ReverseComputeAt(c_local, js[1], true, -1);
    // Cooperative fetch of each operand's tile at k0: its loops fused and
    // spread over the block's ty x tx threads.
    for (int index : {a_index, b_index}) {
      BlockRV shared = sch.CacheRead(block, index, "shared");
      sch.ComputeAt(shared, ks[0], true, -1);
      size_t outer = sch.GetLoops(block).size() - 3;  // the loops down to k0 (the block's: k1, i2, j2 below)
      BindCooperativeFetch(&sch, shared, outer, {{ty, "threadIdx.y"}, {tx, "threadIdx.x"}});
    }
    sch.DecomposeReduction(block, ks[0]);
    sch.Unroll(ks[1]);
    return true;
  });
}

}  // namespace tir
}  // namespace tessera
