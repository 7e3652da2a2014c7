// rolling_buffer (TVM's): turns an intermediate buffer that a block computes
// tile by tile under its consumer's loop (after compute_at) into a circular
// buffer along the outermost loop whose consecutive tiles overlap: that
// dimension shrinks to one tile, every access to it becomes index % extent,
// and the producer's predicate skips the overlap already computed by the
// previous iteration. Its instruction kind ("RollingBuffer"), the function
// behind the Schedule method and the tir.schedule.RollingBuffer FFI entry.
// TIR schedule layer.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/region_bound.h"
#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "arith/int_set.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "rolling_buffer";

// What the analysis found: the buffer before and after, the rolled dimension
// with its new extent, and per dimension the loop variable whose consecutive
// iterations overlap there (null when none) with the overlap's size.
struct Rolling {
  Buffer old_buf, new_buf;
  size_t axis = 0;
  int64_t extent = 0;
  std::vector<const ForNode*> overlap_loop;
  std::vector<int64_t> overlap;
};

const IntImmNode* AsInt(const PrimExpr& e) { return e.as<IntImmNode>(); }

// Matches the lower bound of one relaxed dimension against the tiling forms
// TVM accepts: `v * s // d`, `v * s`, `v` or a constant. Sets `var` and
// `stride` (null var for a constant); false for any other form.
bool MatchBound(const PrimExpr& min, const VarNode** var, int64_t* stride) {
  *var = nullptr;
  *stride = 0;
  PrimExpr e = min;
  int64_t divisor = 1;
  if (const auto* fd = e.as<FloorDivNode>()) {
    const IntImmNode* d = AsInt(fd->b);
    const auto* mul = fd->a.as<MulNode>();
    if (d == nullptr || d->value <= 0 || mul == nullptr) return false;
    divisor = d->value;
    e = fd->a;
  }
  if (const auto* mul = e.as<MulNode>()) {
    const IntImmNode* s = AsInt(mul->b);
    if (mul->a.as<VarNode>() == nullptr || s == nullptr || s->value <= 0) return false;
    *var = mul->a.as<VarNode>();
    *stride = (s->value + divisor - 1) / divisor;  // the per-iteration step, rounded up
    return true;
  }
  if (divisor != 1) return false;
  if (const auto* v = e.as<VarNode>()) {
    *var = v;
    *stride = 1;
    return true;
  }
  return AsInt(e) != nullptr;
}

