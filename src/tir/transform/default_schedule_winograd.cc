// DefaultCPUSchedule's Winograd rule (see default_schedule_winograd.h).
//   winograd_data_pack  V[eps, nu, c / cw, t, tx, cw]: [c / cw, t: fused, parallel] [tx] [eps, nu]
//     [cw: vectorized] (each tile's row-transformed input is read once, in cache, for all alpha^2 outputs)
//   the final write (winograd_output inlined into the epilogue) Y[n, k, y, x]:
//     [n, k: fused, parallel] [y / m] [x / m] [m: unrolled] [m: unrolled]
//     (one m x m output tile per step: its alpha x m inverse values loaded once, no div/mod)
// The other stages take the generic rules (spatial: parallel outer, vectorized
// inner; the batched GEMM: the matmul rule). A refused step restores the schedule.
#include "tir/transform/default_schedule_winograd.h"

#include <vector>

#include "ir/transform.h"
#include "tir/transform/default_schedule_knobs.h"

namespace tessera {
namespace tir {
namespace {

constexpr const char* kPrefix = "winograd_";
constexpr const char* kDataPack = "winograd_data_pack";
constexpr const char* kDataPackRows = "winograd_data_pack_rows";
constexpr const char* kInverse = "winograd_inverse";

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<int64_t> Extents(const Schedule& sch, const Array<LoopRV>& loops) {
  std::vector<int64_t> out;
  for (const LoopRV& l : loops) out.push_back(LoopExtentOr(sch, l));
  return out;
}

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
    if (StartsWith(r->buffer->name, kInverse)) return r->buffer;
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

// Columns transform V[eps, nu, c / cw, t, tx, cw]: [c / cw, t: fused, parallel]
// [tx] [eps, nu] [cw: vectorized], so each tile's row-transformed input is read
// once, in cache, for all alpha^2 outputs.
void ScheduleDataPack(Schedule& sch, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Array<LoopRV> l = sch.GetLoops(block);  // eps, nu, cb, t, tx, ci
  std::vector<int64_t> ext = Extents(sch, l);
  sch.Reorder({l[2], l[3], l[4], l[0], l[1], l[5]});
  if (ext[5] >= 4) sch.Vectorize(l[5]);
  ParallelOuter(sch, {l[2], l[3]}, Product(ext), opt);
}

// The NCHW write Y[n, k, y, x] of m x m tiles: [n, k / w: fused, parallel]
// [y / m] [x / m] [w] [m] [m], w the inverse's channel panel, so one tile step
// reads whole lines of the inverse ([.., tile, w]) instead of one value a line.
void ScheduleFinalWrite(Schedule& sch, const BlockRV& block, int64_t m, int64_t width,
                        const DefaultCPUScheduleOptions& opt) {
  Array<LoopRV> l = sch.GetLoops(block);  // n, k, y, x
  std::vector<int64_t> ext = Extents(sch, l);
  Array<LoopRV> ks = sch.Split(l[1], Array<Any>({Any(), Any(width)}), true);
  Array<LoopRV> ys = sch.Split(l[2], Array<Any>({Any(), Any(m)}), true);
  Array<LoopRV> xs = sch.Split(l[3], Array<Any>({Any(), Any(m)}), true);
  sch.Reorder({ks[0], ys[0], xs[0], ys[1], xs[1], ks[1]});
  sch.Unroll(ys[1]);
  sch.Unroll(xs[1]);
  sch.Vectorize(ks[1]);
  if (ext[0] > 0) ParallelOuter(sch, {l[0], ks[0]}, Product(ext), opt);
}

}  // namespace

bool KeepWinogradStage(const std::string& name) { return StartsWith(name, kPrefix) && name != "winograd_output"; }

bool ScheduleWinograd(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  const std::string& name = b->name_hint;
  const bool data_pack = StartsWith(name, kDataPack) && !StartsWith(name, kDataPackRows);
  std::optional<Buffer> inverse = data_pack ? std::nullopt : InverseRead(b);
  if (!Spatial(b) || (!data_pack && !inverse)) return false;
  const size_t want = data_pack ? 6 : 4;
  if (b->iter_vars.size() != want || sch.GetLoops(block).size() != want) return false;
  // m and the channel panel w: the inverse's dims 1 and 4 ([alpha, m, K / w, tiles, w]).
  int64_t m = 0, width = 0;
  if (inverse) {
    if ((*inverse)->shape.size() != 5) return false;
    const PrimExpr tile = (*inverse)->shape[1], panel = (*inverse)->shape[4];
    if (AsConstInt(tile) == nullptr || AsConstInt(panel) == nullptr) return false;
    m = *AsConstInt(tile);
    width = *AsConstInt(panel);
  }
  Schedule backup = sch.Copy();
  try {
    if (data_pack) {
      ScheduleDataPack(sch, block, opt);
    } else {
      ScheduleFinalWrite(sch, block, m, width, opt);
    }
  } catch (const Error&) {
    sch = backup;
    return false;
  }
  return true;
}

// Legalization switch (python/tessera/relax/op/nn/convolution.py): True takes
// Winograd for every legal 3x3 conv2d, False for none; unset, the shapes
// where it measured faster than the packed kernel.
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.conv2d_winograd", bool);

}  // namespace tir
}  // namespace tessera
