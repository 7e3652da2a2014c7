// compute_inline and reverse_compute_inline: substitute a block's
// computation into its consumer (or producer) and remove the block
// (see primitives.h), followed by their schedule instruction kinds,
// Schedule methods (resolve the handles, commit, record) and
// tir.schedule.* FFI entries.
#include <algorithm>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/expr_deep_equal.h"
#include "arith/linear_form.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/fold_constants.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

// RefreshBlockRegions for inlining: the regions are inferred with the
// buffers visible in the function (parameters and allocations), so opaque
// uses such as T.tvm_access_ptr(..., buf.data, ...) count as accesses of buf,
// as TVM's region detector does.
PrimFunc RefreshInlinedRegions(const PrimFunc& func, const std::vector<std::string>& names) {
  Map<Var, Buffer> visible;
  for (const auto& kv : func->buffer_map.raw()) {
    Buffer b = kv.second.cast<Buffer>();
    visible.Set(b->data, b);
  }
  PostOrderVisit(func->body, [&](const ObjectRef& obj) {
    if (const auto* block = obj.as<BlockNode>()) {
      for (const Buffer& b : block->alloc_buffers) visible.Set(b->data, b);
    }
  });
  PrimFunc out = func;
  for (const std::string& name : names) {
    auto loc = FindBlock(out, name);
    if (!loc) continue;
    Block b = GetRef<Block>(loc->block);
    auto [reads, writes] = InferBlockAccessRegions(b, visible);
    auto* n = b.CopyOnWrite();
    n->reads = reads;
    n->writes = writes;
    out = ReplaceInFunc(out, loc->block, b);
  }
  return out;
}

// `block` is `buf[v0, v1, ...] = value` with distinct iteration variables as indices.
const BufferStoreNode* AsSimpleStore(const BlockNode* block, bool* indices_are_iters) {
  const auto* store = block->body.as<BufferStoreNode>();
  if (store == nullptr) return nullptr;
  std::unordered_set<const VarNode*> seen;
  *indices_are_iters = store->indices.size() == block->iter_vars.size();
  for (size_t i = 0; i < store->indices.size() && *indices_are_iters; ++i) {
    const auto* v = store->indices[i].as<VarNode>();
    *indices_are_iters = v != nullptr && v == block->iter_vars[i]->var.get() && seen.insert(v).second;
  }
  return store;
}

bool IsParamBuffer(const PrimFunc& func, const Buffer& buf) {
  for (const auto& kv : func->buffer_map.raw())
    if (kv.second.raw_object().same_as(buf)) return true;
  return false;
}

class LoadInliner : public StmtExprMutator {
 public:
  LoadInliner(const BufferNode* buf, const BlockNode* producer, PrimExpr value)
      : buf_(buf), producer_(producer), value_(std::move(value)) {}
  using StmtExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.get() != buf_) return StmtExprMutator::VisitExpr_(op);
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
    Map<Var, PrimExpr> vmap;
    for (size_t i = 0; i < producer_->iter_vars.size(); ++i) vmap.Set(producer_->iter_vars[i]->var, idx[i]);
    ++count;
    return FoldIntConstants(Substitute(value_, vmap));  // a constant index leaves `0 * 6`
  }
  int count = 0;

 private:
  const BufferNode* buf_;
  const BlockNode* producer_;
  PrimExpr value_;
};

class AllocRemover : public StmtExprMutator {
 public:
  explicit AllocRemover(const BufferNode* buf) : buf_(buf) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const BlockNode* op) override {
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    std::vector<Buffer> kept;
    for (Buffer x : b->alloc_buffers)
      if (x.get() != buf_) kept.push_back(x);
    if (kept.size() == b->alloc_buffers.size()) return b;
    b.CopyOnWrite()->alloc_buffers = Array<Buffer>(kept);
    return b;
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }

 private:
  const BufferNode* buf_;
};