// Whether the data variable of `buf` is used other than through loads and
// stores (an opaque access the rewrite could not re-index).
class OpaqueUseFinder : public StmtExprVisitor {
 public:
  explicit OpaqueUseFinder(const Buffer& buf) : data_(buf->data.get()) {}
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitExpr_(const VarNode* op) override {
    if (op == data_) found = true;
  }
  void VisitStmt_(const BlockNode* op) override {
    for (const MatchBufferRegion& m : op->match_buffers) {
      if (m->source->buffer->data.get() == data_) matched = op;
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  bool found = false;
  const BlockNode* matched = nullptr;

 private:
  const VarNode* data_;
};

// Rewrites the scope block's body: accesses of the old buffer become
// accesses of the new one, modulo the extent along the rolled dimension;
// every block below the scope gets its iteration variable at the rolled
// position marked opaque (its iterations carry data to the next ones) and
// its regions of the buffer re-inferred; the realize of a block storing to
// the buffer gets the predicate that skips the overlap.
class RollingRewriter : public StmtExprMutator {
 public:
  RollingRewriter(const Rolling& info, const PrimFunc& f) : info_(info), f_(f) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Array<PrimExpr> Roll(const Array<PrimExpr>& indices) const {
    std::vector<PrimExpr> out(indices.begin(), indices.end());
    if (info_.axis < out.size()) {
      PrimExpr& e = out[info_.axis];
      e = floormod(e, IntImm(e.dtype(), info_.extent));
    }
    return Array<PrimExpr>(out);
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!load->buffer.same_as(info_.old_buf)) return e;
    return BufferLoad(info_.new_buf, Roll(load->indices), load->span);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (!store->buffer.same_as(info_.old_buf)) return s;
    stores_ = true;
    return BufferStore(info_.new_buf, store->value, Roll(store->indices), store->span);
  }

  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    bool outer = stores_;
    stores_ = false;
    Stmt s = StmtExprMutator::VisitStmt_(op);
    bool stores = stores_;
    stores_ = outer;
    if (!stores) return s;
    // The element at offset o < overlap of dimension d along loop v was
    // computed by iteration v - 1: skip it unless v is the first iteration.
    arith::Analyzer analyzer;
    PrimExpr pred = s.as<BlockRealizeNode>()->predicate;
    Map<Var, PrimExpr> bind;
    for (size_t i = 0; i < op->block->iter_vars.size(); ++i) bind.Set(op->block->iter_vars[i]->var, op->iter_values[i]);
    std::optional<BufferRegion> region;
    for (const BufferRegion& r : op->block->writes) {
      if (r->buffer.same_as(info_.old_buf)) region = r;
    }
    if (!region) {
      ThrowScheduleError(kPrim, "block \"" + op->block->name_hint + "\" stores to buffer " + info_.old_buf->name +
                                    " without listing it among its writes",
                         f_, {op->block.get()});
    }
    for (size_t d = 0; d < info_.overlap.size(); ++d) {
      if (info_.overlap_loop[d] == nullptr || info_.overlap[d] <= 0) continue;
      const Var& v = info_.overlap_loop[d]->loop_var;
      PrimExpr index = Substitute((*region)->region[d]->min, bind);
      Map<Var, arith::IntSet> first;
      first.Set(v, arith::IntSet::SinglePoint(IntImm(v.dtype(), 0)));
      PrimExpr offset = arith::EvalSet(index, first, &analyzer).min();
      pred = analyzer.Simplify(
          And(pred, Or(LT(v, IntImm(v.dtype(), 1)), GE(offset, IntImm(offset.dtype(), info_.overlap[d])))));
    }
    BlockRealize r = Downcast<BlockRealize>(s);
    r.CopyOnWrite()->predicate = pred;
    return r;
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    std::vector<IterVar> iters(b->iter_vars.begin(), b->iter_vars.end());
    // (A reduction variable at that position stays one: made opaque, it
    // would drop out of the init's condition, which then ran at every
    // reduction step; TVM has that bug, the random schedule test found it
    // after reorder_block_iter_var.)
    if (info_.axis < iters.size() && iters[info_.axis]->iter_type != kCommReduce) {
      const IterVar& iv = iters[info_.axis];
      iters[info_.axis] = IterVar(iv->dom, iv->var, kOpaque, iv->thread_tag, iv->span);
    }
    Map<Var, Buffer> visible;
    visible.Set(info_.new_buf->data, info_.new_buf);
    auto inferred = InferBlockAccessRegions(b, visible);
    auto* n = b.CopyOnWrite();
    n->iter_vars = Array<IterVar>(iters);
    n->reads = Swap(b->reads, inferred.first, op);
    n->writes = Swap(b->writes, inferred.second, op);
    return b;
  }

 private:
  Array<BufferRegion> Swap(const Array<BufferRegion>& regions, const Array<BufferRegion>& inferred,
                           const BlockNode* block) const {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      if (!r->buffer.same_as(info_.old_buf)) {
        out.push_back(r);
        continue;
      }
      if (inferred.size() != 1) {
        ThrowScheduleError(kPrim, "cannot re-infer the region of buffer " + info_.old_buf->name +
                                      " accessed by block \"" + block->name_hint + "\"",
                           f_, {block});
      }
      out.push_back(inferred[0]);
    }
    return Array<BufferRegion>(out);
  }

  const Rolling& info_;
  const PrimFunc& f_;
  bool stores_ = false;
};

