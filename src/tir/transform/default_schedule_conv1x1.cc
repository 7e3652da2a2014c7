// ScheduleConv2d1x1 (see default_schedule_conv1x1.h). The block
//   out[n, co, y, x] += X[n, ci, y, x] * W[co, ci, 0, 0]
// is a GEMM with the weight as the row operand and y*W + x contiguous in both
// X and out. It becomes
//   [n] [hw / V or co / C, the longer: parallel] [the other]
//     [init: C x V accumulators]
//     [ci] [C: unrolled] [V: vectorized]     (one X vector, C weight broadcasts)
//     [the epilogue of the C x V tile, vectorized, written to NCHW]
// (with at most 64 input channels and pixel tiles outside, the pixel tiles are
// grouped: [n] [pixel blocks: parallel] [co / C] [tiles of the block] ..., see
// PixelBlockTiles) with hw = y*W + x (the block's output re-laid out to [n, co, hw] in a
// "local" tile, the consumer's iteration space fused the same way), V the
// target's float lanes (a guarded tail when V does not divide hw) and C the
// largest of 8, 4, 2, 1 dividing co. A refused step restores the schedule and
// the other rules take the block.
#include "tir/transform/default_schedule_conv1x1.h"

#include <algorithm>

#include "ir/transform.h"
#include "tir/index_map.h"
#include "tir/op.h"
#include "tir/transform/default_schedule_chunks.h"
#include "tir/transform/default_schedule_knobs.h"

