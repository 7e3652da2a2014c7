// ScheduleConv2dPacked (see default_schedule_conv.h). The block
//   tile[n, fo, y, x, fi] += pad[n, c, y*sh + r, x*sw + s] * W[fo, c, r, s, fi]
// becomes
//   [n, fo, y, x / X: fused, parallel]
//     [init: X x fi accumulators, vectorized over fi]
//     [c, r, s] [X: unrolled] [fi: vectorized]      (one weight vector, X broadcasts)
//     [the NCHW write-back of the X x fi tile with the fused epilogue:
//      [fi] [X: vectorized], X contiguous in NCHW]
// with X the largest divisor of the width in [4, 14] (the width itself when
// smaller, else 8 with a guarded tail). With X < 8 (7-wide rows) the tile
// takes F output-channel blocks, F * X <= 14: [n, fo / F, y, x / X]
// [c, r, s] [F: unrolled] [X: unrolled] [fi: vectorized]. The sampled form
// (default_schedule_knobs.h) samples X, F and Y rows per tile (Y = 1 by
// default: a unit loop). Every step is checked: a refused
// step restores the schedule and the generic rules take the block.
#include "tir/transform/default_schedule_conv.h"

#include "ir/transform.h"
#include "tir/transform/default_schedule_knobs.h"
#include "tir/transform/default_schedule_pad.h"