// As TVM: a buffer whose data is used other than by loads and stores (an
// access_ptr, a match_buffer of a region) cannot be inlined; names the block.
void CheckNoOpaqueAccess(const std::string& prim, const PrimFunc& func, const BlockNode* producer, const Buffer& buf) {
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.block == producer) continue;
    for (MatchBufferRegion m : other.block->match_buffers) {
      if (m->source->buffer.same_as(buf)) {
        ThrowScheduleError(prim, "block \"" + other.block->name_hint + "\" matches a region of " + buf->name +
                                     " with match_buffer (an opaque access); it cannot be inlined",
                           func, {other.block});
      }
    }
    bool opaque = false;
    PostOrderVisit(other.block->body, [&](const ObjectRef& n) {
      if (n.get() == buf->data.get()) opaque = true;
    });
    if (opaque) {
      ThrowScheduleError(prim, "block \"" + other.block->name_hint + "\" accesses " + buf->name +
                                   " opaquely (through its data pointer); it cannot be inlined",
                         func, {other.block});
    }
  }
}

}  // namespace

PrimFunc ComputeInline(const PrimFunc& func, const BlockLocation& loc) {
  const std::string prim = "compute_inline";
  const BlockNode* block = loc.block;
  bool plain = false;
  const BufferStoreNode* store = AsSimpleStore(block, &plain);
  if (store == nullptr || block->init) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" is not a single store (reductions cannot be inlined)",
                       func, {block});
  }
  if (!plain) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" must store to its iteration variables in order", func, {block});
  }
  for (IterVar iv : block->iter_vars) {
    if (iv->iter_type != kDataPar) {
      ThrowScheduleError(prim, "block \"" + block->name_hint + "\" has non-spatial iteration variables", func, {block});
    }
  }
  if (IsParamBuffer(func, store->buffer)) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" writes the function output " + store->buffer->name +
                                 ", which cannot be inlined",
                       func, {block});
  }
  CheckNoOpaqueAccess(prim, func, block, store->buffer);
  std::vector<std::string> consumers;
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.block == block) continue;
    for (BufferRegion w : other.block->writes) {
      if (w->buffer.same_as(store->buffer)) {
        ThrowScheduleError(prim, "block \"" + other.block->name_hint + "\" also writes " + store->buffer->name +
                                     "; only a buffer's sole producer can be inlined",
                           func, {other.block});
      }
    }
    for (BufferRegion r : other.block->reads)
      if (r->buffer.same_as(store->buffer)) consumers.push_back(other.block->name_hint);
  }
  PrimFunc out = func;
  out.CopyOnWrite()->body = RemoveBlockNest(func->body, loc);
  LoadInliner inliner(store->buffer.get(), block, store->value);
  Stmt body = inliner.VisitStmt(out->body);
  body = AllocRemover(store->buffer.get()).VisitStmt(body);
  out.CopyOnWrite()->body = body;
  return RefreshInlinedRegions(out, consumers);
}

// As TVM, bounds on both parts of a fused index tighten into one on the
// index: `x // c < a` beside `x % c < b` (c > 0, 0 < b <= c) becomes
// `x < (a - 1) * c + b` (equivalent given the second: x = q*c + r with
// q <= a - 1 and r < b). The `%` conjunct stays.
void TightenFusedBounds(std::vector<PrimExpr>* conds) {
  auto as_const = [](const PrimExpr& e) -> std::optional<int64_t> {
    if (const auto* imm = e.as<IntImmNode>()) return imm->value;
    return std::nullopt;
  };
  for (PrimExpr& cond : *conds) {
    const auto* lt = cond.as<LTNode>();
    const auto* div = lt ? lt->a.as<FloorDivNode>() : nullptr;
    if (!div) continue;
    auto c = as_const(div->b), a = as_const(lt->b);
    if (!c || !a || *c <= 0) continue;
    for (const PrimExpr& other : *conds) {
      const auto* lt2 = other.as<LTNode>();
      const auto* mod = lt2 ? lt2->a.as<FloorModNode>() : nullptr;
      if (!mod || !arith::ExprDeepEqual(mod->a, div->a)) continue;
      auto c2 = as_const(mod->b), b = as_const(lt2->b);
      if (!c2 || *c2 != *c || !b || *b <= 0 || *b > *c) continue;
      cond = less(div->a, IntImm(div->a.dtype(), (*a - 1) * *c + *b));
      break;
    }
  }
}

// The producer's predicate once the consumer is inlined into it: its own,
// and (as TVM) each consumer iteration variable, as the producer computes
// it (`vmap`), within the consumer's domain where that is not implied.
PrimExpr OvercomputePredicate(const BlockLocation& producer, const BlockNode* consumer, const Map<Var, PrimExpr>& vmap,
                              const PrimExpr& consumer_cond) {
  arith::Analyzer block_ana, loop_ana;
  for (const IterVar& iv : producer.block->iter_vars) block_ana.Bind(iv->var, iv->dom);
  for (const ForNode* loop : producer.loops) loop_ana.Bind(loop->loop_var, Range::FromMinExtent(loop->min, loop->extent));
  std::unordered_map<const VarNode*, PrimExpr> binding;
  for (size_t i = 0; i < producer.block->iter_vars.size(); ++i) {
    binding[producer.block->iter_vars[i]->var.get()] = producer.realize->iter_values[i];
  }
  std::vector<PrimExpr> conds;
  for (const IterVar& iv : consumer->iter_vars) {
    auto value = vmap.Get(iv->var);
    if (!value) continue;
    for (PrimExpr cond : {greater_equal(*value, iv->dom->min), less(*value, iv->dom->min + iv->dom->extent)}) {
      if (block_ana.CanProve(cond)) continue;
      cond = Substitute(cond, [&](const Var& v) -> std::optional<PrimExpr> {
        auto it = binding.find(v.get());
        if (it == binding.end()) return std::nullopt;
        return it->second;
      });
      conds.push_back(loop_ana.Simplify(cond));
    }
  }
  if (!IsConstInt(consumer_cond, 1)) {
    // The consumer's own predicate, over its iteration variables, as the
    // producer computes them.
    conds.push_back(Substitute(Substitute(consumer_cond, vmap), [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = binding.find(v.get());
      if (it == binding.end()) return std::nullopt;
      return it->second;
    }));
  }
  if (conds.empty()) return producer.realize->predicate;
  TightenFusedBounds(&conds);
  PrimExpr pred = producer.realize->predicate;
  for (const PrimExpr& cond : conds) pred = IsConstInt(pred, 1) ? cond : logical_and(pred, cond);
  return loop_ana.Simplify(pred);
}

// What the consumer's loops and predicate select of its iteration domain,
// as a condition over its iteration variables (inlined into a producer, the
// consumer's store runs over the producer's domain instead). Refused when
// its loops cover only part of the domain (pad_einsum leaves a block bound
// to split loops over its original range) or its predicate uses loops that
// do not bind one iteration variable each.
PrimExpr ConsumerCondition(const std::string& prim, const PrimFunc& func, const BlockLocation& loc) {
  const BlockNode* consumer = loc.block;
  arith::Analyzer ana;
  PrimExpr loops_size = IntImm(DataType::Int(64), 1), dom_size = IntImm(DataType::Int(64), 1);
  for (const ForNode* l : loc.loops) {
    bool used = false;
    for (const PrimExpr& v : loc.realize->iter_values) used = used || UsesVar(v, l->loop_var.get());
    if (used) loops_size = loops_size * cast(DataType::Int(64), l->extent);
  }
  for (const IterVar& iv : consumer->iter_vars) dom_size = dom_size * cast(DataType::Int(64), iv->dom->extent);
  if (!ana.CanProveEqual(loops_size, dom_size)) {
    ThrowScheduleError(prim, "the loops of block \"" + consumer->name_hint +
                                 "\" do not cover its iteration domain; inlined into its producer it would run over all of it",
                       func, {consumer});
  }
  const PrimExpr& pred = loc.realize->predicate;
  if (IsConstInt(pred, 1)) return pred;
  std::unordered_map<const VarNode*, PrimExpr> to_iter;
  for (size_t k = 0; k < consumer->iter_vars.size(); ++k) {
    const auto* lv = loc.realize->iter_values[k].as<VarNode>();
    if (lv == nullptr) continue;
    bool alone = true;
    for (size_t j = 0; j < consumer->iter_vars.size(); ++j) {
      alone = alone && (j == k || !UsesVar(loc.realize->iter_values[j], lv));
    }
    if (alone) to_iter[lv] = consumer->iter_vars[k]->var;
  }
  bool ok = true;
  PrimExpr cond = Substitute(pred, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = to_iter.find(v.get());
    if (it != to_iter.end()) return it->second;
    for (const ForNode* l : loc.loops) ok = ok && l->loop_var.get() != v.get();
    return std::nullopt;
  });
  if (!ok) {
    ThrowScheduleError(prim, "the predicate of block \"" + consumer->name_hint +
                                 "\" uses loops that do not bind one iteration variable each; it cannot move into the producer",
                       func, {consumer});
  }
  return cond;
}

PrimFunc ReverseComputeInline(const PrimFunc& func, const BlockLocation& loc) {
  const std::string prim = "reverse_compute_inline";
  const BlockNode* consumer = loc.block;
  const auto* cstore = consumer->body.as<BufferStoreNode>();
  if (cstore == nullptr || consumer->init) {
    ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" is not a single store", func, {consumer});
  }
  // Exactly one producer block writes what the consumer reads (other than its output).
  std::optional<BlockLocation> producer;
  for (BufferRegion r : consumer->reads) {
    for (const BlockLocation& other : CollectBlocks(func)) {
      if (other.block == consumer) continue;
      for (BufferRegion w : other.block->writes) {
        if (w->buffer.same_as(r->buffer)) {
          if (producer && producer->block != other.block) {
            ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" has several producers", func, {consumer});
          }
          producer = other;
        }
      }
    }
  }
  if (!producer) ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" has no producer block", func, {consumer});
  // The producer is a single store (its indices need not be its plain
  // iteration variables: an earlier reverse_compute_inline leaves them so).
  const auto* pstore = producer->block->body.as<BufferStoreNode>();
  if (pstore == nullptr || producer->block->init) {
    ThrowScheduleError(prim, "the producer \"" + producer->block->name_hint +
                                 "\" must be a single store (not a reduction)",
                       func, {producer->block});
  }
  for (IterVar iv : producer->block->iter_vars) {
    if (iv->iter_type != kDataPar) {
      ThrowScheduleError(prim, "the producer \"" + producer->block->name_hint + "\" has non-spatial iteration variables",
                         func, {producer->block});
    }
  }
  const Buffer& buf = pstore->buffer;
  if (cstore->buffer.same_as(buf)) {
    ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" writes " + buf->name +
                                 ", the buffer it would be inlined through",
                       func, {consumer});
  }
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.block == producer->block) continue;
    for (BufferRegion w : other.block->writes) {
      if (w->buffer.same_as(buf)) {
        ThrowScheduleError(prim, "block \"" + other.block->name_hint + "\" also writes " + buf->name +
                                     "; the producer must be its only writer",
                           func, {other.block});
      }
    }
    // Once inlined, the producer no longer writes `buf`: no other block may read it.
    if (other.block == consumer) continue;
    for (BufferRegion r : other.block->reads) {
      if (r->buffer.same_as(buf)) {
        ThrowScheduleError(prim, "block \"" + other.block->name_hint + "\" also reads " + buf->name +
                                     "; inlining \"" + consumer->name_hint + "\" would leave it unwritten",
                           func, {other.block});
      }
    }
  }
  std::vector<PrimExpr> load_indices;
  bool ok = true;
  PostOrderVisit(cstore->value, [&](const ObjectRef& n) {
    if (const auto* load = n.as<BufferLoadNode>()) {
      if (!load->buffer.same_as(buf)) return;
      std::vector<PrimExpr> idx = load->indices.to_vector();
      if (!load_indices.empty()) {
        for (size_t i = 0; i < idx.size(); ++i) ok = ok && arith::ExprDeepEqual(idx[i], load_indices[i]);
      }
      load_indices = idx;
    }
  });
  if (!ok || load_indices.size() != buf->shape.size()) {
    ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" must read " + buf->name +
                                 " at one location (the same indices at every load)",
                       func, {consumer});
  }
  if (IsParamBuffer(func, buf)) {
    ThrowScheduleError(prim, "the intermediate " + buf->name + " is a function parameter and must be kept", func);
  }
  // The consumer must cover what the producer computes: inlined into a
  // producer over a larger domain (pad_einsum's padded result), its store
  // would run out of its own range.
  {
    arith::Analyzer ana;
    auto dom_of = [](const BlockNode* b, const Object* var) -> std::optional<Range> {
      for (IterVar iv : b->iter_vars) {
        if (iv->var.get() == var) return iv->dom;
      }
      return std::nullopt;
    };
    for (size_t i = 0; i < load_indices.size(); ++i) {
      auto cdom = dom_of(consumer, load_indices[i].get());
      auto pdom = dom_of(producer->block, pstore->indices[i].get());
      if (cdom && pdom && !(ana.CanProveEqual((*cdom)->min, (*pdom)->min) && ana.CanProveEqual((*cdom)->extent, (*pdom)->extent))) {
        // As TVM, a producer computing more than the consumer reads (an
        // overcomputed producer) gets a predicate limiting it to the
        // consumer's domain; one computing less cannot be inlined into.
        bool within = ana.CanProve(greater_equal((*cdom)->min, (*pdom)->min)) &&
                      ana.CanProve(less_equal((*cdom)->min + (*cdom)->extent, (*pdom)->min + (*pdom)->extent));
        if (within) continue;
        ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" reads only part of what \"" +
                                     producer->block->name_hint + "\" computes in dimension " + std::to_string(i) +
                                     " of " + buf->name,
                           func, {consumer});
      }
    }
  }
  // As TVM, the load indices may be affine in the consumer's iteration
  // variables: each index is a mixed-radix sum c0*v0 + c1*v1 + ... (each
  // variable used once, extents chaining the coefficients, covering the
  // whole dimension), inverted as v = floordiv(store index, c) % extent over
  // the producer's store index. Variables not read must have extent 1.
  Map<Var, PrimExpr> vmap;
  std::unordered_set<const VarNode*> used;
  auto not_affine = [&](const std::string& why) {
    ThrowScheduleError(prim, "block \"" + consumer->name_hint + "\" reads " + buf->name +
                                 " at indices that are not an invertible affine map of its iteration variables (" +
                                 why + ")",
                       func, {consumer});
  };
  bool affine_load = false;
  for (size_t k = 0; k < load_indices.size(); ++k) {
    // A plain iteration variable maps to the producer's store index as is.
    if (const auto* v = load_indices[k].as<VarNode>()) {
      bool is_iter = false;
      for (IterVar x : consumer->iter_vars) is_iter = is_iter || x->var.get() == v;
      if (is_iter && used.insert(v).second) {
        vmap.Set(GetRef<Var>(v), pstore->indices[k]);
        continue;
      }
    }
    affine_load = true;
    auto form = arith::ToLinearForm(load_indices[k]);
    if (!form || form->constant != 0 || form->terms.empty()) not_affine("index " + std::to_string(k));
    std::vector<std::pair<const VarNode*, int64_t>> terms;
    for (const auto& [atom, coeff] : form->terms) {
      const auto* v = atom.as<VarNode>();
      bool is_iter = false;
      for (IterVar x : consumer->iter_vars) is_iter = is_iter || (v != nullptr && x->var.get() == v);
      if (!is_iter || coeff <= 0 || !used.insert(v).second) not_affine("index " + std::to_string(k));
      terms.emplace_back(v, coeff);
    }
    std::sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    int64_t scale = 1;
    std::vector<int64_t> extents(terms.size());
    for (size_t t = terms.size(); t-- > 0;) {
      Range dom;
      for (IterVar x : consumer->iter_vars)
        if (x->var.get() == terms[t].first) dom = x->dom;
      auto ext = AsConstInt(dom->extent);
      auto mn = AsConstInt(dom->min);
      if (!ext || !mn || *mn != 0 || terms[t].second != scale) not_affine("index " + std::to_string(k));
      extents[t] = *ext;
      scale *= *ext;
    }
    auto dim = ConstIntValue(buf->shape[k]);
    if (!dim || *dim != scale) not_affine("index " + std::to_string(k) + " does not cover the whole dimension");
    const PrimExpr& target = pstore->indices[k];
    for (size_t t = 0; t < terms.size(); ++t) {
      PrimExpr value = target;
      DataType dt = target.dtype();
      if (terms[t].second != 1) value = floordiv(value, IntImm(dt, terms[t].second));
      if (t != 0) value = floormod(value, IntImm(dt, extents[t]));
      vmap.Set(GetRef<Var>(terms[t].first), value);
    }
  }
  for (const IterVar& iv : consumer->iter_vars) {
    if (used.count(iv->var.get())) continue;
    if (!IsConstInt(iv->dom->extent, 1)) not_affine(iv->var->name_hint + " is not read and its extent is not 1");
    vmap.Set(iv->var, iv->dom->min);
  }
  // Through an affine load the consumer reads all of the buffer: the
  // producer must write all of it.
  if (affine_load) {
    arith::Analyzer ana;
    for (size_t i = 0; i < producer->block->iter_vars.size(); ++i) {
      ana.Bind(producer->block->iter_vars[i]->var, producer->block->iter_vars[i]->dom);
    }
    for (size_t k = 0; k < pstore->indices.size(); ++k) {
      auto bound = ana.const_int_bound(pstore->indices[k]);
      auto dim = ConstIntValue(buf->shape[k]);
      if (!dim || bound->min_value != 0 || bound->max_value != *dim - 1) {
        ThrowScheduleError(prim, "the producer \"" + producer->block->name_hint + "\" does not write all of " +
                                     buf->name + " (dimension " + std::to_string(k) + ")",
                           func, {producer->block});
      }
    }
  }
  const PrimExpr consumer_cond = ConsumerCondition(prim, func, loc);
  // New producer store: consumer's store with consumer iter vars expressed by producer indices.
  PrimExpr new_value = FoldIntConstants(Substitute(cstore->value, vmap));
  // Replace the load of the producer buffer by the producer's value.
  struct Replace : StmtExprMutator {
    const BufferNode* buf;
    PrimExpr value;
    using StmtExprMutator::VisitExpr_;
    PrimExpr VisitExpr_(const BufferLoadNode* op) override {
      if (op->buffer.get() == buf) return value;
      return StmtExprMutator::VisitExpr_(op);
    }
  } replace;
  replace.buf = buf.get();
  replace.value = pstore->value;
  new_value = replace.VisitExpr(new_value);
  std::vector<PrimExpr> new_indices;
  for (PrimExpr e : cstore->indices) new_indices.push_back(FoldIntConstants(Substitute(e, vmap)));
  Block p = GetRef<Block>(producer->block);
  p.CopyOnWrite()->body = BufferStore(cstore->buffer, new_value, Array<PrimExpr>(new_indices));
  // Layout annotations of the removed intermediate no longer apply.
  if (p->annotations.count("buffer_dim_align")) p.CopyOnWrite()->annotations.erase("buffer_dim_align");
  PrimFunc out = ReplaceInFunc(func, producer->realize,
                               BlockRealize(producer->realize->iter_values,
                                            OvercomputePredicate(*producer, consumer, vmap, consumer_cond), p));
  auto cloc = FindBlock(out, consumer->name_hint);
  out.CopyOnWrite()->body = RemoveBlockNest(out->body, *cloc);
  out.CopyOnWrite()->body = AllocRemover(buf.get()).VisitStmt(out->body);
  return RefreshInlinedRegions(out, {producer->block->name_hint});
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("ComputeInline")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      sch.ComputeInline(in.at_any(0).cast<BlockRV>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("compute_inline", {"block"}, {}));
TESSERA_REGISTER_INST_KIND("ReverseComputeInline")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      sch.ReverseComputeInline(in.at_any(0).cast<BlockRV>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("reverse_compute_inline", {"block"}, {}));

// ---- Schedule methods ------------------------------------------------------------

void Schedule::ComputeInline(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "compute_inline");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::ComputeInline(FuncOf(func), loc));
  Record("ComputeInline", {block}, {}, {});
}

void Schedule::ReverseComputeInline(const BlockRV& block) const {
  BlockLocation loc = LocateBlock(block, "reverse_compute_inline");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::ReverseComputeInline(FuncOf(func), loc));
  Record("ReverseComputeInline", {block}, {}, {});
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ComputeInline").set_body_typed([](Schedule s, BlockRV b) { s.ComputeInline(b); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReverseComputeInline").set_body_typed([](Schedule s, BlockRV b) {
  s.ReverseComputeInline(b);
});

}  // namespace tir
}  // namespace tessera
