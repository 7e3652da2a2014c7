// MultiLevelTilingPackedPanel (Tessera's, beside TVM's MultiLevelTiling):
// the MultiLevelTiling branches plus, for a matmul-like block (loops i, j, k
// bound one-to-one to spatial, spatial, reduction iterators, some operand
// not indexed by i), one more branch: the packed-panel schedule of a good
// hand-written GEMM. Tiles i, j, k in two (i1 <= packed_i, j1 <= packed_j,
// k1 <= packed_k), orders j0 i0 k0 k1 i1 j1, copies the column panel of
// the operand not indexed by i into a compact buffer once per j0
// (cache_read + compute_at), accumulates an i1 x j1 register tile
// (cache_write "local" at i0), decomposes the reduction at k0, unrolls i1 and
// vectorizes j1 and the copies. This is what reaches OpenBLAS speed on
// matmuls; TVM's space lacks it. Meta-schedule layer.
#include <unordered_set>

#include "meta_schedule/schedule_rule/multi_level_tiling.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

class MultiLevelTilingPackedPanelNode : public MultiLevelTilingNode {
 public:
  int64_t packed_i = 8;
  int64_t packed_j = 64;
  int64_t packed_k = 512;

  // The read index of the panel operand (read, not written, not indexed by
  // the outer spatial iterator), or -1 when the block is not matmul-like.
  static int PanelRead(const BlockLocation& loc) {
    if (loc.loops.size() != 3 || !IsTrivialBinding(loc)) return -1;
    const BlockNode* block = loc.block;
    if (block->iter_vars.size() != 3 || block->iter_vars[0]->iter_type != kDataPar ||
        block->iter_vars[1]->iter_type != kDataPar || block->iter_vars[2]->iter_type != kCommReduce) {
      return -1;
    }
    for (const ForNode* l : loc.loops) {
      if (!ConstExtent(l) || l->kind != ForKind::kSerial) return -1;
    }
    const VarNode* outer = block->iter_vars[0]->var.get();
    std::unordered_set<const Object*> written;
    for (const BufferRegion& w : block->writes) written.insert(w->buffer.get());
    for (size_t i = 0; i < block->reads.size(); ++i) {
      const BufferRegion& r = block->reads[i];
      if (written.count(r->buffer.get())) continue;
      bool uses_outer = false;
      for (const Range& rg : r->region) uses_outer = uses_outer || UsesVar(rg->min, outer);
      if (!uses_outer) return static_cast<int>(i);
    }
    return -1;
  }

  void ApplyPacked(const Schedule& sch, const BlockRV& block, int panel) const {
    Array<LoopRV> loops = sch.GetLoops(block);
    auto split = [&](const LoopRV& loop, int64_t max_inner) {
      Array<Var> f = sch.SamplePerfectTile(loop, 2, static_cast<int>(max_inner), std::nullopt);
      return sch.Split(loop, Array<Any>(f.begin(), f.end()), true);
    };
    Array<LoopRV> i = split(loops[0], packed_i), j = split(loops[1], packed_j), k = split(loops[2], packed_k);
    sch.Reorder({j[0], i[0], k[0], k[1], i[1], j[1]});
    BlockRV packed = sch.CacheRead(block, panel, "global");
    sch.ComputeAt(packed, j[0], true, -1);
    BlockRV acc = sch.CacheWrite(block, 0, "local");
    sch.ReverseComputeAt(acc, i[0], true, -1);
    sch.DecomposeReduction(block, k[0]);
    sch.Vectorize(j[1]);
    sch.Unroll(i[1]);
    sch.Vectorize(sch.GetLoops(acc).back());
    sch.Vectorize(sch.GetLoops(packed).back());
  }

  Array<Schedule> Apply(const Schedule& sch, const BlockRV& block) const final {
    BlockLocation loc = Locate(sch, block);
    if (loc.scope == nullptr || !NeedsMultiLevelTiling(loc)) return {sch};
    std::vector<Schedule> out;
    int panel = PanelRead(loc);
    if (panel >= 0) {
      Schedule packed = ForkSchedule(sch);
      try {
        packed.Annotate(block, kTilingStructure, Any(String("packed_panel")));
        ApplyPacked(packed, block, panel);
        out.push_back(packed);
      } catch (const Error& e) {
        if (e.kind() != "ScheduleError") throw;
      }
    }
    for (const Schedule& s : MultiLevelTilingNode::Apply(sch, block)) out.push_back(s);
    return Array<Schedule>(out);
  }

  ScheduleRule Clone() const final { return ScheduleRule(make_object<MultiLevelTilingPackedPanelNode>(*this)); }
  TESSERA_DECLARE_FINAL_OBJECT_INFO(MultiLevelTilingPackedPanelNode, MultiLevelTilingNode,
                                    "meta_schedule.MultiLevelTilingPackedPanel");
};

TESSERA_REGISTER_NODE(MultiLevelTilingPackedPanelNode)
    .field("structure", &MultiLevelTilingPackedPanelNode::structure)
    .field("max_innermost_factor", &MultiLevelTilingPackedPanelNode::max_innermost_factor)
    .field("packed_i", &MultiLevelTilingPackedPanelNode::packed_i)
    .field("packed_j", &MultiLevelTilingPackedPanelNode::packed_j)
    .field("packed_k", &MultiLevelTilingPackedPanelNode::packed_k);

TESSERA_REGISTER_GLOBAL("meta_schedule.ScheduleRuleMultiLevelTilingPackedPanel")
    .set_body_typed([](std::string structure, Any tile_binds, std::optional<int64_t> max_innermost_factor,
                       Any vector_load_lens, std::optional<Map<String, Any>> reuse_read,
                       std::optional<Map<String, Any>> reuse_write, int64_t packed_i, int64_t packed_j,
                       int64_t packed_k) {
      auto n = make_object<MultiLevelTilingPackedPanelNode>();
      InitMultiLevelTiling(n.get(), structure, tile_binds, max_innermost_factor, vector_load_lens, reuse_read,
                           reuse_write, Any());
      TESSERA_CHECK_OR_THROW(packed_i >= 1 && packed_j >= 1 && packed_k >= 1, ValueError)
          << "MultiLevelTilingPackedPanel: packed_i, packed_j and packed_k must be positive, got " << packed_i
          << ", " << packed_j << ", " << packed_k;
      n->packed_i = packed_i;
      n->packed_j = packed_j;
      n->packed_k = packed_k;
      return ScheduleRule(n);
    });

}  // namespace meta_schedule
}  // namespace tessera
