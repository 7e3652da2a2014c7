// Block and loop queries shared by the MetaSchedule rules and postprocessors
// (see block_analysis.h). Meta-schedule layer.
#include "meta_schedule/block_analysis.h"

#include <algorithm>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
using namespace tir;

namespace {
std::unordered_set<const VarNode*> VarsOf(const PrimExpr& e) {
  std::unordered_set<const VarNode*> vars;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>()) vars.insert(v);
  });
  return vars;
}
}  // namespace

int LoopIterType(const BlockRealizeNode* realize, const ForNode* loop) {
  bool spatial = false, reduce = false, other = false;
  const BlockNode* block = realize->block.get();
  for (size_t i = 0; i < block->iter_vars.size() && i < realize->iter_values.size(); ++i) {
    if (!UsesVar(realize->iter_values[i], loop->loop_var.get())) continue;
    int t = block->iter_vars[i]->iter_type;
    if (t == kDataPar) {
      spatial = true;
    } else if (t == kCommReduce) {
      reduce = true;
    } else {
      other = true;
    }
  }
  if (other || (spatial && reduce)) return kOpaque;
  return reduce ? kCommReduce : kDataPar;
}

std::vector<int> LoopIterTypes(const BlockLocation& loc) {
  std::vector<int> out;
  for (const ForNode* l : loc.loops) out.push_back(LoopIterType(loc.realize, l));
  return out;
}

std::vector<int> LoopIterTypesUnder(const BlockLocation& loc) {
  std::vector<int> out;
  for (const ForNode* l : loc.loops) {
    bool spatial = false, reduce = false, other = false;
    PostOrderVisitBlockRealizes(l->body, [&](const BlockRealizeNode* r) {
      bool uses = false;
      for (const PrimExpr& v : r->iter_values) uses = uses || UsesVar(v, l->loop_var.get());
      if (!uses) return;  // a block the loop does not index constrains nothing
      int t = LoopIterType(r, l);
      spatial = spatial || t == kDataPar;
      reduce = reduce || t == kCommReduce;
      other = other || (t != kDataPar && t != kCommReduce);
    });
    out.push_back(other || (spatial && reduce) ? kOpaque : reduce ? kCommReduce : kDataPar);
  }
  return out;
}

bool IsTrivialBinding(const BlockLocation& loc) {
  const auto& values = loc.realize->iter_values;
  if (values.size() != loc.loops.size()) return false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].get() != loc.loops[i]->loop_var.get()) return false;
  }
  return true;
}

bool IsSpatialBlock(const BlockNode* block) {
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != kDataPar) return false;
  }
  return true;
}

bool IsSpatialPrimFunc(const PrimFunc& func) {
  bool spatial = true;
  PostOrderVisitBlockRealizes(func->body, [&](const BlockRealizeNode* r) {
    if (!IsSpatialBlock(r->block.get())) spatial = false;
  });
  return spatial;
}

std::optional<int64_t> ConstExtent(const ForNode* loop) {
  if (const auto* imm = loop->extent.as<IntImmNode>()) return imm->value;
  return std::nullopt;
}

bool IsSingleStmt(const Stmt& stmt) {
  if (const auto* seq = stmt.as<SeqStmtNode>()) return seq->seq.size() == 1;
  return true;
}

bool HasAnnotation(const BlockNode* block, const std::string& key) { return block->annotations.count(key); }

bool NeedsMultiLevelTiling(const BlockLocation& loc) {
  const BlockNode* block = loc.block;
  if (HasAnnotation(block, kTilingStructure)) return false;
  if (block->writes.size() != 1 || block->reads.empty() || IsSpatialBlock(block) || !IsTrivialBinding(loc)) {
    return false;
  }
  const Object* write_buffer = block->writes[0]->buffer.get();
  std::vector<const VarNode*> spatial_vars;
  for (const IterVar& iv : block->iter_vars) {
    const auto* ext = iv->dom->extent.as<IntImmNode>();
    if (iv->iter_type == kDataPar && !(ext && ext->value == 1)) spatial_vars.push_back(iv->var.get());
  }
  int unused = 0;
  std::unordered_set<const Object*> read_buffers;
  for (const BufferRegion& region : block->reads) {
    if (!read_buffers.insert(region->buffer.get()).second) return false;  // a buffer read twice
    if (region->buffer.get() == write_buffer) continue;
    std::unordered_set<const VarNode*> used;
    for (const Range& r : region->region) {
      if (!r->extent.as<IntImmNode>()) return false;
      for (const VarNode* v : VarsOf(r->min)) used.insert(v);
    }
    for (const VarNode* v : spatial_vars) unused += used.count(v) ? 0 : 1;
  }
  return unused >= 1;
}