void RollingBuffer(const Schedule& sch, const BlockRV& block_rv, int64_t write_buffer_index) {
  BlockLocation loc = sch.LocateBlock(block_rv, kPrim);
  const std::string func = sch->blocks.at(block_rv.get()).func;
  auto index = sch.IndexOf(func);
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  const std::string bname = "block \"" + b->name_hint + "\"";

  // Step 1. The buffer, an intermediate of the block's scope.
  if (write_buffer_index < 0 || write_buffer_index >= static_cast<int64_t>(b->writes.size())) {
    ThrowScheduleError(kPrim, bname + " has " + std::to_string(b->writes.size()) + " written buffers; index " +
                                  std::to_string(write_buffer_index) + " is out of range",
                       f, {b});
  }
  const BufferRegion& target = b->writes[write_buffer_index];
  const Buffer buf = target->buffer;
  if (loc.scope == nullptr) ThrowScheduleError(kPrim, bname + " has no enclosing scope block", f, {b});
  // As TVM: the block is not an output block (every buffer it writes is
  // allocated by its scope block).
  for (const BufferRegion& w : b->writes) {
    bool allocated = false;
    for (const Buffer& a : loc.scope->alloc_buffers) allocated = allocated || a.same_as(w->buffer);
    if (!allocated) {
      ThrowScheduleError(kPrim, bname + " is an output block: it writes buffer " + w->buffer->name +
                                    ", which its scope block \"" + loc.scope->name_hint +
                                    "\" does not allocate (a function parameter or an outer buffer); "
                                    "rolling_buffer needs an intermediate buffer",
                         f, {b});
    }
  }
  if (!buf->strides.empty()) {
    ThrowScheduleError(kPrim, "buffer " + buf->name + " has explicit strides; rolling_buffer cannot shrink it", f,
                       {b});
  }
  {
    OpaqueUseFinder finder(buf);
    finder.VisitStmt(loc.scope->body);
    if (finder.matched != nullptr) {
      ThrowScheduleError(kPrim, "buffer " + buf->name + " is matched by T.match_buffer in block \"" +
                                    finder.matched->name_hint + "\"; rolling_buffer needs loads and stores",
                         f, {finder.matched});
    }
    if (finder.found) {
      ThrowScheduleError(kPrim, "buffer " + buf->name + " is accessed opaquely (through its data pointer); "
                                    "rolling_buffer needs loads and stores",
                         f, {b});
    }
  }

  // Step 2. As TVM: only read-after-write dependencies in the scope (another
  // writer of a buffer the block writes is a write-after-write one); the
  // consumers are the later blocks reading what it writes.
  auto writes_of = [](const BlockNode* x, const Buffer& buffer) {
    for (const BufferRegion& r : x->writes) {
      if (r->buffer.same_as(buffer)) return true;
    }
    return false;
  };
  std::vector<const BlockLocation*> consumers;
  bool after = false;
  for (const BlockLocation& other : index->blocks()) {
    if (other.scope != loc.scope) continue;
    if (other.block == b) {
      after = true;
      continue;
    }
    for (const BufferRegion& w : b->writes) {
      if (writes_of(other.block, w->buffer)) {
        ThrowScheduleError(kPrim, bname + " must have only read-after-write dependencies, but block \"" +
                                      other.block->name_hint + "\" also writes buffer " + w->buffer->name,
                           f, {b, other.block});
      }
    }
    if (!after) continue;
    bool reads = false;
    for (const BufferRegion& r : other.block->reads) {
      for (const BufferRegion& w : b->writes) reads = reads || r->buffer.same_as(w->buffer);
    }
    if (reads) consumers.push_back(&other);
  }

  // Step 3. The lowest common ancestor of the block and its consumers must
  // be a loop (the block computed at a loop of its consumers).
  size_t common = consumers.empty() ? 0 : loc.loops.size();
  for (const BlockLocation* c : consumers) {
    size_t k = 0;
    while (k < common && k < c->loops.size() && c->loops[k] == loc.loops[k]) ++k;
    common = k;
  }
  if (common == 0) {
    ThrowScheduleError(kPrim, "the lowest common ancestor of " + bname + " and the consumers of buffer " +
                                  buf->name + " is not a loop; compute_at the block under a loop of its consumers "
                                              "first",
                       f, {b});
  }
  // Relax the written region over the loops below that ancestor.
  Map<Var, arith::IntSet> dom;
  for (size_t k = common; k < loc.loops.size(); ++k) {
    const ForNode* l = loc.loops[k];
    dom.Set(l->loop_var, arith::IntSet::FromRange(Range::FromMinExtent(l->min, l->extent)));
  }
  Map<Var, PrimExpr> bind;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) bind.Set(b->iter_vars[i]->var, loc.realize->iter_values[i]);
  arith::Analyzer analyzer;
  // Bounded under the block's predicate (a non-divisible split of a tile
  // loop computes fewer rows than its loops' extents: the overlap is
  // measured on what the block writes).
  Map<Var, Range> loop_dom;
  for (size_t k = common; k < loc.loops.size(); ++k) {
    loop_dom.Set(loc.loops[k]->loop_var, Range::FromMinExtent(loc.loops[k]->min, loc.loops[k]->extent));
  }
  std::vector<Range> subs;
  for (const Range& r : target->region) subs.push_back(Range::FromMinExtent(Substitute(r->min, bind), Substitute(r->extent, bind)));
  std::vector<arith::IntSet> bounded =
      arith::EstimateRegionUpperBound(Array<Range>(subs), loop_dom, loc.realize->predicate, &analyzer);
  std::vector<Range> relaxed;
  for (size_t d = 0; d < target->region.size(); ++d) {
    const Range& r = target->region[d];
    const arith::IntSet& bset = bounded[d];
    if (bset.HasLowerBound() && bset.HasUpperBound()) {
      // Only a constant extent is taken: a bound in the tile loops (a
      // non-divisible tiling's last tile) leaves the loops' extent, as TVM.
      PrimExpr extent = analyzer.Simplify(bset.max() - bset.min() + 1);
      if (AsInt(extent)) {
        relaxed.push_back(Range::FromMinExtent(analyzer.Simplify(bset.min()), extent));
        continue;
      }
    }
    arith::IntSet set = arith::EvalSet(subs[d], dom, &analyzer);
    relaxed.push_back(set.CoverRange(Range::FromMinExtent(IntImm(r->min.dtype(), 0), buf->shape[d])));
  }
  std::string region_text;
  for (const Range& r : relaxed) {
    region_text += std::string(region_text.empty() ? "" : ", ") + arith::ExprToString(r->min) + ":" +
                   arith::ExprToString(analyzer.Simplify(r->min + r->extent));
  }
  auto match_error = [&]() {
    ThrowScheduleError(kPrim, "the region " + buf->name + "[" + region_text + "] that " + bname +
                                  " writes per iteration of its consumers' loop has no dimension matching the "
                                  "rolling pattern (a loop variable times a stride, e.g. hh.outer * stride + "
                                  "hh.inner, whose consecutive tiles overlap)",
                       f, {b});
  };

  // Step 4. Per dimension: the loop variable and the overlap of
  // consecutive tiles; the rolled dimension is the one of the outermost loop.
  Rolling info;
  info.old_buf = buf;
  std::vector<const VarNode*> vars;
  for (const Range& r : relaxed) {
    const VarNode* v = nullptr;
    int64_t stride = 0;
    if (!MatchBound(analyzer.Simplify(r->min), &v, &stride)) match_error();
    int64_t overlap = 0;
    if (v != nullptr) {
      const IntImmNode* ext = AsInt(analyzer.Simplify(r->extent));
      if (ext == nullptr) match_error();
      overlap = ext->value - stride;
      if (overlap <= 0) v = nullptr;  // nothing to reuse along it (compaction's business)
    }
    vars.push_back(v);
    info.overlap.push_back(overlap);
  }
  bool found = false;
  for (size_t k = 0; k < loc.loops.size() && !found; ++k) {
    for (size_t d = 0; d < vars.size() && !found; ++d) {
      if (vars[d] == loc.loops[k]->loop_var.get()) {
        found = true;
        info.axis = d;
      }
    }
  }
  if (!found) match_error();
  info.extent = AsInt(analyzer.Simplify(relaxed[info.axis]->extent))->value;
  // The skipped overlap was computed by the previous iteration of its loop:
  // that loop must run its iterations in order, from 0.
  for (size_t d = 0; d < vars.size(); ++d) {
    const ForNode* loop = nullptr;
    if (vars[d] != nullptr) {
      for (const ForNode* l : loc.loops) {
        if (l->loop_var.get() == vars[d]) loop = l;
      }
      if (loop == nullptr) {
        ThrowScheduleError(kPrim, "the tiles of buffer " + buf->name + " overlap along variable " +
                                      vars[d]->name_hint + ", which is not a loop above " + bname +
                                      " in its scope",
                           f, {b});
      }
      const IntImmNode* m = AsInt(loop->min);
      bool in_order = loop->kind == ForKind::kSerial || loop->kind == ForKind::kUnrolled;
      if (m == nullptr || m->value != 0 || !in_order) {
        ThrowScheduleError(kPrim, "loop " + loop->loop_var->name_hint + ", along which the tiles of buffer " +
                                      buf->name + " overlap, must be a serial (or unrolled) loop starting at 0 "
                                      "(each iteration reuses what the previous one computed)",
                           f, {loop});
      }
    }
    info.overlap_loop.push_back(loop);
  }
  Buffer nb = buf;
  {
    std::vector<PrimExpr> shape(buf->shape.begin(), buf->shape.end());
    shape[info.axis] = IntImm(shape[info.axis].dtype(), info.extent);
    nb.CopyOnWrite()->shape = Array<PrimExpr>(shape);
  }
  info.new_buf = nb;

  // Step 5. Rewrite the scope block.
  RollingRewriter rewriter(info, f);
  Block scope = GetRef<Block>(loc.scope);
  Stmt body = rewriter.VisitStmt(loc.scope->body);
  std::optional<Stmt> init;
  if (loc.scope->init) init = rewriter.VisitStmt(*loc.scope->init);
  {
    std::vector<Buffer> allocs;
    for (const Buffer& a : loc.scope->alloc_buffers) allocs.push_back(a.same_as(buf) ? nb : a);
    auto* n = scope.CopyOnWrite();
    n->body = body;
    n->init = init;
    n->alloc_buffers = Array<Buffer>(allocs);
  }
  sch.Commit(func, ReplaceInFunc(f, loc.scope, scope));
  sch.Record("RollingBuffer", {block_rv}, {write_buffer_index}, {});
}

}  // namespace

TESSERA_REGISTER_INST_KIND("RollingBuffer")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      RollingBuffer(sch, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int64_t>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("rolling_buffer", {"block"}, {"write_buffer_index"}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.RollingBuffer")
    .set_body_typed([](Schedule s, BlockRV b, int64_t write_buffer_index) { RollingBuffer(s, b, write_buffer_index); });

}  // namespace tir
}  // namespace tessera
