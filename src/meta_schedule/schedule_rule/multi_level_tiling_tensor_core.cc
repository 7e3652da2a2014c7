// MultiLevelTilingTensorCore (TVM's ScheduleRule.MultiLevelTilingTensorCore):
// a matmul-like block C[i, j] += A[i, k] * B[k, j] whose dtypes match an
// intrinsic group's compute intrinsic (e.g. fp16 x fp16 -> fp32 on mma.sync
// m16n8k16) is padded to multiples of 16 when it is not (pad_einsum) and tiled into thread-block
// tiles (blockIdx.x), warps (threadIdx.y) and 16x16 fragments with sampled
// factors, A and B staged in shared memory (cooperative fetches with a
// sampled vector length), and tensorized with the group's intrinsics
// (tir/schedule/tensor_core_gemm.h, the steps schedule_fp16_gemm uses too).
// One schedule per matching group; other blocks are left to the next rules.
// Meta-schedule layer.
#include "meta_schedule/schedule_rule/multi_level_tiling.h"
#include "runtime/registry.h"
#include "tir/schedule/tensor_core_gemm.h"
#include "tir/tensor_intrin.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

namespace {

// The reads of a block C[i, j] (+)= f(A[i, k], B[k, j]) under loops i, j, k (spatial, spatial, reduction,
// trivially bound, constant extents; `aligned` says whether they are multiples of 16).
struct GemmOperands {
  int a_index = -1, b_index = -1;
  DataType a, b, c;
  bool aligned = true;  // every extent a multiple of 16 (else pad_einsum first)
};

bool IndexedBy(const BufferRegion& region, const Var& x, const Var& y) {
  if (region->region.size() != 2) return false;
  for (size_t d = 0; d < 2; ++d) {
    const Range& r = region->region[d];
    const auto* ext = r->extent.as<IntImmNode>();
    if (ext == nullptr || ext->value != 1 || !r->min.same_as(d == 0 ? x : y)) return false;
  }
  return true;
}

std::optional<GemmOperands> MatchGemm(const BlockLocation& loc) {
  const BlockNode* block = loc.block;
  if (loc.loops.size() != 3 || block->iter_vars.size() != 3 || block->writes.size() != 1 || !block->init ||
      !IsTrivialBinding(loc)) {
    return std::nullopt;
  }
  const int want[3] = {kDataPar, kDataPar, kCommReduce};
  bool aligned = true;
  for (size_t d = 0; d < 3; ++d) {
    if (block->iter_vars[d]->iter_type != want[d]) return std::nullopt;
    std::optional<int64_t> ext = ConstExtent(loc.loops[d]);
    if (!ext) return std::nullopt;
    aligned = aligned && *ext % 16 == 0;
  }
  const Var& i = block->iter_vars[0]->var;
  const Var& j = block->iter_vars[1]->var;
  const Var& k = block->iter_vars[2]->var;
  if (!IndexedBy(block->writes[0], i, j)) return std::nullopt;
  GemmOperands out;
  out.c = block->writes[0]->buffer->dtype;
  for (size_t r = 0; r < block->reads.size(); ++r) {
    const BufferRegion& read = block->reads[r];
    if (read->buffer.same_as(block->writes[0]->buffer)) continue;
    if (IndexedBy(read, i, k) && out.a_index < 0) {
      out.a_index = static_cast<int>(r);
      out.a = read->buffer->dtype;
    } else if (IndexedBy(read, k, j) && out.b_index < 0) {
      out.b_index = static_cast<int>(r);
      out.b = read->buffer->dtype;
    } else {
      return std::nullopt;
    }
  }
  if (out.a_index < 0 || out.b_index < 0) return std::nullopt;
  out.aligned = aligned;
  return out;
}

// The dtypes (A, B, C) of a compute intrinsic's description.
std::vector<DataType> ComputeDtypes(const std::string& compute) {
  PrimFunc desc = TensorIntrin::Get(compute)->desc;
  std::vector<DataType> out;
  for (const Var& p : desc->params) {
    if (std::optional<Buffer> buf = desc->buffer_map.Get(p)) out.push_back((*buf)->dtype);
  }
  return out;
}

}  // namespace