bool NeedsRFactor(const Schedule& sch, const BlockLocation& loc, int64_t max_parallel_extent,
                  int64_t max_parallel_basic) {
  const BlockNode* block = loc.block;
  if (block->writes.empty() || !block->init.has_value() || IsSpatialBlock(block)) return false;
  if (!IsTrivialBinding(loc) || HasAnnotation(block, kTilingStructure)) return false;
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) return false;
  }
  std::vector<int> types = LoopIterTypes(loc);
  bool has_reduction = false;
  int64_t space = 1, reduce = 1;
  for (size_t i = 0; i < loc.loops.size(); ++i) {
    if (types[i] != kDataPar && types[i] != kCommReduce) return false;
    if (types[i] == kCommReduce) has_reduction = true;
    // The loops form a perfect nest around the block.
    const Stmt& body = loc.loops[i]->body;
    if (i + 1 < loc.loops.size()) {
      if (body.get() != loc.loops[i + 1]) return false;
    } else if (body.get() != loc.realize) {
      return false;
    }
    std::optional<int64_t> ext = ConstExtent(loc.loops[i]);
    if (!ext) return false;
    (types[i] == kDataPar ? space : reduce) *= *ext;
  }
  if (!has_reduction) return false;
  if (NeedsMultiLevelTiling(loc)) return !(space >= reduce || space > max_parallel_extent);
  if (reduce > 1) return reduce > max_parallel_basic;
  return false;
}

LoopRV ReorderAndFuseReductionLoops(const Schedule& sch, const BlockRV& block, size_t* n_spatial) {
  std::vector<int> types = LoopIterTypes(Locate(sch, block));
  Array<LoopRV> loops = sch.GetLoops(block);
  std::vector<LoopRV> spatial, reduce;
  for (size_t i = 0; i < loops.size(); ++i) (types[i] == kDataPar ? spatial : reduce).push_back(loops[i]);
  std::vector<LoopRV> order = spatial;
  order.insert(order.end(), reduce.begin(), reduce.end());
  bool reordered = false;
  for (size_t i = 0; i < order.size(); ++i) reordered = reordered || !order[i].same_as(loops[i]);
  if (reordered) sch.Reorder(Array<LoopRV>(order));
  *n_spatial = spatial.size();
  return reduce.size() == 1 ? reduce[0] : sch.Fuse(Array<LoopRV>(reduce), true);
}

BlockLocation Locate(const Schedule& sch, const BlockRV& block) { return sch.LocateBlock(block, "get"); }

bool IsRootBlock(const Schedule& sch, const BlockRV& block) { return Locate(sch, block).scope == nullptr; }

void ReadWritePattern(const BufferRegion& read, const BufferRegion& write, bool* injective, bool* ordered) {
  *injective = *ordered = false;
  std::unordered_map<const VarNode*, int> var2dim;
  for (size_t i = 0; i < write->region.size(); ++i) {
    const Range& r = write->region[i];
    const auto* v = r->min.as<VarNode>();
    if (!r->extent.as<IntImmNode>() || !v) return;
    var2dim.emplace(v, static_cast<int>(i));
  }
  std::vector<int> mapped;
  for (const Range& r : read->region) {
    if (!r->extent.as<IntImmNode>()) return;
    if (r->min.as<IntImmNode>()) continue;
    const VarNode* v = r->min.as<VarNode>();
    if (!v) {
      const PrimExpr* a = nullptr;
      const PrimExpr* b = nullptr;
      if (const auto* add = r->min.as<AddNode>()) {
        a = &add->a, b = &add->b;
      } else if (const auto* sub = r->min.as<SubNode>()) {
        a = &sub->a, b = &sub->b;
      }
      if (a && b) {
        if (a->as<VarNode>() && b->as<IntImmNode>()) v = a->as<VarNode>();
        if (!v && b->as<VarNode>() && a->as<IntImmNode>() && r->min.as<AddNode>()) v = b->as<VarNode>();
      }
    }
    if (!v) return;
    auto it = var2dim.find(v);
    if (it == var2dim.end()) return;
    mapped.push_back(it->second);
  }
  std::vector<int> count(write->region.size(), 0);
  bool is_ordered = true;
  int last = -1;
  for (int d : mapped) {
    ++count[d];
    if (last != -1 && last > d) is_ordered = false;
    last = d;
  }
  bool is_injective = true;
  for (int c : count) is_injective = is_injective && c < 2;
  *injective = is_injective;
  *ordered = is_ordered;
}

}  // namespace meta_schedule
}  // namespace tessera
