// DefaultCPUSchedule's Winograd rule (see default_schedule_winograd.h).
//   winograd_data_pack  V[eps, nu, c / cw, t, tx, cw]: [c / cw, t: fused, parallel] [tx]
//     [the tile's rows transform, computed here] [eps, nu] [cw: vectorized]
//   the final write (winograd_output inlined into the epilogue) Y[n, k, y, x]:
//     [n, k / w (, y / m with few panels): fused, parallel] [y / m] [x / m] [the tile's inverse, computed here]
//     [m: unrolled] [m: unrolled] [w: vectorized] (w the channel panel)
// Tiles per step (one by default) are knobs of the sampled form (default_schedule_knobs.h).
// The other stages take the generic rules (spatial: parallel outer, vectorized
// inner; the batched GEMM: the matmul rule). A refused step restores the schedule.
#include "tir/transform/default_schedule_winograd.h"

#include <vector>

#include "ir/transform.h"
#include "tir/transform/default_schedule_chunks.h"
#include "tir/transform/default_schedule_knobs.h"

namespace tessera {
namespace tir {
namespace {

constexpr const char* kPrefix = "winograd_";
constexpr const char* kDataPack = "winograd_data_pack";
constexpr const char* kDataPackRows = "winograd_data_pack_rows";
constexpr const char* kInverse = "winograd_inverse";

// The sampled form's largest tiles-per-step factor (column transform, NCHW write).
constexpr int64_t kMaxTilesPerStep = 4;

bool Spatial(const Block& b) {
  if (b->init || b->writes.size() != 1) return false;
  for (const IterVar& iv : b->iter_vars) {
    if (iv->iter_type != kDataPar) return false;
  }
  return true;
}

// The inverse-transform buffer the block reads (the final write's input), if any.
std::optional<Buffer> InverseRead(const Block& b) {
  for (const BufferRegion& r : b->reads) {
    if (r->buffer->name.starts_with(kInverse)) return r->buffer;
  }
  return std::nullopt;
}

void ParallelOuter(Schedule& sch, const Array<LoopRV>& outer, int64_t work, const DefaultCPUScheduleOptions& opt) {
  if (opt.num_cores <= 1 || work < opt.min_parallel_work) return;
  sch.Parallel(outer.size() > 1 ? sch.Fuse(outer, true) : outer[0]);
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t e : v) p *= std::max<int64_t>(e, 1);
  return p;
}

// The producer of `block` whose name starts with `prefix`, if any.
std::optional<BlockRV> ProducerNamed(const Schedule& sch, const BlockRV& block, const char* prefix) {
  for (const BlockRV& p : sch.GetProducers(block)) {
    if (sch.Get(p).cast<Block>()->name_hint.starts_with(prefix)) return p;
  }
  return std::nullopt;
}

void VectorizeInnermost(Schedule& sch, const BlockRV& block) {
  Array<LoopRV> loops = sch.GetLoops(block);
  if (!loops.empty() && LoopExtentOr(sch, loops[loops.size() - 1]) >= 4) sch.Vectorize(loops[loops.size() - 1]);
}

// A stage this rule claimed for its consumer's tile loop (rows transform,
// inverse), scheduled on its own when the consumer's step is refused:
// [first two loops: fused, parallel] ... [innermost: vectorized].
void ScheduleAlone(Schedule& sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  ApplyOrRestore(&sch, [&] {
    Array<LoopRV> l = sch.GetLoops(block);
    std::vector<int64_t> ext = LoopExtents(sch, l);
    VectorizeInnermost(sch, block);
    if (l.size() > 2 && ext[0] > 0) ParallelOuter(sch, {l[0], l[1]}, Product(ext), opt);
  });
}

// Computes `producer` under `loop` (its innermost loop vectorized); false
// (schedule unchanged) when refused.
bool ComputeUnder(Schedule& sch, const BlockRV& producer, const LoopRV& loop) {
  return ApplyOrRestore(&sch, [&] {
    sch.ComputeAt(producer, loop, true, -1);
    VectorizeInnermost(sch, producer);
  });
}

// Columns transform V[eps, nu, c / cw, t, tx, cw]: [c / cw, t: fused, parallel]
// [tx] [the tile's rows transform] [eps, nu] [cw: vectorized], so each tile's
// row-transformed input is computed and read in cache for all alpha^2 outputs.
void ScheduleDataPack(Schedule& sch, const BlockRV& block, const std::optional<BlockRV>& rows,
                      const DefaultCPUScheduleOptions& opt) {
  Array<LoopRV> l = sch.GetLoops(block);  // eps, nu, cb, t, tx, ci
  std::vector<int64_t> ext = LoopExtents(sch, l);
  // Tiles per step (a knob of the sampled form; one by default, a unit loop).
  Array<LoopRV> txs = SplitByKnob(sch, l[4], ext[4], 1, kMaxTilesPerStep, {}, opt);
  sch.Reorder({l[2], l[3], txs[0], txs[1], l[0], l[1], l[5]});
  if (ext[5] >= 4) sch.Vectorize(l[5]);
  if (rows && !ComputeUnder(sch, *rows, txs[0])) ScheduleAlone(sch, *rows, opt);
  ParallelOuter(sch, {l[2], l[3]}, Product(ext), opt);
}

// The NCHW write Y[n, k, y, x] of m x m tiles: [n, k / w (, y / m when n * k / w
// is under WantedParallelChunks): fused, parallel]
// [y / m] [x / m] [the tile's inverse (A^T along nu)] [m] [m] [w: vectorized],
// w the inverse's channel panel: one tile step reads whole vectors of the
// inverse, computed there from the GEMM's output, instead of one value a line.
void ScheduleFinalWrite(Schedule& sch, const BlockRV& block, int64_t m, int64_t width,
                        const std::optional<BlockRV>& inverse, const DefaultCPUScheduleOptions& opt) {
  Array<LoopRV> l = sch.GetLoops(block);  // n, k, y, x
  std::vector<int64_t> ext = LoopExtents(sch, l);
  Array<LoopRV> ks = sch.Split(l[1], Array<Any>({Any(), Any(width)}), true);
  Array<LoopRV> ys = sch.Split(l[2], Array<Any>({Any(), Any(m)}), true);
  Array<LoopRV> xs = sch.Split(l[3], Array<Any>({Any(), Any(m)}), true);
  // Output tiles per step along x (a knob of the sampled form; one by default, a unit loop).
  Array<LoopRV> xt = SplitByKnob(sch, xs[0], LoopExtentOr(sch, xs[0]), 1, kMaxTilesPerStep, {}, opt);
  sch.Reorder({ks[0], ys[0], xt[0], xt[1], ys[1], xs[1], ks[1]});
  sch.Unroll(ys[1]);
  sch.Unroll(xs[1]);
  sch.Vectorize(ks[1]);
  if (inverse && !ComputeUnder(sch, *inverse, xt[0])) ScheduleAlone(sch, *inverse, opt);
  // Too few [n, k / w] panels for the cores (e.g. 2 for 64 channels, batch 1):
  // the tile rows join the parallel loop.
  const int64_t panels = ext[0] * LoopExtentOr(sch, ks[0]);
  if (ext[0] > 0 && panels > 0 && panels < WantedParallelChunks(opt)) {
    ParallelOuter(sch, {l[0], ks[0], ys[0]}, Product(ext), opt);
  } else if (ext[0] > 0) {
    ParallelOuter(sch, {l[0], ks[0]}, Product(ext), opt);
  }
}

}  // namespace

bool KeepWinogradStage(const std::string& name) { return name.starts_with(kPrefix) && name != "winograd_output"; }

bool ScheduleWinograd(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  const std::string& name = b->name_hint;
  if (!Spatial(b)) return false;
  // The rows transform and the inverse are claimed here and computed under
  // their consumer's tile loop when this rule takes the consumer (next).
  if (name.starts_with(kDataPackRows) || name.starts_with(kInverse)) return true;
  const bool data_pack = name.starts_with(kDataPack);
  std::optional<Buffer> inverse = data_pack ? std::nullopt : InverseRead(b);
  if (!data_pack && !inverse) return false;
  std::optional<BlockRV> producer = ProducerNamed(sch, block, data_pack ? kDataPackRows : kInverse);
  const size_t want = data_pack ? 6 : 4;
  // m and the channel panel w: the inverse's dims 1 and 4 ([alpha, m, K / w, tiles, w]).
  int64_t m = 0, width = 0;
  if (inverse && (*inverse)->shape.size() == 5) {
    const PrimExpr tile = (*inverse)->shape[1], panel = (*inverse)->shape[4];
    if (AsConstInt(tile) != nullptr && AsConstInt(panel) != nullptr) {
      m = *AsConstInt(tile);
      width = *AsConstInt(panel);
    }
  }
  const bool applied = ApplyOrRestore(sch_ptr, [&] {
    if (b->iter_vars.size() != want || sch.GetLoops(block).size() != want || (inverse && m == 0)) {
      throw Error("not the Winograd stage's form");
    }
    if (data_pack) {
      ScheduleDataPack(sch, block, producer, opt);
    } else {
      ScheduleFinalWrite(sch, block, m, width, producer, opt);
    }
  });
  if (!applied && producer) ScheduleAlone(sch, *producer, opt);
  return applied;
}

// Legalization switch (python/tessera/relax/op/nn/convolution.py): True takes
// Winograd for every legal 3x3 conv2d, False for none; unset, the shapes
// where it measured faster than the packed kernel.
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.conv2d_winograd", bool);

}  // namespace tir
}  // namespace tessera
