// Padding for transform_layout: the padded inverse of an index map and the
// rewrite that writes pad_value into the padding (see layout_padding.h).
// Used by layout_transformation.cc only.
#include "tir/schedule/primitive/layout_padding.h"

#include <numeric>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "arith/expr_deep_equal.h"
#include "tir/analysis/block_access_region.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

PrimExpr Const(DataType t, int64_t v) { return IntImm(t, v); }

// floordiv/floormod of `var` or `var + c` by a positive constant.
struct DivisorUse {
  int64_t factor = 1;
  int64_t offset = 0;
  bool seen = false;
  bool consistent = true;
};

void CollectDivisors(const PrimExpr& e, const std::unordered_map<const VarNode*, size_t>& index_of,
                     std::vector<DivisorUse>* uses) {
  PostOrderVisit(e, [&](const ObjectRef& obj) {
    PrimExpr a, b;
    if (const auto* d = obj.as<FloorDivNode>()) {
      a = d->a;
      b = d->b;
    } else if (const auto* m = obj.as<FloorModNode>()) {
      a = m->a;
      b = m->b;
    } else {
      return;
    }
    const int64_t* c = AsConstInt(b);
    const VarNode* v = a.as<VarNode>();
    int64_t offset = 0;
    if (v == nullptr) {
      if (const auto* add = a.as<AddNode>()) {
        const int64_t* off = AsConstInt(add->b);
        if (off != nullptr && add->a.as<VarNode>()) {
          v = add->a.as<VarNode>();
          offset = *off;
        }
      }
    }
    if (v == nullptr || !index_of.count(v)) return;
    DivisorUse& use = (*uses)[index_of.at(v)];
    if (c == nullptr || *c <= 0) {
      use.consistent = false;
      return;
    }
    if (use.seen && use.offset != offset) use.consistent = false;
    use.factor = std::lcm(use.factor, *c);
    use.offset = offset;
    use.seen = true;
  });
}

int64_t FloorDivInt(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::optional<LayoutPadding> AnalyzeLayoutPadding(const Buffer& buf, const IndexMap& map, std::string* why) {
  const Array<Var>& initial = map->initial_indices;
  std::unordered_map<const VarNode*, size_t> index_of;
  for (size_t i = 0; i < initial.size(); ++i) index_of[initial[i].get()] = i;
  std::vector<DivisorUse> uses(initial.size());
  for (const PrimExpr& f : map->final_indices) CollectDivisors(f, index_of, &uses);
  std::vector<PrimExpr> padded_shape;
  std::vector<int64_t> left(initial.size(), 0), extent(initial.size(), -1);
  std::unordered_map<const VarNode*, PrimExpr> shift;
  bool any = false;
  for (size_t i = 0; i < initial.size(); ++i) {
    const DivisorUse& use = uses[i];
    if (!use.consistent) {
      *why = "index " + initial[i]->name_hint + " is divided by a non-constant or with different offsets";
      return std::nullopt;
    }
    if (!use.seen) {
      padded_shape.push_back(buf->shape[i]);
      continue;
    }
    std::optional<int64_t> e = ConstIntValue(buf->shape[i]);
    if (!e) {
      *why = "the extent of dimension " + std::to_string(i) + " of " + buf->name + " is not a constant";
      return std::nullopt;
    }
    extent[i] = *e;
    int64_t start = FloorDivInt(use.offset, use.factor) * use.factor;
    int64_t end = FloorDivInt(use.offset + *e + use.factor - 1, use.factor) * use.factor;
    left[i] = use.offset - start;
    padded_shape.push_back(Const(buf->shape[i].dtype(), end - start));
    if (left[i] != 0) shift[initial[i].get()] = initial[i] - Const(initial[i].dtype(), left[i]);
    any = any || end - start != *e;
  }
  if (!any) {
    *why = "the index map does not pad " + buf->name;
    return std::nullopt;
  }
  arith::Analyzer ana;
  std::vector<PrimExpr> shifted;
  for (const PrimExpr& f : map->final_indices) {
    shifted.push_back(ana.Simplify(Substitute(f, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = shift.find(v.get());
      if (it == shift.end()) return std::nullopt;
      return it->second;
    })));
  }
  IndexMap padded_map(initial, Array<PrimExpr>(shifted));
  LayoutPadding out;
  IndexMap padded_inverse;
  try {
    padded_inverse = padded_map.Inverse(Array<PrimExpr>(padded_shape));
    out.new_shape = padded_map.MapShape(Array<PrimExpr>(padded_shape));
  } catch (const Error& err) {
    *why = err.what();
    return std::nullopt;
  }
  arith::Analyzer out_ana;
  const Array<Var>& axes = padded_inverse->initial_indices;
  for (size_t k = 0; k < axes.size(); ++k) {
    out_ana.Bind(axes[k], Range::FromMinExtent(Const(out.new_shape[k].dtype(), 0), out.new_shape[k]));
  }
  std::vector<PrimExpr> inverse;
  PrimExpr predicate;
  for (size_t i = 0; i < initial.size(); ++i) {
    PrimExpr inv = padded_inverse->final_indices[i];
    if (left[i] != 0) inv = inv - Const(inv.dtype(), left[i]);
    inv = out_ana.Simplify(inv);
    inverse.push_back(inv);
    if (extent[i] < 0) continue;
    const int64_t factor = uses[i].factor;
    const int64_t padded = *AsConstInt(padded_shape[i]);
    if (padded == extent[i]) continue;
    DataType t = inv.dtype();
    PrimExpr pad_here;
    if (left[i] == 0) {
      // Padding at the end only: the last group of `factor`, past the extent.
      pad_here = logical_and(equal(floordiv(inv, Const(t, factor)), Const(t, extent[i] / factor)),
                             less_equal(Const(t, extent[i] % factor), floormod(inv, Const(t, factor))));
    } else {
      pad_here = logical_or(less(inv, Const(t, 0)), less_equal(Const(t, extent[i]), inv));
    }
    predicate = predicate.defined() ? logical_or(predicate, pad_here) : pad_here;
  }
  out.predicate = out_ana.Simplify(predicate, 10);
  out.inverse = IndexMap(axes, Array<PrimExpr>(inverse));
  return out;
}

namespace {

// One store into the buffer being padded, with its context (TVM's plan).
struct WriteInfo {
  const BufferStoreNode* store = nullptr;
  const BlockRealizeNode* realize = nullptr;  // innermost enclosing block
  std::vector<const ForNode*> loops;          // the loops its indices depend on, outermost first
  bool row_major = false;                     // those loops traverse the buffer row-major
};

class WriteCollector : public StmtExprVisitor {
 public:
  explicit WriteCollector(const Buffer& from) : from_(from) {}
  std::vector<WriteInfo> writes;

  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ForNode* op) override {
    size_t depth = loops_.size();
    depth_[op->loop_var.get()] = {depth, depth};
    loops_.push_back(op);
    StmtExprVisitor::VisitStmt_(op);
    loops_.pop_back();
    depth_.erase(op->loop_var.get());
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    std::vector<const VarNode*> bound;
    for (size_t i = 0; i < op->iter_values.size(); ++i) {
      const VarNode* v = op->block->iter_vars[i]->var.get();
      if (auto range = DependRange(op->iter_values[i])) {
        depth_[v] = *range;
        bindings_[v] = SubstituteBindings(op->iter_values[i]);
        bound.push_back(v);
      }
    }
    const BlockRealizeNode* saved = realize_;
    realize_ = op;
    StmtExprVisitor::VisitStmt_(op);
    realize_ = saved;
    for (const VarNode* v : bound) {
      depth_.erase(v);
      bindings_.erase(v);
    }
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (!op->buffer.same_as(from_)) return;
    WriteInfo info;
    info.store = op;
    info.realize = realize_;
    std::optional<std::pair<size_t, size_t>> range;
    for (const PrimExpr& index : op->indices) {
      if (auto r = DependRange(index)) {
        range = range ? std::make_pair(std::min(range->first, r->first), std::max(range->second, r->second)) : *r;
      }
    }
    if (range) info.loops.assign(loops_.begin() + range->first, loops_.begin() + range->second + 1);
    info.row_major = !info.loops.empty() && info.loops.size() == from_->shape.size() &&
                     info.loops.size() == op->indices.size();
    for (size_t i = 0; info.row_major && i < info.loops.size(); ++i) {
      const ForNode* loop = info.loops[i];
      PrimExpr index = SubstituteBindings(op->indices[i]);
      const int64_t* lo = AsConstInt(loop->min);
      info.row_major = index.same_as(loop->loop_var) && lo != nullptr && *lo == 0 &&
                       arith::ExprDeepEqual(loop->extent, from_->shape[i]) && loop->kind == ForKind::kSerial;
      // The nest is replaced from its outermost loop down: it must hold
      // nothing but the next loop (another writer beside it would be lost).
      if (info.row_major && i + 1 < info.loops.size()) info.row_major = loop->body.get() == info.loops[i + 1];
    }
    writes.push_back(info);
  }

 private:
  std::optional<std::pair<size_t, size_t>> DependRange(const PrimExpr& e) const {
    std::optional<std::pair<size_t, size_t>> out;
    PostOrderVisit(e, [&](const ObjectRef& obj) {
      auto it = depth_.find(static_cast<const VarNode*>(obj.as<VarNode>()));
      if (obj.as<VarNode>() == nullptr || it == depth_.end()) return;
      out = out ? std::make_pair(std::min(out->first, it->second.first), std::max(out->second, it->second.second))
                : it->second;
    });
    return out;
  }
  PrimExpr SubstituteBindings(const PrimExpr& e) const {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = bindings_.find(v.get());
      if (it == bindings_.end()) return std::nullopt;
      return it->second;
    });
  }
  Buffer from_;
  std::vector<const ForNode*> loops_;
  std::unordered_map<const VarNode*, std::pair<size_t, size_t>> depth_;
  std::unordered_map<const VarNode*, PrimExpr> bindings_;
  const BlockRealizeNode* realize_ = nullptr;
};

Block WithInferredRegions(Block b) {
  auto [reads, writes] = InferBlockAccessRegions(b);
  auto* n = b.CopyOnWrite();
  n->reads = reads;
  n->writes = writes;
  return b;
}

// Fresh loop variables over the new shape (one set per generated loop nest).
std::vector<Var> FreshAxes(const LayoutPadding& pad) {
  std::vector<Var> out;
  for (const Var& v : pad.inverse->initial_indices) out.emplace_back(v->name_hint, v.dtype());
  return out;
}

PrimExpr SubstituteVars(const PrimExpr& e, const Array<Var>& from, const std::vector<PrimExpr>& to) {
  std::unordered_map<const VarNode*, PrimExpr> m;
  for (size_t i = 0; i < from.size(); ++i) m[from[i].get()] = to[i];
  return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = m.find(v.get());
    if (it == m.end()) return std::nullopt;
    return it->second;
  });
}

Stmt WrapLoops(Stmt body, const std::vector<Var>& axes, const Array<PrimExpr>& shape) {
  for (size_t k = axes.size(); k-- > 0;) {
    body = For(axes[k], Const(shape[k].dtype(), 0), shape[k], ForKind::kSerial, body);
  }
  return body;
}

// A block over the new shape (loops `axes`, block vars v_<axis>) whose body
// is made by `make_body` from the block vars; `predicate_on_axes` (or
// nothing) becomes the block's predicate.
Stmt PaddingBlockNest(const LayoutPadding& pad, const std::string& name, const PrimExpr& where,
                      const std::function<Stmt(const std::vector<PrimExpr>&)>& make_body) {
  std::vector<Var> axes = FreshAxes(pad);
  std::vector<IterVar> iter_vars;
  std::vector<PrimExpr> values, block_vars;
  for (size_t k = 0; k < axes.size(); ++k) {
    Var bv("v_" + axes[k]->name_hint, axes[k].dtype());
    iter_vars.emplace_back(Range::FromMinExtent(Const(pad.new_shape[k].dtype(), 0), pad.new_shape[k]), bv, kDataPar);
    values.push_back(axes[k]);
    block_vars.push_back(bv);
  }
  PrimExpr predicate = where.defined() ? SubstituteVars(where, pad.inverse->initial_indices,
                                                        std::vector<PrimExpr>(axes.begin(), axes.end()))
                                       : PrimExpr(IntImm(DataType::Bool(), 1));
  Block block = WithInferredRegions(Block(Array<IterVar>(iter_vars), {}, {}, name, make_body(block_vars)));
  return WrapLoops(BlockRealize(Array<PrimExpr>(values), predicate, block), axes, pad.new_shape);
}

// Rewrites the body of a row-major writer's loop nest over the new shape.
class StoreReplacer : public StmtExprMutator {
 public:
  StoreReplacer(const WriteInfo& info, const Buffer& to, const LayoutPadding& pad, const IndexMap& pad_value,
                const std::vector<Var>& axes)
      : info_(info), to_(to), pad_value_(pad_value) {
    std::vector<PrimExpr> axis_exprs(axes.begin(), axes.end());
    new_indices_ = axis_exprs;
    predicate_ = SubstituteVars(pad.predicate, pad.inverse->initial_indices, axis_exprs);
    for (size_t i = 0; i < info.loops.size(); ++i) {
      remap_[info.loops[i]->loop_var.get()] =
          SubstituteVars(pad.inverse->final_indices[i], pad.inverse->initial_indices, axis_exprs);
    }
    DefineBlockUpdates(pad, axes);
  }
  bool all_replaced = true;

  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = remap_.find(op);
    return it == remap_.end() ? GetRef<PrimExpr>(op) : it->second;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.same_as(info_.store->buffer) && SameIndices(op->indices)) {
      return BufferLoad(to_, Array<PrimExpr>(new_indices_), op->span);
    }
    return StmtExprMutator::VisitExpr_(op);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    if (!op->buffer.same_as(info_.store->buffer) || !SameIndices(op->indices)) {
      all_replaced = false;
      return StmtExprMutator::VisitStmt_(op);
    }
    PrimExpr value = VisitExpr(op->value);
    PrimExpr padv = pad_value_.MapIndices(Array<PrimExpr>(new_indices_))[0];
    return BufferStore(to_, if_then_else(predicate_, padv, value), Array<PrimExpr>(new_indices_), op->span);
  }
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (op != info_.realize || !new_iter_vars_) return s;
    BlockRealize realize = Downcast<BlockRealize>(s);
    Block block = realize->block;
    block.CopyOnWrite()->iter_vars = Array<IterVar>(*new_iter_vars_);
    block = WithInferredRegions(block);
    auto* n = realize.CopyOnWrite();
    n->block = block;
    n->iter_values = Array<PrimExpr>(*new_iter_values_);
    return realize;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    return WithInferredRegions(Downcast<Block>(StmtExprMutator::VisitStmt_(op)));
  }

 private:
  bool SameIndices(const Array<PrimExpr>& indices) const {
    const Array<PrimExpr>& old = info_.store->indices;
    if (old.size() != indices.size()) return false;
    for (size_t i = 0; i < old.size(); ++i) {
      if (!arith::ExprDeepEqual(old[i], indices[i])) return false;
    }
    return true;
  }
  // When the store's indices are consecutive data-parallel iterators of the
  // innermost block, the block gets new iterators over the new shape.
  void DefineBlockUpdates(const LayoutPadding& pad, const std::vector<Var>& axes) {
    if (info_.realize == nullptr) return;
    const BlockNode* block = info_.realize->block.get();
    const Array<PrimExpr>& old = info_.store->indices;
    const size_t n_old = old.size(), n_iter = block->iter_vars.size();
    if (n_old == 0 || n_iter < n_old) return;
    size_t start = 0;
    while (start < n_iter - n_old && !old[0].same_as(block->iter_vars[start]->var)) ++start;
    for (size_t i = 0; i < n_old; ++i) {
      const IterVar& iv = block->iter_vars[start + i];
      if (!old[i].same_as(iv->var) || iv->iter_type != kDataPar) return;
    }
    std::vector<IterVar> iter_vars;
    std::vector<PrimExpr> values, block_vars;
    for (size_t i = 0; i < start; ++i) {
      iter_vars.push_back(block->iter_vars[i]);
      values.push_back(info_.realize->iter_values[i]);
    }
    for (size_t k = 0; k < axes.size(); ++k) {
      Var bv("v_" + axes[k]->name_hint, axes[k].dtype());
      iter_vars.emplace_back(Range::FromMinExtent(Const(pad.new_shape[k].dtype(), 0), pad.new_shape[k]), bv,
                             kDataPar);
      values.push_back(axes[k]);
      block_vars.push_back(bv);
    }
    for (size_t i = start + n_old; i < n_iter; ++i) {
      iter_vars.push_back(block->iter_vars[i]);
      values.push_back(info_.realize->iter_values[i]);
    }
    for (size_t i = 0; i < n_old; ++i) {
      remap_[old[i].as<VarNode>()] =
          SubstituteVars(pad.inverse->final_indices[i], pad.inverse->initial_indices, block_vars);
    }
    predicate_ = SubstituteVars(pad.predicate, pad.inverse->initial_indices, block_vars);
    new_indices_ = block_vars;
    // The iterator values are visited with the loop remapping; keep the
    // new ones out of it (they are the new loop variables themselves).
    new_iter_vars_ = iter_vars;
    new_iter_values_.emplace();
    for (size_t i = 0; i < values.size(); ++i) {
      bool is_new = i >= start && i < start + axes.size();
      new_iter_values_->push_back(is_new ? values[i] : Substitute(values[i], [&](const Var& v) -> std::optional<PrimExpr> {
        auto it = remap_.find(v.get());
        if (it == remap_.end()) return std::nullopt;
        return it->second;
      }));
    }
  }

  const WriteInfo& info_;
  Buffer to_;
  IndexMap pad_value_;
  std::vector<PrimExpr> new_indices_;
  PrimExpr predicate_;
  std::unordered_map<const VarNode*, PrimExpr> remap_;
  std::optional<std::vector<IterVar>> new_iter_vars_;
  std::optional<std::vector<PrimExpr>> new_iter_values_;
};

// Applies the chosen plan: loop replacements, an insertion after a
// statement, or a prologue at the start of the scope block.
class PlanApplier : public StmtExprMutator {
 public:
  std::unordered_map<const ForNode*, Stmt> replace;
  const StmtNode* insert_after = nullptr;
  Stmt epilogue;
  const BlockNode* prologue_scope = nullptr;
  Stmt prologue;

  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt(const Stmt& s) override {
    if (const auto* f = s.as<ForNode>()) {
      auto it = replace.find(f);
      if (it != replace.end()) return it->second;
    }
    Stmt out = StmtExprMutator::VisitStmt(s);
    if (s.get() == insert_after) return SeqStmt({out, epilogue});
    return out;
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* seq = s.as<SeqStmtNode>();
    if (seq == nullptr) return s;
    std::vector<Stmt> flat;
    bool nested = false;
    for (const Stmt& c : seq->seq) {
      if (const auto* inner = c.as<SeqStmtNode>()) {
        nested = true;
        for (const Stmt& x : inner->seq) flat.push_back(x);
      } else {
        flat.push_back(c);
      }
    }
    return nested ? SeqStmt(Array<Stmt>(flat)) : s;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (op != prologue_scope) return s;
    Block b = Downcast<Block>(s);
    std::vector<Stmt> seq{prologue};
    if (const auto* inner = b->body.as<SeqStmtNode>()) {
      for (const Stmt& x : inner->seq) seq.push_back(x);
    } else {
      seq.push_back(b->body);
    }
    b.CopyOnWrite()->body = SeqStmt(Array<Stmt>(seq));
    return b;
  }
};

// The block allocating `buf`, else the outermost block (the root).
const BlockNode* ScopeOf(const Stmt& body, const Buffer& buf) {
  const BlockNode* alloc = nullptr;
  const BlockNode* outer = nullptr;
  PostOrderVisit(body, [&](const ObjectRef& obj) {
    if (const auto* b = obj.as<BlockNode>()) {
      outer = b;  // post-order: the last block visited is the outermost
      for (const Buffer& x : b->alloc_buffers) {
        if (x.same_as(buf)) alloc = b;
      }
    }
  });
  return alloc != nullptr ? alloc : outer;
}

}  // namespace

Stmt ApplyLayoutPadding(const Stmt& body, const Buffer& from, const Buffer& to, const LayoutPadding& pad,
                        const IndexMap& pad_value) {
  WriteCollector collector(from);
  collector.VisitStmt(body);
  PlanApplier applier;
  if (collector.writes.empty()) {
    // An input: the caller promises the padding holds pad_value.
    applier.prologue_scope = ScopeOf(body, from);
    TESSERA_CHECK_OR_THROW(applier.prologue_scope != nullptr, ValueError)
        << "buffer " << from->name << " is not accessed inside a block";
    applier.prologue = PaddingBlockNest(pad, "buffer_" + to->name + "_assumptions", PrimExpr(),
                                        [&](const std::vector<PrimExpr>& v) -> Stmt {
                                          Array<PrimExpr> idx(v);
                                          PrimExpr p = SubstituteVars(pad.predicate, pad.inverse->initial_indices, v);
                                          PrimExpr ok = logical_or(logical_not(p),
                                                                   equal(BufferLoad(to, idx), pad_value.MapIndices(idx)[0]));
                                          return Evaluate(CallIntrin(DataType::Bool(), "tir.assume", {ok}));
                                        });
    return applier.VisitStmt(body);
  }
  for (const WriteInfo& info : collector.writes) {
    if (!info.row_major) continue;
    std::vector<Var> axes = FreshAxes(pad);
    StoreReplacer replacer(info, to, pad, pad_value, axes);
    Stmt inner = replacer.VisitStmt(info.loops.back()->body);
    if (!replacer.all_replaced) continue;
    applier.replace[info.loops.front()] = WrapLoops(inner, axes, pad.new_shape);
  }
  if (applier.replace.empty()) {
    const WriteInfo& last = collector.writes.back();
    if (!last.loops.empty()) {
      applier.insert_after = last.loops.front();
    } else if (last.realize != nullptr) {
      applier.insert_after = last.realize;
    } else {
      TESSERA_THROW(ValueError) << "buffer " << from->name << " is written outside of any loop and block";
    }
    applier.epilogue = PaddingBlockNest(pad, "buffer_" + to->name + "_padding", pad.predicate,
                                        [&](const std::vector<PrimExpr>& v) -> Stmt {
                                          Array<PrimExpr> idx(v);
                                          return BufferStore(to, pad_value.MapIndices(idx)[0], idx);
                                        });
  }
  return applier.VisitStmt(body);
}

}  // namespace tir
}  // namespace tessera