namespace tessera {
namespace tir {
namespace {

constexpr const char* kBlockPrefix = "conv2d_nchw_packed";
constexpr int64_t kMaxTileWidth = 14;  // accumulators of one vector each, plus weight and broadcast
constexpr int64_t kMaxTileBlocks = 4;  // the sampled form's output-channel blocks / rows per tile

int64_t TileWidth(int64_t width) {
  if (width <= kMaxTileWidth) return width;
  for (int64_t x = kMaxTileWidth; x >= 4; --x) {
    if (width % x == 0) return x;
  }
  return 8;
}

// Output-channel blocks per tile: with fewer than kMinAccumulators columns
// (a 7-wide row), several blocks of the same columns share the tile, so
// enough independent accumulators hide the FMA latency (each broadcast of an
// input element then feeds one FMA per block).
constexpr int64_t kMinAccumulators = 8;
int64_t ChannelBlocksPerTile(int64_t width, int64_t channel_blocks) {
  if (width >= kMinAccumulators) return 1;
  for (int64_t f = kMaxTileWidth / width; f > 1; --f) {
    if (channel_blocks % f == 0) return f;
  }
  return 1;
}

}  // namespace

BlockRV CacheWriteTile(Schedule* sch_ptr, const BlockRV& block, const LoopRV& tile, bool vectorize_consumer) {
  Schedule& sch = *sch_ptr;
  BlockRV write_back = sch.CacheWrite(block, 0, "local");
  sch.ReverseComputeAt(write_back, tile, true, -1);
  Array<BlockRV> consumers = sch.GetConsumers(write_back);
  if (consumers.size() == 1) {
    if (!ApplyOrRestore(&sch, [&] { sch.ReverseComputeAt(consumers[0], tile, true, -1); })) return write_back;
    if (vectorize_consumer) {  // refused (a guarded tail): the consumer stays per tile, scalar
      ApplyOrRestore(&sch, [&] {
        Array<LoopRV> inner = sch.GetLoops(consumers[0]);
        sch.Vectorize(inner[inner.size() - 1]);
      });
    }
  }
  return write_back;
}

bool ScheduleConv2dPacked(Schedule* sch_ptr, const BlockRV& block, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  Block b = sch.Get(block).cast<Block>();
  if (b->name_hint.rfind(kBlockPrefix, 0) != 0) return false;
  // Refused: a padding stage left for this rule is still scheduled, at the root.
  auto refuse = [&] {
    SchedulePackedConvPadding(&sch, block, std::nullopt, opt);
    return false;
  };
  if (b->iter_vars.size() != 8 || !b->init) return refuse();
  Array<LoopRV> loops = sch.GetLoops(block);
  if (loops.size() != 8) return refuse();
  std::vector<int64_t> extent = LoopExtents(sch, loops);
  // n may be symbolic; the others are static by construction.
  for (size_t i = 1; i < 8; ++i) {
    if (extent[i] < 1) return refuse();
  }
  const bool applied = ApplyOrRestore(sch_ptr, [&] {
    const LoopRV &n = loops[0], &fo = loops[1], &y = loops[2], &x = loops[3], &fi = loops[4];
    // With the padding of each image computed under n (default_schedule_pad.cc),
    // n stays a serial loop around it and the tiles.
    const bool padded_per_image = SchedulePackedConvPadding(&sch, block, n, opt);
    auto order = [&](std::initializer_list<LoopRV> inner) {
      Array<LoopRV> out;
      if (!padded_per_image) out.push_back(n);
      for (const LoopRV& l : inner) out.push_back(l);
      return out;
    };
    int64_t width = TileWidth(extent[3]);
    int64_t blocks = ChannelBlocksPerTile(width, extent[1]);
    Array<LoopRV> xs = SplitByKnob(sch, x, extent[3], width, kMaxTileWidth, {4, 6, 8, 12, 14}, opt);
    // Output-channel blocks and rows of the register tile (rows: one by
    // default, a unit loop), knobs of the sampled form (more weight vectors or
    // more rows per broadcast input value).
    Array<LoopRV> fos = SplitByKnob(sch, fo, extent[1], blocks, std::max(kMaxTileBlocks, blocks), {}, opt);
    Array<LoopRV> ys = SplitByKnob(sch, y, extent[2], 1, kMaxTileBlocks, {}, opt);
    sch.Reorder(order({fos[0], ys[0], xs[0], loops[5], loops[6], loops[7], fos[1], ys[1], xs[1], fi}));
    // Accumulators in a per-tile "local" buffer (kept in registers), written
    // back once per tile, followed there by the consumer (the NCHW
    // write-back with the epilogue), so the packed tile never reaches memory.
    BlockRV write_back = CacheWriteTile(&sch, block, xs[0], opt.conv_vector_epilogue);
    BlockRV init = sch.DecomposeReduction(block, loops[5]);
    sch.Vectorize(fi);
    sch.Unroll(xs[1]);
    sch.Unroll(ys[1]);
    sch.Unroll(fos[1]);
    Array<LoopRV> init_loops = sch.GetLoops(init);
    sch.Vectorize(init_loops[init_loops.size() - 1]);
    Array<LoopRV> wb_loops = sch.GetLoops(write_back);
    sch.Vectorize(wb_loops[wb_loops.size() - 1]);
    // The sampled form's compute-location knob of a padding stage left whole
    // before the convolution (pad_planes off): decided where the default
    // leaves it (-1), moved under a tile loop by MutateComputeLocation.
    if (opt.sampled && !padded_per_image && !opt.pad_planes) {
      for (const BlockRV& p : sch.GetProducers(block)) {
        if (sch.Get(p).cast<Block>()->name_hint.rfind("pad_temp", 0) != 0) continue;
        sch.ComputeAt(p, sch.SampleComputeLocation(p, int64_t(-1)), true, -1);
      }
    }
    if (opt.num_cores > 1) {
      int64_t outer = extent[1] * extent[2] * ((extent[3] + width - 1) / width);
      if (outer * extent[4] * width * extent[5] * extent[6] * extent[7] >= opt.min_parallel_work) {
        sch.Parallel(sch.Fuse(order({fos[0], ys[0], xs[0]}), true));
      }
    }
  });
  return applied || refuse();
}

// False keeps the write-back of the tile with its epilogue scalar.
TESSERA_REGISTER_PASS_CONFIG_OPTION(kConvVectorEpilogueOption, bool);
// Legalization switch (python/tessera/relax/op/nn/convolution.py): False
// keeps relax.nn.conv2d on the plain NCHW kernel.
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.conv2d_packed", bool);
// False keeps grouped (not depthwise) conv2d on the generic kernel
// (topi.nn.group_conv2d_nchw) instead of the packed one per group.
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.conv2d_grouped_packed", bool);
// False keeps 1x1 stride-1 convolutions on the packed kernel instead of the
// NCHW GEMM (topi.nn.conv2d_nchw_1x1, default_schedule_conv1x1.cc).
TESSERA_REGISTER_PASS_CONFIG_OPTION("relax.conv2d_1x1_gemm", bool);

}  // namespace tir
}  // namespace tessera