namespace tessera {
namespace tir {
namespace {

constexpr const char* kBlockPrefix = "conv2d_nchw_1x1";

int64_t ChannelBlock(int64_t channels) {
  for (int64_t c : {8, 4, 2}) {
    if (channels % c == 0) return c;
  }
  return 1;
}

// (n, c, y, x) -> (n, c, y * width + x), over variables of `dtype`.
IndexMap FuseSpatial(int64_t width, DataType dtype) {
  Var n("n", dtype), c("c", dtype), y("y", dtype), x("x", dtype);
  return IndexMap(Array<Var>({n, c, y, x}), Array<PrimExpr>({n, c, add(mul(y, IntImm(dtype, width)), x)}));
}

// The input slice of one pixel block (its pixels x all input channels) is
// kept under this many bytes: in L2 with room for the weight and the outputs.
constexpr int64_t kPixelBlockBytes = 256 << 10;
// Blocks only up to this many input channels: there an output element costs
// few FMAs, so writing the outputs (one stream per output channel) bounds the
// kernel (64 -> 256 channels at 56 x 56, batch 8, with a residual: 1.3-1.4x).
// With more, the kernel is compute-bound and re-reading a block's input from
// L2 for every channel tile (instead of one tile's from L1) costs up to 10%
// (256 -> 64 channels at 56 x 56, batch 8: 0.88-0.93x).
constexpr int64_t kMaxBlockedInChannels = 64;

// How many of the `tiles` pixel tiles (`tile_pixels` each, -1 if not constant)
// form a block: the largest divisor of `tiles` whose input slice over
// `in_channels` fits kPixelBlockBytes and that leaves at least `cores` blocks
// (the parallel loop; WantedParallelChunks); 1 (no blocks) when none above 1 does or when
// `in_channels` passes kMaxBlockedInChannels.
int64_t PixelBlockTiles(int64_t tiles, int64_t tile_pixels, int64_t in_channels, int64_t bytes, int64_t cores) {
  if (tiles < 2 || tile_pixels < 1 || in_channels < 1 || in_channels > kMaxBlockedInChannels) return 1;
  const int64_t fit = std::min(kPixelBlockBytes / (tile_pixels * in_channels * std::max<int64_t>(1, bytes)),
                               tiles / std::max<int64_t>(1, cores));
  for (int64_t t = std::min(fit, tiles); t > 1; --t) {
    if (tiles % t == 0) return t;
  }
  return 1;
}

}  // namespace

bool ScheduleConv2d1x1(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  if (b->name_hint.rfind(kBlockPrefix, 0) != 0 || b->iter_vars.size() != 5 || !b->init || b->writes.size() != 1) {
    return false;
  }
  Array<LoopRV> loops = sch.GetLoops(block);
  if (loops.size() != 5) return false;
  std::vector<int64_t> extent = LoopExtents(sch, loops);
  for (size_t i = 1; i < 5; ++i) {
    if (extent[i] < 1) return false;  // n may be symbolic; the others are static by construction
  }
  const DataType dtype = b->writes[0]->buffer->dtype;
  const int64_t lanes = std::max(1, opt.vector_bits / std::max(1, dtype.bits()));
  const int64_t cb = ChannelBlock(extent[1]);
  return ApplyOrRestore(sch_ptr, [&] {
    // The tile's consumer: the fused epilogue, or a write-back made here when
    // the block writes an output parameter itself.
    Array<BlockRV> consumers = sch.GetConsumers(block);
    BlockRV consumer;
    if (consumers.empty()) {
      consumer = sch.CacheWrite(block, 0, "local");
    } else if (consumers.size() == 1) {
      consumer = consumers[0];
      sch.SetScope(block, 0, "local");
    } else {
      return false;
    }
    const LoopRV &n = loops[0], &c = loops[1], &k = loops[4];
    LoopRV hw = sch.Fuse({loops[2], loops[3]}, true);
    Array<LoopRV> cs = SplitByKnob(sch, c, extent[1], cb, 16, {}, opt);
    // The longer of the two tile loops goes outside (and runs in parallel):
    // with few output channels the X tile stays in L1 across them, with few
    // pixels the weight block does.
    const int64_t pixels = extent[2] * extent[3];
    const int64_t c_tiles = extent[1] / cb, hw_tiles = (pixels + lanes - 1) / lanes;
    const bool hw_outer = hw_tiles > c_tiles;
    // Pixel tiles outside: grouped in blocks (PixelBlockTiles), so that each
    // output-channel tile writes (and reads its residual) in runs of a block's
    // pixels rather than one tile, which hardware prefetchers follow.
    // At least WantedParallelChunks blocks; when no block size gives that
    // many, one block per core.
    int64_t block_tiles = 1;
    for (int64_t blocks : {WantedParallelChunks(opt), int64_t(std::max(1, opt.num_cores))}) {
      if (block_tiles > 1 || !hw_outer || !opt.conv1x1_pixel_blocks) break;
      block_tiles = PixelBlockTiles(hw_tiles, lanes, extent[4], dtype.bytes(), blocks);
    }
    Array<LoopRV> hs;
    LoopRV outer, inner;
    Array<LoopRV> order;
    if (block_tiles > 1) {
      // [blocks, tiles of a block, lanes]. Without a tail, one knob deciding
      // the three together (a block split of fixed size under a sampled lane
      // split would stop dividing the tile loop once the lanes moved); with a
      // tail (lanes not dividing the pixels) the lanes stay fixed and only the
      // block is sampled.
      Array<LoopRV> hb;
      if (pixels % lanes == 0) {
        hb = TileByKnob(sch, hw, pixels, {block_tiles, lanes}, 4 * lanes, opt);
      } else {
        Array<LoopRV> t = sch.Split(hw, Array<Any>({Any(), Any(lanes)}), true);
        Array<LoopRV> b = SplitByKnob(sch, t[0], hw_tiles, block_tiles, hw_tiles, {}, opt);
        hb = {b[0], b[1], t[1]};
      }
      hs = {hb[1], hb[2]};
      outer = hb[0];
      inner = hb[1];
      order = {n, hb[0], cs[0], hb[1], k, cs[1], hb[2]};
    } else {
      hs = SplitByKnob(sch, hw, pixels, lanes, 4 * lanes, {lanes, 2 * lanes, 4 * lanes}, opt);
      outer = hw_outer ? hs[0] : cs[0];
      inner = hw_outer ? cs[0] : hs[0];
      order = {n, outer, inner, k, cs[1], hs[1]};
    }
    sch.Reorder(order);
    IndexMap fuse = FuseSpatial(extent[3], b->iter_vars[0]->var.dtype());
    sch.TransformLayout(block, true, 0, fuse);
    sch.TransformBlockLayout(consumer, fuse);
    sch.ReverseComputeAt(consumer, inner, true, -1);
    BlockRV init = sch.DecomposeReduction(block, k);
    sch.Unroll(cs[1]);
    sch.Vectorize(hs[1]);
    Array<LoopRV> init_loops = sch.GetLoops(init);
    sch.Vectorize(init_loops[init_loops.size() - 1]);
    Array<LoopRV> out_loops = sch.GetLoops(consumer);
    sch.Vectorize(out_loops[out_loops.size() - 1]);
    // Only the outer tile loop: fused with the inner one, the per-tile
    // accumulators could not be shown private to an iteration and would not
    // be compacted to registers.
    if (opt.num_cores > 1 && extent[1] * extent[2] * extent[3] * extent[4] >= opt.min_parallel_work) {
      sch.Parallel(outer);
    }
    return true;
  });
}

TESSERA_REGISTER_PASS_CONFIG_OPTION(kConv1x1PixelBlocksOption, bool);

}  // namespace tir
}  // namespace tessera