class MultiLevelTilingTensorCoreNode : public MultiLevelTilingNode {
 public:
  std::vector<TensorCoreIntrinGroup> intrin_groups;

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    BlockLocation loc = Locate(sch, block);
    if (loc.scope == nullptr || !NeedsMultiLevelTiling(loc)) return {sch};
    std::optional<GemmOperands> gemm = MatchGemm(loc);
    if (!gemm) return {sch};
    std::vector<Schedule> out;
    for (const TensorCoreIntrinGroup& group : intrin_groups) {
      std::vector<DataType> dtypes = ComputeDtypes(group.compute);
      if (dtypes.size() != 3 || dtypes[0] != gemm->a || dtypes[1] != gemm->b || dtypes[2] != gemm->c) continue;
      Schedule s = ForkSchedule(sch);
      try {
        GemmOperands operands = *gemm;
        if (!gemm->aligned) {
          // TVM pads too: every extent to a multiple of 16 (zero-padded copies of A and B, C copied back).
          static const PackedFunc pad_einsum = *Registry::Get("tir.schedule.PadEinsum");
          pad_einsum(s, block, Array<Any>{Any(int64_t(16)), Any(int64_t(16)), Any(int64_t(16))});
          std::optional<GemmOperands> padded = MatchGemm(Locate(s, block));
          if (!padded || !padded->aligned) continue;
          operands = *padded;
        }
        std::vector<Any> lens, probs;
        for (int64_t v : vector_load_lens) lens.push_back(Any(v));
        probs.assign(lens.size(), Any(1.0 / static_cast<double>(lens.size())));
        Any vector = lens.empty() ? Any(IntImm(DataType::Int(32), 1))
                                  : Any(s.SampleCategorical(Array<Any>(lens), Array<Any>(probs), std::nullopt));
        ScheduleTensorCoreGemm(s, block, operands.a_index, operands.b_index, group, TensorCoreFetch{0, vector},
                               [&](const LoopRV& outer, int n) {
                                 Array<Var> f = s.SamplePerfectTile(outer, n, static_cast<int>(max_innermost_factor),
                                                                    std::nullopt);
                                 return Array<Any>(f.begin(), f.end());
                               });
        out.push_back(s);
      } catch (const Error& e) {
        if (e.kind() != "ScheduleError") throw;
      }
    }
    if (out.empty()) return {sch};
    return Array<Schedule>(out);
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<MultiLevelTilingTensorCoreNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(MultiLevelTilingTensorCoreNode, MultiLevelTilingNode,
                                    "meta_schedule.MultiLevelTilingTensorCore");
};

TESSERA_REGISTER_NODE(MultiLevelTilingTensorCoreNode)
    .getter("intrin_groups", [](const MultiLevelTilingTensorCoreNode* n) {
      std::vector<Any> out;
      for (const TensorCoreIntrinGroup& g : n->intrin_groups) {
        out.push_back(Any(Map<String, Any>{{String("init"), Any(String(g.init))},
                                           {String("load_a"), Any(String(g.load_a))},
                                           {String("load_b"), Any(String(g.load_b))},
                                           {String("compute"), Any(String(g.compute))},
                                           {String("store"), Any(String(g.store))}}));
      }
      return Array<Any>(out);
    });

namespace {

// One intrin_groups entry: the five keys, each naming a registered intrinsic (else a ValueError naming them).
TensorCoreIntrinGroup GroupFromConfig(const Map<String, Any>& config, size_t index) {
  static const char* kKeys[] = {"init", "load_a", "load_b", "compute", "store"};
  std::string where = "MultiLevelTilingTensorCore(intrin_groups[" + std::to_string(index) + "])";
  for (const auto& [k, v] : config.items()) {
    std::string key = k;
    bool known = false;
    for (const char* want : kKeys) known = known || key == want;
    TESSERA_CHECK_OR_THROW(known, ValueError)
        << where << ": unknown key \"" << key << "\" (expected init, load_a, load_b, compute, store)";
  }
  std::vector<std::string> names, missing;
  for (const char* key : kKeys) {
    TESSERA_CHECK_OR_THROW(config.count(key), ValueError) << where << ": missing key \"" << key << "\"";
    names.push_back(config.at(key).cast<std::string>());
    try {
      TensorIntrin::Get(names.back());
    } catch (const Error&) {
      missing.push_back(names.back());
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "'" : ", '") + m + "'";
    TESSERA_THROW(ValueError) << where << ": unknown tensor intrinsic(s) " << list
                              << " (Tessera has the mma.sync m16n8k16 groups of tvm.tir.tensor_intrin.cuda, e.g. "
                                 "get_mma_intrin_group(\"shared\", \"global\", \"float16\", \"float32\", False, "
                                 "False); no wmma_* intrinsics)";
  }
  return {names[0], names[1], names[2], names[3], names[4]};
}

}  // namespace

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleMultiLevelTilingTensorCore")
    .set_body_typed([](Array<Any> intrin_groups, std::string structure, Any tile_binds,
                       std::optional<int64_t> max_innermost_factor, Any vector_load_lens,
                       std::optional<Map<String, Any>> reuse_read, std::optional<Map<String, Any>> reuse_write,
                       bool use_software_pipeline) {
      TESSERA_CHECK_OR_THROW(!use_software_pipeline, NotImplementedError)
          << "MultiLevelTilingTensorCore(use_software_pipeline=True) is not supported (no software pipelining "
             "of the shared-memory stages)";
      TESSERA_CHECK_OR_THROW(!intrin_groups.empty(), ValueError) << "MultiLevelTilingTensorCore: intrin_groups is empty";
      auto n = make_object<MultiLevelTilingTensorCoreNode>();
      InitMultiLevelTiling(n.get(), structure, tile_binds, max_innermost_factor, vector_load_lens, reuse_read,
                           reuse_write, Any());
      for (size_t g = 0; g < intrin_groups.size(); ++g) {
        n->intrin_groups.push_back(GroupFromConfig(intrin_groups[g].cast<Map<String, Any>>(), g));
      }
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera
