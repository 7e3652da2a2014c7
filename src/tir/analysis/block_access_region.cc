// Block read/write region inference (see block_access_region.h): walks a
// block's init and body, bounds every buffer index with the loops inside the
// block relaxed (arith::EvalSet), and unions the bounds per buffer. TIR analysis; the
// TVMScript parser completes blocks without T.reads/T.writes through
// CompleteBlockAccessRegions, schedule primitives call InferBlockAccessRegions.
#include "tir/analysis/block_access_region.h"

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/linear_form.h"
#include "runtime/registry.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

// ---- interval bounds of indices ---------------------------------------------------------

PrimExpr IntConst(DataType t, int64_t v) { return IntImm(t.element_of(), v); }

// e + c, merging with a trailing constant: (x + 3) + 1 -> x + 4.
PrimExpr AddConst(const PrimExpr& e, int64_t c) {
  if (c == 0) return e;
  if (const int64_t* v = AsConstInt(e)) return IntConst(e.dtype(), *v + c);
  if (const auto* a = e.as<AddNode>()) {
    if (const int64_t* k = AsConstInt(a->b)) return AddConst(a->a, *k + c);
  }
  if (const auto* s = e.as<SubNode>()) {
    if (const int64_t* k = AsConstInt(s->b)) return AddConst(s->a, c - *k);
  }
  return c > 0 ? add(e, IntConst(e.dtype(), c)) : sub(e, IntConst(e.dtype(), -c));
}

PrimExpr AddExpr(const PrimExpr& x, const PrimExpr& y) {
  if (const int64_t* c = AsConstInt(y)) return AddConst(x, *c);
  if (const int64_t* c = AsConstInt(x)) return AddConst(y, *c);
  return add(x, y);
}

// The smaller / larger of two bounds when they differ by a constant, else min/max.
PrimExpr MinExpr(const PrimExpr& x, const PrimExpr& y) {
  if (std::optional<int64_t> d = arith::ConstantDifference(x, y)) return *d <= 0 ? x : y;
  return min(x, y);
}
PrimExpr MaxExpr(const PrimExpr& x, const PrimExpr& y) {
  if (std::optional<int64_t> d = arith::ConstantDifference(x, y)) return *d >= 0 ? x : y;
  return max(x, y);
}

// Inclusive [lo, hi]; `full` when no bound is known (the whole dimension).
struct Interval {
  PrimExpr lo, hi;
  bool full = false;
  static Interval Full() { return Interval{PrimExpr(), PrimExpr(), true}; }
  static Interval Point(const PrimExpr& e) { return Interval{e, e, false}; }
};

Interval Union(const Interval& a, const Interval& b) {
  if (a.full || b.full) return Interval::Full();
  return Interval{MinExpr(a.lo, b.lo), MaxExpr(a.hi, b.hi), false};
}

// Bounds index expressions with the integer-set analysis (arith::EvalSet),
// the loops inside the block (and let-bound values) relaxed over their ranges.
class IndexBounder {
 public:
  // A loop variable ranging over [min, min + extent), itself bounded by the
  // enclosing relaxed loops.
  void EnterLoop(const Var& var, const PrimExpr& min, const PrimExpr& extent) {
    Interval iv = BoundRange(min, extent);
    dom_[var.get()] = iv.full ? arith::IntSet::Everything() : arith::IntSet::Interval(iv.lo, iv.hi);
  }
  void EnterLet(const Var& var, const PrimExpr& value) {
    dom_[var.get()] = arith::EvalSet(value, dom_, &analyzer_);
  }
  void Exit(const Var& var) { dom_.erase(var.get()); }

  Interval Bound(const PrimExpr& e) {
    // Scalars free of relaxed variables are points, kept as written.
    if (e.dtype().lanes() == 1 && !DependsOnRelaxed(e)) return Interval::Point(e);
    arith::IntSet set = arith::EvalSet(e, dom_, &analyzer_);
    if (!set.HasLowerBound() || !set.HasUpperBound()) return Interval::Full();
    return Interval{set.min(), set.max(), false};
  }

  // The interval covered by the range [min, min + extent).
  Interval BoundRange(const PrimExpr& min, const PrimExpr& extent) {
    Interval lo = Bound(min);
    Interval hi = Bound(AddConst(AddExpr(min, extent), -1));
    if (lo.full || hi.full) return Interval::Full();
    return Interval{lo.lo, hi.hi, false};
  }

 private:
  bool DependsOnRelaxed(const PrimExpr& e) const {
    if (dom_.empty()) return false;
    bool found = false;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (const auto* v = n.as<VarNode>()) found = found || dom_.count(v) > 0;
    });
    return found;
  }

  arith::Analyzer analyzer_;
  std::unordered_map<const Object*, arith::IntSet> dom_;
};

Range ToRange(const Interval& iv, const PrimExpr& shape_dim) {
  if (iv.full) return Range::FromMinExtent(IntConst(shape_dim.dtype(), 0), shape_dim);
  std::optional<arith::LinearForm> width = arith::LinearDifference(iv.hi, iv.lo);
  if (width && width->AddScaled(arith::LinearForm{1, {}}, 1)) {
    return Range::FromMinExtent(iv.lo, width->ToExpr(iv.lo.dtype()));
  }
  return Range::FromMinExtent(iv.lo, AddConst(sub(iv.hi, iv.lo), 1));
}

// ---- the detector ---------------------------------------------------------------------

struct BufferAccess {
  Buffer buffer;
  std::vector<Interval> region;
};

class AccessDetector : public StmtExprVisitor {
 public:
  // `visible(buffer)`: whether accesses to the buffer are reported;
  // `by_data`: buffers whose bare data variable use is an opaque access.
  AccessDetector(std::function<bool(const Buffer&)> visible, std::unordered_map<const VarNode*, Buffer> by_data)
      : visible_(std::move(visible)), by_data_(std::move(by_data)) {}

  void Run(const Block& block) {
    for (const MatchBufferRegion& m : block->match_buffers) {
      if (visible_(m->source->buffer)) {
        matches_[m->buffer->data.get()] = m;
        by_data_[m->buffer->data.get()] = m->buffer;
      }
    }
    if (block->init) VisitStmt(*block->init);
    VisitStmt(block->body);
  }

  std::pair<Array<BufferRegion>, Array<BufferRegion>> Result(bool has_init) const {
    std::unordered_set<const BufferNode*> opaque;
    for (const BufferAccess& a : opaques_) opaque.insert(a.buffer.get());
    std::unordered_set<const BufferNode*> written;
    Array<BufferRegion> writes;
    for (const BufferAccess& a : writes_) {
      if (opaque.count(a.buffer.get())) continue;
      writes.push_back(Collect(a));
      written.insert(a.buffer.get());
    }
    Array<BufferRegion> reads;
    for (const BufferAccess& a : reads_) {
      if (opaque.count(a.buffer.get())) continue;
      if (has_init && written.count(a.buffer.get())) continue;  // a reduction's own output
      reads.push_back(Collect(a));
    }
    for (const BufferAccess& a : opaques_) {
      reads.push_back(Collect(a));
      writes.push_back(Collect(a));
    }
    return {reads, writes};
  }

 private:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  static BufferRegion Collect(const BufferAccess& a) {
    Array<Range> region;
    for (size_t i = 0; i < a.region.size(); ++i) region.push_back(ToRange(a.region[i], a.buffer->shape[i]));
    return BufferRegion(a.buffer, region);
  }

  std::vector<Interval> RelaxIndices(const Array<PrimExpr>& indices) {
    std::vector<Interval> out;
    for (PrimExpr i : indices) out.push_back(bounder_.Bound(i));
    return out;
  }

  void Update(std::vector<BufferAccess>* list, Buffer buffer, std::vector<Interval> region) {
    auto m = matches_.find(buffer->data.get());
    if (m != matches_.end()) {
      region = ToSource(m->second, region);
      buffer = m->second->source->buffer;
    } else if (!visible_(buffer)) {
      return;
    }
    for (BufferAccess& a : *list) {
      if (a.buffer.same_as(buffer)) {
        if (a.region.size() != region.size()) return;  // inconsistent use; keep the first
        for (size_t i = 0; i < region.size(); ++i) a.region[i] = Union(a.region[i], region[i]);
        return;
      }
    }
    list->push_back({buffer, std::move(region)});
  }

  // A region of a match_buffer, expressed in its source buffer: leading
  // source dimensions are points, the rest are offset by the source minimum.
  std::vector<Interval> ToSource(const MatchBufferRegion& match, const std::vector<Interval>& region) {
    const Buffer& target = match->buffer;
    const Array<Range>& src = match->source->region;
    std::vector<Interval> out;
    if (src.size() < region.size()) {
      for (size_t i = 0; i < src.size(); ++i) out.push_back(Interval::Full());
      return out;
    }
    size_t offset = src.size() - region.size();
    for (size_t i = 0; i < offset; ++i) out.push_back(bounder_.Bound(src[i]->min));
    for (size_t i = 0; i < region.size(); ++i) {
      Interval t = region[i];
      if (t.full) t = Interval{IntConst(target->shape[i].dtype(), 0), AddConst(target->shape[i], -1), false};
      Interval lo = bounder_.Bound(AddExpr(src[i + offset]->min, t.lo));
      Interval hi = bounder_.Bound(AddExpr(src[i + offset]->min, t.hi));
      out.push_back(lo.full || hi.full ? Interval::Full() : Interval{lo.lo, hi.hi, false});
    }
    return out;
  }

  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    bounder_.EnterLoop(op->loop_var, op->min, op->extent);
    VisitStmt(op->body);
    bounder_.Exit(op->loop_var);
  }

  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    bounder_.EnterLet(op->var, op->value);
    VisitStmt(op->body);
    bounder_.Exit(op->var);
  }

  void VisitStmt_(const BufferStoreNode* op) override {
    Update(&writes_, op->buffer, RelaxIndices(op->indices));
    VisitExpr(op->value);
    for (PrimExpr i : op->indices) VisitExpr(i);
  }

  void VisitExpr_(const BufferLoadNode* op) override {
    Update(&reads_, op->buffer, RelaxIndices(op->indices));
    for (PrimExpr i : op->indices) VisitExpr(i);
  }

  void VisitExpr_(const VarNode* op) override {
    auto it = by_data_.find(op);
    if (it == by_data_.end()) return;
    std::vector<Interval> full;
    for (size_t i = 0; i < it->second->shape.size(); ++i) full.push_back(Interval::Full());
    Update(&opaques_, it->second, full);
  }

  // tvm_access_ptr(type, data, offset, extent, mask) of a visible buffer:
  // the whole buffer is read (mask 1), written (mask 2) or both (opaque).
  void VisitExpr_(const CallNode* op) override {
    const auto* callee = op->op.as<OpNode>();
    if (callee != nullptr && callee->name == "tir.tvm_access_ptr" && op->args.size() == 5) {
      const auto* data = op->args[1].as<VarNode>();
      std::optional<int64_t> mask = ConstIntValue(op->args[4]);
      auto it = data ? by_data_.find(data) : by_data_.end();
      if (it != by_data_.end() && mask.has_value()) {
        std::vector<Interval> full(it->second->shape.size(), Interval::Full());
        if ((*mask & 3) == 3) {
          Update(&opaques_, it->second, full);
        } else if (*mask & 1) {
          Update(&reads_, it->second, full);
        } else if (*mask & 2) {
          Update(&writes_, it->second, full);
        }
        for (size_t i = 2; i < op->args.size(); ++i) VisitExpr(op->args[i]);
        return;
      }
    }
    StmtExprVisitor::VisitExpr_(op);
  }

  // A nested block is not entered: its declared regions, with its iteration
  // variables replaced by their bindings, relaxed over the loops in between.
  void VisitStmt_(const BlockRealizeNode* op) override {
    const Block& block = op->block;
    Map<Var, PrimExpr> vmap;
    for (size_t i = 0; i < block->iter_vars.size() && i < op->iter_values.size(); ++i) {
      vmap.Set(block->iter_vars[i]->var, op->iter_values[i]);
    }
    auto relax = [&](const BufferRegion& r) {
      std::vector<Interval> out;
      for (Range range : r->region) {
        out.push_back(bounder_.BoundRange(Substitute(range->min, vmap), Substitute(range->extent, vmap)));
      }
      return out;
    };
    for (BufferRegion r : block->reads) Update(&reads_, r->buffer, relax(r));
    for (BufferRegion r : block->writes) Update(&writes_, r->buffer, relax(r));
  }

  std::function<bool(const Buffer&)> visible_;
  std::unordered_map<const VarNode*, Buffer> by_data_;
  std::unordered_map<const VarNode*, MatchBufferRegion> matches_;
  IndexBounder bounder_;
  std::vector<BufferAccess> reads_, writes_, opaques_;
};

// Buffers a block refers to (loads, stores, nested blocks' regions, match
// sources) and those it creates itself (alloc_buffers, DeclBuffer, Allocate).
class BufferCollector : public StmtExprVisitor {
 public:
  std::unordered_map<const VarNode*, Buffer> used;
  std::unordered_set<const VarNode*> created;

  void Run(const Block& block) {
    for (const Buffer& b : block->alloc_buffers) created.insert(b->data.get());
    for (const MatchBufferRegion& m : block->match_buffers) {
      Use(m->source->buffer);
      // A view of a buffer the block creates is local to the block too.
      if (created.count(m->source->buffer->data.get())) created.insert(m->buffer->data.get());
    }
    if (block->init) VisitStmt(*block->init);
    VisitStmt(block->body);
  }

 private:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void Use(const Buffer& b) { used.emplace(b->data.get(), b); }
  void VisitStmt_(const BufferStoreNode* op) override {
    Use(op->buffer);
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    Use(op->buffer);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    created.insert(op->buffer->data.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    created.insert(op->buffer_var.get());
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    for (BufferRegion r : op->block->reads) Use(r->buffer);
    for (BufferRegion r : op->block->writes) Use(r->buffer);
  }
};

}  // namespace

std::pair<Array<BufferRegion>, Array<BufferRegion>> InferBlockAccessRegions(const Block& block) {
  TESSERA_CHECK_OR_THROW(block.defined(), ValueError) << "InferBlockAccessRegions: the block is undefined";
  BufferCollector collector;
  collector.Run(block);
  std::unordered_set<const VarNode*> created = collector.created;
  std::unordered_map<const VarNode*, Buffer> by_data;
  for (const auto& [var, buf] : collector.used) {
    if (!created.count(var)) by_data.emplace(var, buf);
  }
  AccessDetector detector([created](const Buffer& b) { return created.count(b->data.get()) == 0; }, by_data);
  detector.Run(block);
  return detector.Result(block->init.has_value());
}

std::pair<Array<BufferRegion>, Array<BufferRegion>> InferBlockAccessRegions(const Block& block,
                                                                            const Map<Var, Buffer>& visible_buffers) {
  TESSERA_CHECK_OR_THROW(block.defined(), ValueError) << "InferBlockAccessRegions: the block is undefined";
  std::unordered_map<const VarNode*, Buffer> by_data;
  for (const auto& [var, buf] : visible_buffers.items()) by_data.emplace(var.get(), buf);
  // Buffers allocated by the block itself are never part of its accesses.
  for (const Buffer& b : block->alloc_buffers) by_data.erase(b->data.get());
  auto visible = [by_data](const Buffer& b) {
    auto it = by_data.find(b->data.get());
    return it != by_data.end();
  };
  AccessDetector detector(visible, by_data);
  detector.Run(block);
  return detector.Result(block->init.has_value());
}

// ---- completing parsed functions ---------------------------------------------------------

namespace {

class RegionCompleter : public StmtExprMutator {
 public:
  explicit RegionCompleter(Map<Var, Buffer> visible) : visible_(std::move(visible)) {}

 private:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const BlockNode* op) override {
    bool outermost = depth_ == 0;
    // Buffers the block allocates or matches are visible to its children only.
    std::vector<Var> added;
    auto add_visible = [&](const Buffer& b) {
      if (!visible_.count(b->data)) {
        visible_.Set(b->data, b);
        added.push_back(b->data);
      }
    };
    for (const Buffer& b : op->alloc_buffers) add_visible(b);
    for (const MatchBufferRegion& m : op->match_buffers) add_visible(m->buffer);
    ++depth_;
    Block block = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    --depth_;
    for (const Var& v : added) visible_.erase(v);

    std::optional<Any> marker = block->annotations.Get(kScriptInferRegions);
    if (!marker) return block;
    int64_t mask = 3;
    if (auto m = marker->try_cast<int64_t>()) {
      mask = *m;
    } else if (const auto* imm = marker->as<IntImmNode>()) {
      mask = imm->value;
    }
    BlockNode* n = block.CopyOnWrite();
    n->annotations.erase(kScriptInferRegions);
    bool is_root = outermost && block->iter_vars.empty();
    if (!is_root) {
      auto [reads, writes] = InferBlockAccessRegions(block, visible_);
      if (mask & 1) n->reads = reads;
      if ((mask & 2) || (mask == 1 && n->writes.empty())) n->writes = writes;
    }
    return block;
  }

  Stmt VisitStmt_(const DeclBufferNode* op) override {
    bool add = !visible_.count(op->buffer->data);
    if (add) visible_.Set(op->buffer->data, op->buffer);
    Stmt out = StmtExprMutator::VisitStmt_(op);
    if (add) visible_.erase(op->buffer->data);
    return out;
  }

  Map<Var, Buffer> visible_;
  int depth_ = 0;
};

}  // namespace

PrimFunc CompleteBlockAccessRegions(const PrimFunc& func) {
  TESSERA_CHECK_OR_THROW(func.defined(), ValueError) << "CompleteBlockAccessRegions: the function is undefined";
  Map<Var, Buffer> visible;
  for (const auto& [param, buffer] : func->buffer_map.items()) visible.Set(buffer->data, buffer);
  RegionCompleter completer(visible);
  Stmt body = completer.VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  PrimFunc out = func;
  out.CopyOnWrite()->body = body;
  return out;
}

// (block[, visible buffers]) -> [reads, writes]
TESSERA_REGISTER_GLOBAL("tir.analysis.InferBlockAccessRegions").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() == 1 || args.size() == 2, TypeError)
      << "tir.analysis.InferBlockAccessRegions expects (block[, buffer_var_map]) but got " << args.size()
      << " arguments";
  Block block = args[0].cast<Block>();
  auto [reads, writes] = args.size() == 2 && !args[1].is_none()
                             ? InferBlockAccessRegions(block, args[1].cast<Map<Var, Buffer>>())
                             : InferBlockAccessRegions(block);
  return Array<Array<BufferRegion>>({reads, writes});
});

TESSERA_REGISTER_GLOBAL("tir.analysis.CompleteBlockAccessRegions").set_body_typed([](PrimFunc func) {
  return CompleteBlockAccessRegions(func);
});

}  // namespace tir
}  // namespace tessera
