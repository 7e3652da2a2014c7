// DefaultCPUSchedule's packed-panel matmul rule (see default_schedule_matmul.h):
// recognises the block by its loops and accesses only (any reduction with a
// matmul's access pattern qualifies) and drives the schedule primitives; any
// step refused restores the schedule and hands the block back to the
// generic reduction schedule.
#include "tir/transform/default_schedule_matmul.h"

#include <vector>

#include "tir/schedule/analysis.h"
#include "tir/transform/default_schedule_knobs.h"

namespace tessera {
namespace tir {
namespace {

// Parallel chunks wanted per core: enough to balance uneven tiles.
constexpr int64_t kChunksPerCore = 4;

struct MatmulShape {
  size_t n_loops = 0;  // batch loops, then i, j, k
  int b_read = -1;     // index of B among the block's reads
  int64_t m = 0, n = 0, k = 1;  // k: 1 when symbolic
  int64_t batch = 1;   // product of the constant batch extents
  bool b_is_panel = false;  // B is [..., k, j] with j its whole last dim
};

bool UsesIn(const BufferRegion& r, const VarNode* v) {
  for (const Range& rg : r->region) {
    if (UsesVar(rg->min, v) || UsesVar(rg->extent, v)) return true;
  }
  return false;
}

bool IsVarAt(const BufferRegion& r, size_t dim_from_end, const VarNode* v) {
  const Array<Range>& rg = r->region;
  if (rg.size() < dim_from_end + 1) return false;
  const Range& d = rg[rg.size() - 1 - dim_from_end];
  return d->min.get() == v && AsConstInt(d->extent) != nullptr && *AsConstInt(d->extent) == 1;
}

std::optional<MatmulShape> MatchMatmul(const Schedule& sch, const BlockRV& block) {
  BlockLocation loc = sch.LocateBlock(block, "default_schedule_matmul");
  const BlockNode* b = loc.block;
  size_t n = loc.loops.size();
  if (n < 3 || b->iter_vars.size() != n || loc.realize->iter_values.size() != n || b->writes.size() != 1) {
    return std::nullopt;
  }
  for (size_t l = 0; l < n; ++l) {
    const ForNode* loop = loc.loops[l];
    if (loop->kind != ForKind::kSerial || AsConstInt(loop->min) == nullptr || *AsConstInt(loop->min) != 0 ||
        loc.realize->iter_values[l].get() != loop->loop_var.get()) {
      return std::nullopt;
    }
    if (b->iter_vars[l]->iter_type != (l + 1 == n ? kCommReduce : kDataPar)) return std::nullopt;
  }
  const VarNode* vi = b->iter_vars[n - 3]->var.get();
  const VarNode* vj = b->iter_vars[n - 2]->var.get();
  const VarNode* vk = b->iter_vars[n - 1]->var.get();
  const BufferRegion& out = b->writes[0];
  if (out->buffer->dtype.lanes() != 1 || !IsVarAt(out, 0, vj) || !IsVarAt(out, 1, vi) || UsesIn(out, vk)) {
    return std::nullopt;
  }
  MatmulShape shape;
  int a_read = -1;
  for (size_t r = 0; r < b->reads.size(); ++r) {
    const BufferRegion& read = b->reads[r];
    if (read->buffer.same_as(out->buffer)) continue;
    bool ui = UsesIn(read, vi), uj = UsesIn(read, vj), uk = UsesIn(read, vk);
    if (ui && uk && !uj && a_read < 0) {
      a_read = static_cast<int>(r);
    } else if (uj && uk && !ui && shape.b_read < 0 && IsVarAt(read, 0, vj)) {
      shape.b_read = static_cast<int>(r);
    } else {
      return std::nullopt;
    }
  }
  const int64_t* m = AsConstInt(loc.loops[n - 3]->extent);
  const int64_t* nn = AsConstInt(loc.loops[n - 2]->extent);
  if (a_read < 0 || shape.b_read < 0 || m == nullptr || nn == nullptr) return std::nullopt;
  shape.n_loops = n;
  shape.m = *m;
  shape.n = *nn;
  if (const int64_t* k = AsConstInt(loc.loops[n - 1]->extent)) shape.k = std::max<int64_t>(1, *k);
  for (size_t l = 0; l + 3 < n; ++l) {
    if (const int64_t* c = AsConstInt(loc.loops[l]->extent)) shape.batch *= std::max<int64_t>(1, *c);
  }
  // A weight packed at build time (topi.matmul_packed: [N/c, K, c]) or any B
  // whose last dim is exactly J's extent: its K x J panel is rows of J
  // already, read in place instead of copied on every call when J is narrow.
  const BufferRegion& bread = b->reads[shape.b_read];
  const PrimExpr last_dim = bread->buffer->shape[bread->buffer->shape.size() - 1];
  const int64_t* last = AsConstInt(last_dim);
  shape.b_is_panel = last != nullptr && *last == shape.n && IsVarAt(bread, 1, vk);
  return shape;
}

// The consumers of `block`, their consumers, ... (each once, nearest first).
std::vector<BlockRV> ConsumerChain(const Schedule& sch, const BlockRV& block) {
  std::vector<BlockRV> out;
  std::vector<BlockRV> frontier{block};
  for (size_t depth = 0; depth < 8 && !frontier.empty(); ++depth) {
    std::vector<BlockRV> next;
    for (const BlockRV& b : frontier) {
      for (const BlockRV& c : sch.GetConsumers(b)) {
        bool seen = false;
        for (const BlockRV& o : out) seen = seen || sch.Get(o).same_as(sch.Get(c));
        if (!seen) {
          out.push_back(c);
          next.push_back(c);
        }
      }
    }
    frontier = std::move(next);
  }
  return out;
}

void VectorizeInnermost(const Schedule& sch, const BlockRV& block) {
  Array<LoopRV> loops = sch.GetLoops(block);
  if (!loops.empty()) sch.Vectorize(loops[loops.size() - 1]);
}

}  // namespace

bool ScheduleMatmulPacked(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  std::optional<MatmulShape> shape = MatchMatmul(sch, block);
  if (!shape) return false;
  Block b = sch.Get(block).cast<Block>();
  int bits = b->writes[0]->buffer->dtype.bits();
  int64_t lanes = bits > 0 ? std::max(1, opt.vector_bits / bits) : 1;
  if (lanes < 4) return false;
  // J: two vectors when they divide N (one otherwise); R: rows of the
  // register tile (R x J / lanes accumulators; 16 of 32 registers with AVX-512).
  int64_t cols = shape->n % (2 * lanes) == 0 ? 2 * lanes : shape->n % lanes == 0 ? lanes : 0;
  int64_t rows = 0;
  for (int64_t cand : opt.vector_bits >= 512 ? std::vector<int64_t>{8, 6, 4} : std::vector<int64_t>{4, 3, 2}) {
    if (rows == 0 && shape->m % cand == 0) rows = cand;
  }
  // No tile height divides M (33, 197): the last row tile is predicated.
  if (rows == 0 && shape->m >= 16) rows = opt.vector_bits >= 512 ? 8 : 4;
  if (cols == 0 || rows == 0) return false;
  return ApplyOrRestore(sch_ptr, [&] {
    size_t n = shape->n_loops;
    Array<LoopRV> loops = sch.GetLoops(block);
    Array<LoopRV> is = SplitByKnob(sch, loops[n - 3], shape->m, rows, 8, {2, 3, 4, 6, 8}, opt);
    Array<LoopRV> js = SplitByKnob(sch, loops[n - 2], shape->n, cols, 4 * lanes, {}, opt);
    // Row chunks beside the batch and column panels when those are too few
    // for the cores (each chunk packs its own panel).
    int64_t row_tiles = (shape->m + rows - 1) / rows, chunks = 1;
    while (shape->batch * (shape->n / cols) * chunks < kChunksPerCore * opt.num_cores && row_tiles % (chunks * 2) == 0) {
      chunks *= 2;
    }
    Array<LoopRV> outer;
    for (size_t l = 0; l + 3 < n; ++l) outer.push_back(loops[l]);
    LoopRV i0 = is[0];
    if (chunks > 1) {
      Array<LoopRV> parts = sch.Split(is[0], Array<Any>({Any(chunks), Any()}), true);
      outer.push_back(parts[0]);
      i0 = parts[1];
    }
    outer.push_back(js[0]);
    Array<LoopRV> order = outer;
    for (const LoopRV& l : {i0, loops[n - 1], is[1], js[1]}) order.push_back(l);
    sch.Reorder(order);
    std::optional<BlockRV> panel;
    // In place only when the rows are at most two vectors wide (a wider B is
    // strided across its panels and is copied).
    if (!shape->b_is_panel || shape->n > 2 * lanes) {
      panel = sch.CacheRead(block, shape->b_read, "global");
      sch.ComputeAt(*panel, js[0], true, -1);
    }
    BlockRV acc = sch.CacheWrite(block, 0, "local");
    sch.ReverseComputeAt(acc, i0, true, -1);
    BlockRV init = sch.DecomposeReduction(block, loops[n - 1]);
    sch.Vectorize(js[1]);
    sch.Unroll(is[1]);
    VectorizeInnermost(sch, init);
    VectorizeInnermost(sch, acc);
    if (panel) VectorizeInnermost(sch, *panel);
    // The elementwise epilogue (bias, activation, residual) runs on each
    // tile while it is in cache; a consumer that cannot move stays where it is.
    for (const BlockRV& c : ConsumerChain(sch, acc)) {
      ApplyOrRestore(&sch, [&] {
        sch.ReverseComputeAt(c, i0, true, -1);
        VectorizeInnermost(sch, c);
      });
    }
    int64_t work = shape->batch * shape->m * shape->n * shape->k;
    if (opt.num_cores > 1 && work >= opt.min_parallel_work) {
      LoopRV par = outer.size() > 1 ? sch.Fuse(outer, true) : outer[0];
      sch.Parallel(par);
    }
  });
}

// Legalization switch (python/tessera/relax/op/linear_algebra.py): False keeps
// relax.matmul with a constant weight on the plain kernel (panel copied per call).
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.matmul_packed", bool);

}  // namespace tir
}  // namespace tessera
