// ScheduleTensorCoreGemm (see tensor_core_gemm.h) and its FFI entry
// tir.schedule.ScheduleTensorCoreGemm (fixed tiles, for schedule_fp16_gemm).
#include "tir/schedule/tensor_core_gemm.h"

#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

Any Int(int64_t v) { return Any(IntImm(DataType::Int(32), v)); }

// The last two loops of `block` (fragment rows and columns, multiples of 16) split into 16x16 tiles, the tile
// tensorized with `intrin`, the tile loops unrolled (every register offset of a fragment a constant).
void Tile16(const Schedule& sch, const BlockRV& block, const std::string& intrin) {
  Array<LoopRV> loops = sch.GetLoops(block);
  Array<LoopRV> r = sch.Split(loops[loops.size() - 2], {Any(), Int(16)}, true);
  Array<LoopRV> c = sch.Split(loops[loops.size() - 1], {Any(), Int(16)}, true);
  sch.Reorder({r[0], c[0], r[1], c[1]});
  sch.Tensorize(r[1], intrin);
  sch.Unroll(r[0]);
  sch.Unroll(c[0]);
}

// The shared copy `cache` computed at `at` and shared by the block's threads.
void Fetch(const Schedule& sch, const BlockRV& cache, const LoopRV& at, const TensorCoreFetch& fetch) {
  sch.ComputeAt(cache, at, true, -1);
  Array<LoopRV> loops = sch.GetLoops(cache);
  LoopRV fused = sch.Fuse({loops[loops.size() - 2], loops[loops.size() - 1]}, true);
  if (fetch.threads <= 0) {
    sch.Annotate(fused, "meta_schedule.cooperative_fetch", fetch.vector);
    return;
  }
  Array<LoopRV> parts = sch.Split(fused, {Any(), Int(fetch.threads / 32), Int(32), fetch.vector}, true);
  sch.Bind(parts[1], "threadIdx.y");
  sch.Bind(parts[2], "threadIdx.x");
  sch.Vectorize(parts[3]);
}

}  // namespace

void ScheduleTensorCoreGemm(const Schedule& sch, const BlockRV& block, int a_index, int b_index,
                            const TensorCoreIntrinGroup& group, const TensorCoreFetch& fetch,
                            const std::function<Array<Any>(const LoopRV& outer, int n)>& factors) {
  Array<LoopRV> loops = sch.GetLoops(block);
  auto tile = [&](const LoopRV& loop, int n) {
    Array<LoopRV> by16 = sch.Split(loop, {Any(), Int(16)}, true);
    std::vector<LoopRV> out = sch.Split(by16[0], factors(by16[0], n), true).to_vector();
    out.push_back(by16[1]);
    return out;
  };
  std::vector<LoopRV> i = tile(loops[0], 3), j = tile(loops[1], 3), k = tile(loops[2], 2);
  // block tiles, warps, k steps through shared memory, k fragments, fragments per warp, the 16x16x16 tile
  sch.Reorder({i[0], j[0], i[1], j[1], k[0], k[1], i[2], j[2], i[3], j[3], k[2]});
  sch.Bind(sch.Fuse({i[0], j[0]}, true), "blockIdx.x");
  LoopRV warps = sch.Fuse({i[1], j[1]}, true);
  sch.Bind(warps, "threadIdx.y");

  BlockRV a_shared = sch.CacheRead(block, a_index, "shared");
  BlockRV b_shared = sch.CacheRead(block, b_index, "shared");
  BlockRV a_warp = sch.CacheRead(block, a_index, "warp");
  BlockRV b_warp = sch.CacheRead(block, b_index, "warp");
  BlockRV c_warp = sch.CacheWrite(block, 0, "warp");
  sch.ReverseComputeAt(c_warp, warps, true, -1);
  sch.ComputeAt(a_warp, k[1], true, -1);
  sch.ComputeAt(b_warp, k[1], true, -1);
  Fetch(sch, a_shared, k[0], fetch);
  Fetch(sch, b_shared, k[0], fetch);

  BlockRV init = sch.DecomposeReduction(block, k[0]);
  Array<LoopRV> init_loops = sch.GetLoops(init);
  const size_t n = init_loops.size();
  sch.Tensorize(init_loops[n - 2], group.init);
  sch.Unroll(init_loops[n - 4]);
  sch.Unroll(init_loops[n - 3]);
  Tile16(sch, a_warp, group.load_a);
  Tile16(sch, b_warp, group.load_b);
  sch.Tensorize(i[3], group.compute);
  sch.Unroll(k[1]);
  sch.Unroll(i[2]);
  sch.Unroll(j[2]);
  Tile16(sch, c_warp, group.store);
}

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ScheduleTensorCoreGemm")
    .set_body_typed([](Schedule sch, BlockRV block, int64_t a_index, int64_t b_index, Array<Any> names,
                       Array<Any> i_factors, Array<Any> j_factors, Array<Any> k_factors, int64_t threads,
                       int64_t vector) {
      TESSERA_CHECK_OR_THROW(names.size() == 5, ValueError)
          << "ScheduleTensorCoreGemm: expected 5 intrinsic names (init, load_a, load_b, compute, store)";
      TensorCoreIntrinGroup group{names[0].cast<std::string>(), names[1].cast<std::string>(),
                                  names[2].cast<std::string>(), names[3].cast<std::string>(),
                                  names[4].cast<std::string>()};
      auto consts = [](const Array<Any>& v) {
        std::vector<Any> out;
        for (const Any& x : v) out.push_back(Int(x.cast<int64_t>()));
        return Array<Any>(out);
      };
      const Array<Any> per_axis[3] = {consts(i_factors), consts(j_factors), consts(k_factors)};
      int axis = 0;  // called for i, j, then k
      ScheduleTensorCoreGemm(sch, block, static_cast<int>(a_index), static_cast<int>(b_index), group,
                             TensorCoreFetch{threads, Int(vector)},
                             [&](const LoopRV&, int) { return per_axis[axis++]; });
    });

}  // namespace tir
}  // namespace tessera
