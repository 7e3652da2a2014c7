// DefaultGPUSchedule's windowed-reduction rule (see default_gpu_schedule.h):
// an NCHW convolution block out[b, f, y, x] += in[b, ch, y*sh + ry*dh, x*sw + rx*dw]
// * w[f, rc, ry, rx] (topi.nn.group_conv2d_nchw: plain, strided, padded, grouped,
// depthwise). Per thread block an output tile of Ft channels x Yt x Xt pixels:
//   [b, f0: blockIdx.z] [y0: blockIdx.y] [x0: blockIdx.x] [f1: threadIdx.z] [y1: threadIdx.y] [x1: threadIdx.x]
//     [init of the thread's reg output channels x 2 columns, "local"]
//     [rc0] [input window (its pad stage) and weights of rc1 channels -> "shared", fetched by all threads]
//           [rc1] [ry] [rx] [f2: reg] [x2: 2]   the accumulators (window loops unrolled)
//     [write-back (and the fused epilogue)]
// Runs before producers are inlined (the pad stage becomes the shared window).
#include <algorithm>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/transform/default_gpu_schedule.h"

namespace tessera {
namespace tir {
namespace {

constexpr int64_t kMaxSpatialThreads = 64;  // Yt * Xt
constexpr int64_t kMinSpatialThreads = 8;
constexpr int64_t kMaxTileX = 16;
constexpr int64_t kMaxReg = 4;              // output channels per thread
constexpr int64_t kRegX = 2;                // output columns per thread
constexpr int64_t kMaxChannelStep = 8;      // rc1
constexpr int64_t kMaxSharedBytes = 40 * 1024;
constexpr int64_t kMinBlocks = 128;         // below this, fewer channels per thread (more thread blocks)

int64_t LargestDivisorAtMost(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

// The spatial tile (Yt, Xt): divisors of (Ho, Wo), Xt <= kMaxTileX, the most
// pixels up to kMaxSpatialThreads, then the squarest (least halo).
std::pair<int64_t, int64_t> SpatialTile(int64_t ho, int64_t wo, int64_t max_threads) {
  std::pair<int64_t, int64_t> best{1, 1};
  const int64_t most = std::min(kMaxSpatialThreads, max_threads);
  for (int64_t xt = 1; xt <= std::min({wo, kMaxTileX, most}); ++xt) {
    if (wo % xt) continue;
    int64_t yt = LargestDivisorAtMost(ho, most / xt);
    int64_t area = yt * xt, best_area = best.first * best.second;
    if (area > best_area || (area == best_area && std::abs(yt - xt) < std::abs(best.first - best.second))) {
      best = {yt, xt};
    }
  }
  return best;
}

const VarNode* VarOf(const PrimExpr& e) { return e.as<VarNode>(); }

struct ConvMatch {
  int data_index = -1, weight_index = -1;
  int64_t n = 0, k = 0, ho = 0, wo = 0, cpg = 0, kh = 0, kw = 0;
  int64_t channels = 0, h = 0, w = 0;     // the (padded) input's
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;  // strides and dilations, read off the input index
  int64_t bytes = 4;
};

// The block's shape when it is an NCHW convolution in TE's loop order; nullopt otherwise.
std::optional<ConvMatch> MatchConv(const Schedule& sch, const Block& b) {
  if (!b->init || b->writes.size() != 1 || b->reads.size() != 2 || b->iter_vars.size() != 7) return std::nullopt;
  std::optional<BlockLocation> loc = FindBlock(sch.FuncOf(sch->func_name), b->name_hint);
  if (!loc || loc->loops.size() != 7) return std::nullopt;
  int64_t ext[7];
  for (size_t i = 0; i < 7; ++i) {
    if ((b->iter_vars[i]->iter_type == kDataPar) != (i < 4)) return std::nullopt;
    if (i >= 4 && b->iter_vars[i]->iter_type != kCommReduce) return std::nullopt;
    const int64_t* e = AsConstInt(loc->loops[i]->extent);
    if (loc->realize->iter_values[i].get() != loc->loops[i]->loop_var.get() || !IsConstInt(loc->loops[i]->min, 0) ||
        !e || *e < 1) {
      return std::nullopt;
    }
    ext[i] = *e;
  }
  auto var = [&](size_t i) { return b->iter_vars[i]->var.get(); };
  const BufferRegion& out = b->writes[0];
  if (out->region.size() != 4) return std::nullopt;
  for (size_t d = 0; d < 4; ++d) {
    if (VarOf(out->region[d]->min) != var(d)) return std::nullopt;
  }
  ConvMatch m;
  for (size_t r = 0; r < 2; ++r) {
    const BufferRegion& read = b->reads[r];
    if (read->region.size() != 4) return std::nullopt;
    const VarNode* first = VarOf(read->region[0]->min);
    if (first == var(1) && VarOf(read->region[1]->min) == var(4) && VarOf(read->region[2]->min) == var(5) &&
        VarOf(read->region[3]->min) == var(6)) {
      m.weight_index = static_cast<int>(r);
    } else if (first == var(0) && UsesVar(read->region[2]->min, var(2)) && UsesVar(read->region[2]->min, var(5)) &&
               UsesVar(read->region[3]->min, var(3)) && UsesVar(read->region[3]->min, var(6))) {
      m.data_index = static_cast<int>(r);
    }
  }
  if (m.data_index < 0 || m.weight_index < 0) return std::nullopt;
  m.n = ext[0], m.k = ext[1], m.ho = ext[2], m.wo = ext[3], m.cpg = ext[4], m.kh = ext[5], m.kw = ext[6];
  const Buffer& data = b->reads[m.data_index]->buffer;
  m.bytes = std::max(1, data->dtype.bytes());
  const PrimExpr ce = data->shape[1], he = data->shape[2], we = data->shape[3];
  const int64_t *c = AsConstInt(ce), *h = AsConstInt(he), *w = AsConstInt(we);
  if (!c || !h || !w || *c % m.cpg != 0) return std::nullopt;
  m.channels = *c, m.h = *h, m.w = *w;
  // The coefficient of `v` in the index `e` (the difference of e at v = 1 and v = 0, others 0).
  auto coefficient = [&](const PrimExpr& e, const VarNode* v) -> int64_t {
    auto at = [&](int64_t value) {
      return Substitute(e, [&](const Var& x) -> std::optional<PrimExpr> {
        return IntImm(x.dtype(), x.get() == v ? value : 0);
      });
    };
    arith::Analyzer analyzer;
    PrimExpr diff = analyzer.Simplify(at(1) - at(0));
    const int64_t* d = AsConstInt(diff);
    return d && *d >= 1 ? *d : -1;
  };
  const BufferRegion& in = b->reads[m.data_index];
  m.sh = coefficient(in->region[2]->min, var(2)), m.dh = coefficient(in->region[2]->min, var(5));
  m.sw = coefficient(in->region[3]->min, var(3)), m.dw = coefficient(in->region[3]->min, var(6));
  if (m.sh < 0 || m.dh < 0 || m.sw < 0 || m.dw < 0) return std::nullopt;
  return m;
}

// The block writing `buffer` (an intermediate such as the pad stage), if one does.
std::optional<BlockRV> ProducerOf(const Schedule& sch, const BlockRV& block, const Buffer& buffer) {
  for (const BlockRV& p : sch.GetProducers(block)) {
    Block pb = sch.Get(p).cast<Block>();
    if (pb->writes.size() == 1 && pb->writes[0]->buffer.same_as(buffer) && !pb->init) return p;
  }
  return std::nullopt;
}

}  // namespace

bool ScheduleGPUConv(Schedule* sch_ptr, const BlockRV& block, const DefaultGPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  std::optional<ConvMatch> m = MatchConv(sch, b);
  if (!m) return false;
  // Two adjacent output columns per thread when the width allows (each weight read from shared serves two FMAs).
  const int64_t xr = (m->wo % kRegX == 0 && m->wo / kRegX >= 4) ? kRegX : 1;
  auto [yt, xt] = SpatialTile(m->ho, m->wo / xr, opt.max_threads);
  // A tiny output image (1x1, 2x2: a GEMV in disguise) leaves the block nearly empty: other rules do better.
  if (yt * xt < kMinSpatialThreads) return false;
  int64_t reg = kMaxReg;
  while (reg > 1 && m->k % reg) reg /= 2;
  int64_t tf = 1;
  while (tf * 2 * yt * xt <= opt.max_threads && tf < 32 && m->k % (tf * 2 * reg) == 0) tf *= 2;
  // Small grids (late layers, 7x7): fewer channels per thread, more thread blocks.
  auto blocks = [&] { return m->n * (m->k / (tf * reg)) * (m->ho / yt) * (m->wo / (xt * xr)); };
  while (reg > 1 && blocks() < kMinBlocks) reg /= 2;
  const int64_t ft = tf * reg;
  int64_t rc1 = LargestDivisorAtMost(m->cpg, kMaxChannelStep);
  // Shared bytes: the window of rc1 channels per group the tile touches, and the tile's weights.
  const int64_t groups = std::max<int64_t>(1, m->channels / m->cpg), opg = std::max<int64_t>(1, m->k / groups);
  const int64_t touched = groups == 1 ? 1 : std::min(groups, (ft + opg - 1) / opg + 1);
  const int64_t rows = std::min(m->h, (yt - 1) * m->sh + (m->kh - 1) * m->dh + 1);
  const int64_t cols = std::min(m->w, (xt * xr - 1) * m->sw + (m->kw - 1) * m->dw + 1);
  auto shared_bytes = [&](int64_t step) {
    return (step * touched * rows * cols + ft * step * m->kh * m->kw) * m->bytes;
  };
  while (rc1 > 1 && shared_bytes(rc1) > kMaxSharedBytes) rc1 = LargestDivisorAtMost(m->cpg, rc1 - 1);
  if (shared_bytes(rc1) > kMaxSharedBytes) return false;

  return ApplyOrRestore(sch_ptr, [&] {
    Buffer data = b->reads[m->data_index]->buffer;
    std::optional<BlockRV> pad = ProducerOf(sch, block, data);
    BlockRV c_local = sch.CacheWrite(block, 0, "local");
    Array<LoopRV> loops = sch.GetLoops(block);
    Array<LoopRV> fs = sch.Split(loops[1], Array<Any>({Any(), Any(tf), Any(reg)}), true);
    Array<LoopRV> ys = sch.Split(loops[2], Array<Any>({Any(), Any(yt)}), true);
    Array<LoopRV> xs = sch.Split(loops[3], Array<Any>({Any(), Any(xt), Any(xr)}), true);
    Array<LoopRV> rcs = sch.Split(loops[4], Array<Any>({Any(), Any(rc1)}), true);
    sch.Reorder({loops[0], fs[0], ys[0], xs[0], fs[1], ys[1], xs[1], rcs[0], rcs[1], loops[5], loops[6], fs[2], xs[2]});
    // (rows and columns of tiles on their own grid axes: the window's region stays affine in them)
    sch.Bind(sch.Fuse({loops[0], fs[0]}, true), "blockIdx.z");
    sch.Bind(ys[0], "blockIdx.y");
    sch.Bind(xs[0], "blockIdx.x");
    sch.Bind(fs[1], "threadIdx.z");
    sch.Bind(ys[1], "threadIdx.y");
    sch.Bind(xs[1], "threadIdx.x");
    sch.ReverseComputeAt(c_local, xs[1], true, -1);
    // The window (the pad stage itself when there is one) and the weights of
    // rc1 channels, fetched into shared memory by all tf x yt x xt threads.
    std::vector<BlockRV> stages;
    if (pad) {
      sch.SetScope(*pad, 0, "shared");  // (first: compute_at relaxes a region by its buffer's scope)
      sch.ComputeAt(*pad, rcs[0], true, -1);
      stages.push_back(*pad);
    } else {
      BlockRV window = sch.CacheRead(block, m->data_index, "shared");
      sch.ComputeAt(window, rcs[0], true, -1);
      stages.push_back(window);
    }
    BlockRV weights = sch.CacheRead(block, m->weight_index, "shared");
    sch.ComputeAt(weights, rcs[0], true, -1);
    stages.push_back(weights);
    const size_t outer = 7;  // blockIdx.z/y/x, threadIdx.z/y/x, rc0
    for (const BlockRV& stage : stages) {
      BindCooperativeFetch(&sch, stage, outer, {{tf, "threadIdx.z"}, {yt, "threadIdx.y"}, {xt, "threadIdx.x"}});
    }
    sch.DecomposeReduction(block, rcs[0]);
    // The window loops and the register tile unrolled: constant offsets into the shared tiles.
    sch.Unroll(loops[5]);
    sch.Unroll(loops[6]);
    sch.Unroll(fs[2]);
    sch.Unroll(xs[2]);
    return true;
  });
}

}  // namespace tir
}  // namespace tessera
