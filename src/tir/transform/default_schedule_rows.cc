// DefaultCPUSchedule's row-kernel rule (see default_schedule_rows.h): the
// stages are compute_at'ed under the last block's row loop (latest stage
// first), then each stage's loop along the row is vectorized (rfactor for a
// reduction); any refused step restores the whole function's schedule.
#include "tir/transform/default_schedule_rows.h"

#include <string>
#include <vector>

#include "tir/schedule/analysis.h"
#include "tir/transform/default_schedule_knobs.h"

namespace tessera {
namespace tir {
namespace {

struct Stage {
  std::string name;
  bool reduce = false;
  bool contiguous = false;  // every read using the row loop reads along its last dimension
  int out_ndim = 0;
};

bool SameExtent(const PrimExpr& a, const PrimExpr& b) {
  const int64_t *ca = AsConstInt(a), *cb = AsConstInt(b);
  return ca != nullptr ? (cb != nullptr && *ca == *cb) : a.same_as(b);
}

// The loop nest of `loc` binds loop l to iteration variable l (all serial,
// from 0) and holds this block alone.
bool PlainNest(const BlockLocation& loc) {
  const BlockNode* b = loc.block;
  if (loc.loops.empty() || b->iter_vars.size() != loc.loops.size() ||
      loc.realize->iter_values.size() != loc.loops.size() || b->writes.size() != 1) {
    return false;
  }
  if (ChildBlocks(GetRef<Stmt>(loc.loops.front())).size() != 1) return false;
  for (size_t l = 0; l < loc.loops.size(); ++l) {
    const ForNode* loop = loc.loops[l];
    if (loop->kind != ForKind::kSerial || AsConstInt(loop->min) == nullptr || *AsConstInt(loop->min) != 0 ||
        loc.realize->iter_values[l].get() != loop->loop_var.get()) {
      return false;
    }
  }
  return true;
}

bool AlongLastDim(const BlockNode* b, const VarNode* v) {
  for (const BufferRegion& r : b->reads) {
    bool uses = false;
    for (const Range& rg : r->region) uses = uses || UsesVar(rg->min, v) || UsesVar(rg->extent, v);
    if (!uses) continue;
    const Range& last = r->region[r->region.size() - 1];
    if (last->min.get() != v) return false;
    for (size_t d = 0; d + 1 < r->region.size(); ++d) {
      if (UsesVar(r->region[d]->min, v)) return false;
    }
  }
  return true;
}

std::optional<std::vector<Stage>> MatchRows(const PrimFunc& func) {
  std::vector<BlockLocation> blocks = CollectBlocks(func);
  if (blocks.size() < 2) return std::nullopt;
  const BlockLocation& out = blocks.back();
  size_t n = out.loops.size();
  if (n < 2 || !PlainNest(out)) return std::nullopt;
  for (const IterVar& iv : out.block->iter_vars) {
    if (iv->iter_type != kDataPar) return std::nullopt;
  }
  std::vector<Stage> stages;
  bool any_reduce = false;
  for (const BlockLocation& loc : blocks) {
    if (loc.loops.size() != n || !PlainNest(loc)) return std::nullopt;
    const BlockNode* b = loc.block;
    for (size_t l = 0; l + 1 < n; ++l) {
      if (b->iter_vars[l]->iter_type != kDataPar || !SameExtent(loc.loops[l]->extent, out.loops[l]->extent)) {
        return std::nullopt;
      }
    }
    Stage s;
    s.name = b->name_hint;
    s.reduce = b->iter_vars[n - 1]->iter_type == kCommReduce;
    if (!s.reduce && (b->iter_vars[n - 1]->iter_type != kDataPar ||
                      !SameExtent(loc.loops[n - 1]->extent, out.loops[n - 1]->extent))) {
      return std::nullopt;
    }
    const VarNode* along = b->iter_vars[n - 1]->var.get();
    s.contiguous = AlongLastDim(b, along);
    if (s.reduce) {
      for (const Range& rg : b->writes[0]->region) {
        if (UsesVar(rg->min, along)) return std::nullopt;
      }
    } else {
      const Range& last = b->writes[0]->region[b->writes[0]->region.size() - 1];
      s.contiguous = s.contiguous && last->min.get() == along;
    }
    s.out_ndim = static_cast<int>(b->writes[0]->buffer->shape.size());
    any_reduce = any_reduce || s.reduce;
    stages.push_back(s);
  }
  if (!any_reduce) return std::nullopt;
  return stages;
}

// A reduction stage along a contiguous row whose length a vector width
// divides: split by the width and rfactored; returns the rf block's name
// ("<stage>_rf": vector partial results) or "" when left alone.
std::string FactorStage(Schedule& sch, const Stage& s, int64_t lanes, const DefaultCPUScheduleOptions& opt) {
  BlockRV block = sch.GetBlock(s.name, std::nullopt);
  Array<LoopRV> loops = sch.GetLoops(block);
  LoopRV along = loops[loops.size() - 1];
  const int64_t* extent = AsConstInt(sch.Get(along).cast<For>()->extent);
  if (!s.reduce || !s.contiguous || extent == nullptr) return "";
  // The widest vector (the target's, else a half, a quarter, ... of at least
  // 4 lanes) that the row length divides: a 1000-wide softmax row on
  // AVX-512 takes 8 lanes rather than staying scalar.
  while (lanes >= 8 && (*extent % lanes != 0 || *extent < 2 * lanes)) lanes /= 2;
  if (lanes < 2 || *extent < 2 * lanes || *extent % lanes != 0) return "";
  std::string rf_name;
  ApplyOrRestore(&sch, [&] {
    // Both parts at least 2 long: a lane loop or a reduction loop of 1 changes
    // the loop nest the later steps (compute_at, vectorize) are recorded on.
    Array<LoopRV> parts = SplitByKnob(sch, along, *extent, lanes, 4 * lanes, {}, opt, 2);
    BlockRV rf = sch.RFactor(parts[1], s.out_ndim);
    rf_name = sch.Get(rf).cast<Block>()->name_hint;
  });
  return rf_name;
}

// Vectorizes one stage now under the row loop: an rf block's lane loop (and
// its decomposed init), a spatial stage's loop along the row.
void VectorizeStage(Schedule& sch, const std::string& name, bool rf, bool spatial, int64_t lanes,
                    const DefaultCPUScheduleOptions& opt) {
  ApplyOrRestore(&sch, [&] {  // refused: this stage stays scalar
    BlockRV block = sch.GetBlock(name, std::nullopt);
    Array<LoopRV> loops = sch.GetLoops(block);
    LoopRV along = loops[loops.size() - 1];
    if (rf) {
      // compute_at made the loops in the rf block's iterator order (lanes,
      // then the reduction): the reduction goes outside.
      LoopRV lane = loops[loops.size() - 2];
      sch.Reorder({along, lane});
      sch.Vectorize(lane);
      BlockRV init = sch.DecomposeReduction(block, along);
      Array<LoopRV> init_loops = sch.GetLoops(init);
      sch.Vectorize(init_loops[init_loops.size() - 1]);
    } else if (spatial) {
      const int64_t* extent = AsConstInt(sch.Get(along).cast<For>()->extent);
      if (extent == nullptr || *extent < 4) return;
      if (*extent > lanes) along = SplitByKnob(sch, along, *extent, lanes, 4 * lanes, {lanes, 2 * lanes, 4 * lanes}, opt)[1];
      sch.Vectorize(along);
    }
  });
}

}  // namespace

std::optional<std::vector<std::string>> RowKernelStages(const PrimFunc& func) {
  std::optional<std::vector<Stage>> stages = MatchRows(func);
  if (!stages) return std::nullopt;
  std::vector<std::string> names;
  for (const Stage& s : *stages) names.push_back(s.name);
  return names;
}

bool ScheduleRowKernel(Schedule* sch_ptr, const DefaultCPUScheduleOptions& opt) {
  Schedule& sch = *sch_ptr;
  std::optional<std::vector<Stage>> stages = MatchRows(sch.FuncOf(sch->func_name));
  if (!stages) return false;
  return ApplyOrRestore(sch_ptr, [&] {
    BlockRV out = sch.GetBlock(stages->back().name, std::nullopt);
    Block last = sch.Get(out).cast<Block>();
    int bits = last->writes[0]->buffer->dtype.bits() * last->writes[0]->buffer->dtype.lanes();
    int64_t lanes = bits > 0 ? std::max(1, opt.vector_bits / bits) : 1;
    Array<LoopRV> loops = sch.GetLoops(out);
    size_t rows = loops.size() - 1;
    int64_t work = 1;
    for (const LoopRV& l : loops) {
      const int64_t* c = AsConstInt(sch.Get(l).cast<For>()->extent);
      if (c != nullptr && *c > 0 && work <= (int64_t(1) << 40) / *c) work *= *c;
    }
    // Stages in program order: each rf block right before its reduction.
    std::vector<std::pair<std::string, bool>> order;  // (name, is rf block)
    for (const Stage& s : *stages) {
      std::string rf = FactorStage(sch, s, lanes, opt);
      if (!rf.empty()) order.emplace_back(rf, true);
      order.emplace_back(s.name, false);
    }
    for (size_t i = order.size() - 1; i-- > 0;) {
      sch.ComputeAt(sch.GetBlock(order[i].first, std::nullopt), loops[rows - 1], false, -1);
    }
    for (const auto& [name, rf] : order) {
      bool spatial = false;
      for (const Stage& s : *stages) spatial = spatial || (s.name == name && !s.reduce && s.contiguous);
      VectorizeStage(sch, name, rf, spatial, lanes, opt);
    }
    if (opt.num_cores > 1 && work >= opt.min_parallel_work) {
      Array<LoopRV> row_loops;
      for (size_t l = 0; l < rows; ++l) row_loops.push_back(loops[l]);
      sch.Parallel(rows > 1 ? sch.Fuse(row_loops, true) : row_loops[0]);
    }
  });
}

}  // namespace tir
}  // namespace tessera
