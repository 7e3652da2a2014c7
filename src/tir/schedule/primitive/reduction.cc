// decompose_reduction and rfactor (see primitives.h), followed by their
// schedule instruction kinds, Schedule methods (resolve the handles,
// commit, record) and tir.schedule.* FFI entries.
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "arith/expr_deep_equal.h"
#include "tir/analysis/block_access_region.h"
#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

// The conjunction of the predicate's conjuncts that use only kept loops
// (rewritten by `subst`); conjuncts over dropped loops only are left out,
// and one mixing kept and dropped loops cannot be split (ScheduleError).
PrimExpr ProjectPredicate(const std::string& prim, const PrimFunc& func, const BlockNode* block,
                          const PrimExpr& predicate, const std::vector<const ForNode*>& loops,
                          const std::function<bool(const VarNode*)>& kept,
                          const std::function<PrimExpr(const PrimExpr&)>& subst) {
  std::vector<PrimExpr> conjuncts = SplitConjuncts(predicate);
  PrimExpr out = IntImm(DataType::Bool(), 1);
  for (const PrimExpr& c : conjuncts) {
    bool uses_kept = false, uses_dropped = false;
    for (const ForNode* l : loops) {
      if (!UsesVar(c, l->loop_var.get())) continue;
      if (kept(l->loop_var.get())) uses_kept = true; else uses_dropped = true;
    }
    if (uses_kept && uses_dropped) {
      ThrowScheduleError(prim, "the predicate of block \"" + block->name_hint +
                                   "\" mixes reduction and spatial loops; it cannot be split",
                         func, {block});
    }
    if (!uses_dropped) out = logical_and(out, subst(c));
  }
  return out;
}

// The reduction may not vary with a loop or block iterator outside the
// block's own loop chain from loc.loops[pos] down (above an enclosing block,
// e.g. the common block loop_partition creates): the init, placed inside
// that chain, would run again for each of its values.
void CheckReductionInLoopChain(const std::string& prim, const PrimFunc& func, const BlockLocation& loc, size_t pos) {
  const BlockNode* block = loc.block;
  std::unordered_set<const VarNode*> varying;
  PostOrderVisit(func->body, [&](const ObjectRef& obj) {
    if (const auto* f = obj.as<ForNode>()) varying.insert(f->loop_var.get());
    if (const auto* b = obj.as<BlockNode>()) {
      for (const IterVar& iv : b->iter_vars) varying.insert(iv->var.get());
    }
  });
  for (size_t i = pos; i < loc.loops.size(); ++i) varying.erase(loc.loops[i]->loop_var.get());
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    if (block->iter_vars[k]->iter_type == kDataPar) continue;
    PostOrderVisit(loc.realize->iter_values[k], [&](const ObjectRef& obj) {
      const auto* v = obj.as<VarNode>();
      if (v == nullptr || !varying.count(v)) return;
      ThrowScheduleError(prim, "variable " + v->name_hint + " outside the loops of block \"" + block->name_hint +
                                   "\" carries the reduction of block \"" + block->name_hint +
                                   "\"; its init cannot be placed",
                         func, {block});
    });
  }
}

}  // namespace

PrimFunc DecomposeReduction(const PrimFunc& func, const BlockLocation& loc, const ForNode* loop,
                            std::string* init_name) {
  const BlockNode* block = loc.block;
  if (!block->init) {
    ThrowScheduleError("decompose_reduction", "block \"" + block->name_hint + "\" has no init statement", func, {block});
  }
  // As TVM's reduction-block check (an opaque iterator, e.g. left by
  // rolling_buffer, has no place in the init).
  CheckSpatialOrReductionIters("decompose_reduction", func, block);
  size_t pos = loc.loops.size();
  for (size_t i = 0; i < loc.loops.size(); ++i)
    if (loc.loops[i] == loop) pos = i;
  if (pos == loc.loops.size()) {
    ThrowScheduleError("decompose_reduction", "loop " + loop->loop_var->name_hint + " does not enclose block \"" +
                                                  block->name_hint + "\"",
                       func, {loop});
  }
  // Every loop the reduction iterates over must be at or below `loop`:
  // otherwise the init would run again inside the reduction.
  for (size_t i = 0; i < pos; ++i) {
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      if (block->iter_vars[k]->iter_type != kDataPar &&
          UsesVar(loc.realize->iter_values[k], loc.loops[i]->loop_var.get())) {
        ThrowScheduleError("decompose_reduction", "loop " + loc.loops[i]->loop_var->name_hint + " above loop " +
                                                      loop->loop_var->name_hint + " carries the reduction of block \"" +
                                                      block->name_hint + "\"; decompose at or above it",
                           func, {loc.loops[i]});
      }
    }
  }
  CheckReductionInLoopChain("decompose_reduction", func, loc, pos);
  // Loops under `loop` (inclusive) that spatial bindings use are copied for the init.
  std::unordered_map<const VarNode*, PrimExpr> loop_copy;
  std::vector<const ForNode*> copied;
  for (size_t i = pos; i < loc.loops.size(); ++i) {
    const ForNode* l = loc.loops[i];
    bool used = false;
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      if (block->iter_vars[k]->iter_type == kDataPar && UsesVar(loc.realize->iter_values[k], l->loop_var.get())) {
        used = true;
      }
    }
    if (used) {
      copied.push_back(l);
      loop_copy[l->loop_var.get()] = Var(l->loop_var->name_hint + "_init", l->loop_var.dtype());
    }
  }
  // Each spatial point must be reduced in a single run of the loops below
  // `loop`: bindings reaching a point from several iterations (overlapping
  // tiles recomputed after compute_at) restart its reduction each time, which
  // an init hoisted above them would turn into one accumulation (TVM does not
  // check this and computes wrong results).
  {
    Map<Var, Range> iters;
    for (const ForNode* l : copied) {
      const auto* ext = l->extent.as<IntImmNode>();
      if (ext != nullptr && ext->value == 1) continue;  // one iteration: a constant here
      iters.Set(l->loop_var, Range::FromMinExtent(l->min, l->extent));
    }
    // A loop of one iteration is left out of the iter maps below: its
    // variable is its min there (kept as a free variable, an offset such as
    // unit * 16 inside (... + i) // 56 would defeat the analysis).
    std::unordered_map<const VarNode*, PrimExpr> unit;
    for (const ForNode* l : loc.loops) {
      const auto* ext = l->extent.as<IntImmNode>();
      if (ext != nullptr && ext->value == 1) unit[l->loop_var.get()] = l->min;
    }
    auto fold_unit = [&](const PrimExpr& e) {
      return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
        auto it = unit.find(v.get());
        if (it == unit.end()) return std::nullopt;
        return it->second;
      });
    };
    std::vector<PrimExpr> spatial;
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      if (block->iter_vars[k]->iter_type == kDataPar) spatial.push_back(fold_unit(loc.realize->iter_values[k]));
    }
    arith::Analyzer ana;
    bool one_to_one = iters.empty() ||
                      !arith::DetectIterMap(Array<PrimExpr>(spatial), iters, IntImm(DataType::Bool(), 1),
                                            arith::IterMapLevel::kBijective, &ana, false)
                           ->indices.empty();
    if (!one_to_one) {
      // Bindings that mix outer and inner loops (a fused y*W + x split into
      // tiles, read back through // and %) are not an iter map of the inner
      // loops alone; when all the loops together map one-to-one onto the
      // spatial points (under the block's predicate), each run of the inner
      // loops still reaches every point at most once.
      Map<Var, Range> all;
      for (const ForNode* l : loc.loops) {
        const auto* ext = l->extent.as<IntImmNode>();
        if (ext != nullptr && ext->value == 1) continue;
        bool spatial_use = false;
        for (const PrimExpr& e : spatial) spatial_use = spatial_use || UsesVar(e, l->loop_var.get());
        if (spatial_use) all.Set(l->loop_var, Range::FromMinExtent(l->min, l->extent));
      }
      one_to_one = !arith::DetectIterMap(Array<PrimExpr>(spatial), all, fold_unit(loc.realize->predicate),
                                         arith::IterMapLevel::kBijective, &ana, false)
                        ->indices.empty();
    }
    if (!one_to_one) {
      ThrowScheduleError("decompose_reduction", "the spatial bindings of block \"" + block->name_hint +
                                                    "\" are not one-to-one in the loops below loop " +
                                                    loop->loop_var->name_hint +
                                                    " (e.g. overlapping tiles): an element reduced in several "
                                                    "separate runs cannot share one hoisted init",
                         func, {block});
    }
  }
  auto subst_loops = [&](const PrimExpr& e) {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = loop_copy.find(v.get());
      if (it == loop_copy.end()) return std::nullopt;
      return it->second;
    });
  };
  // Init block: the spatial iteration variables (fresh), bound as in the original.
  std::vector<IterVar> init_iters;
  std::vector<PrimExpr> init_values;
  std::unordered_map<const VarNode*, PrimExpr> iter_copy;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    IterVar iv = block->iter_vars[k];
    if (iv->iter_type != kDataPar) continue;
    Var nv(iv->var->name_hint, iv->var.dtype());
    iter_copy[iv->var.get()] = nv;
    init_iters.push_back(IterVar(iv->dom, nv, kDataPar, iv->thread_tag));
    init_values.push_back(subst_loops(loc.realize->iter_values[k]));
  }
  auto subst_iters = [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = iter_copy.find(v.get());
    if (it == iter_copy.end()) return std::nullopt;
    return it->second;
  };
  std::vector<BufferRegion> init_writes;
  for (BufferRegion w : block->writes) {
    std::vector<Range> region;
    for (Range r : w->region) {
      region.push_back(Range::FromMinExtent(Substitute(r->min, subst_iters), Substitute(r->extent, subst_iters)));
    }
    init_writes.push_back(BufferRegion(w->buffer, Array<Range>(region)));
  }
  *init_name = block->name_hint + "_init";
  // As TVM, the init block keeps the block's annotations.
  Block init_block(Array<IterVar>(init_iters), {}, Array<BufferRegion>(init_writes), *init_name,
                   Substitute(*block->init, subst_iters), std::nullopt, {}, {}, block->annotations);
  // Conjuncts over reduction loops only do not concern the init.
  std::vector<const ForNode*> inner(loc.loops.begin() + static_cast<std::ptrdiff_t>(pos), loc.loops.end());
  PrimExpr pred = ProjectPredicate(
      "decompose_reduction", func, block, loc.realize->predicate, inner,
      [&](const VarNode* v) { return loop_copy.count(v) != 0; }, subst_loops);
  Stmt init_nest = BlockRealize(Array<PrimExpr>(init_values), pred, init_block);
  for (size_t i = copied.size(); i-- > 0;) {
    const ForNode* l = copied[i];
    // As TVM, the copy keeps the loop's kind, thread binding (its own thread
    // IterVar, as each parsed T.thread_binding loop has) and annotations.
    std::optional<IterVar> thread;
    if (l->thread_binding) {
      const IterVarNode* iv = l->thread_binding->get();
      thread = IterVar(iv->dom, Var(iv->var->name_hint, iv->var.dtype()), iv->iter_type, iv->thread_tag);
    }
    init_nest = For(Downcast<Var>(loop_copy[l->loop_var.get()]), l->min, l->extent, l->kind, init_nest, thread,
                    l->annotations);
  }
  // Update block: no init; it now reads what it writes.
  Block update = GetRef<Block>(block);
  {
    auto* n = update.CopyOnWrite();
    n->init = std::nullopt;
    n->name_hint = block->name_hint + "_update";
    std::vector<BufferRegion> reads;
    for (BufferRegion w : block->writes) {
      bool present = false;
      for (BufferRegion r : block->reads) present = present || r->buffer.same_as(w->buffer);
      if (!present) reads.push_back(w);
    }
    for (BufferRegion r : block->reads) reads.push_back(r);
    n->reads = Array<BufferRegion>(reads);
  }
  Stmt new_loop = ReplaceStmt(GetRef<Stmt>(loop), block, update);
  return ReplaceInFunc(func, loop, SeqStmt::Flatten({init_nest, new_loop}));
}

}  // namespace tir
}  // namespace tessera

namespace tessera {
namespace tir {
namespace {

// `out[idx] = out[idx] (+|*|min|max) rhs`: returns the combiner kind and rhs.
struct ReductionPattern {
  const BufferStoreNode* store = nullptr;
  std::string op;
  PrimExpr rhs;
  Stmt body;  // keeps `store` alive (the body with its lets substituted)
};

std::optional<ReductionPattern> MatchReduction(const BlockNode* block) {
  // As TVM, `v = ...; out[i] = v` is read with the let substituted.
  Stmt body = block->body;
  std::vector<const LetStmtNode*> lets;
  while (const auto* let = body.as<LetStmtNode>()) {
    lets.push_back(let);
    body = let->body;
  }
  for (size_t i = lets.size(); i-- > 0;) {
    Map<Var, PrimExpr> one;
    one.Set(lets[i]->var, lets[i]->value);
    body = Substitute(body, one);
  }
  const auto* store = body.as<BufferStoreNode>();
  if (store == nullptr) return std::nullopt;
  auto is_self = [&](const PrimExpr& e) {
    const auto* load = e.as<BufferLoadNode>();
    if (load == nullptr || !load->buffer.same_as(store->buffer)) return false;
    for (size_t i = 0; i < load->indices.size(); ++i)
      if (!load->indices[i].same_as(store->indices[i]) && !arith::ExprDeepEqual(load->indices[i], store->indices[i])) return false;
    return true;
  };
  auto try_binary = [&](const BinaryOpNode* b, const char* name) -> std::optional<ReductionPattern> {
    if (b == nullptr) return std::nullopt;
    if (is_self(b->a)) return ReductionPattern{store, name, b->b, body};
    if (is_self(b->b)) return ReductionPattern{store, name, b->a, body};
    return std::nullopt;
  };
  if (auto r = try_binary(store->value.as<AddNode>(), "add")) return r;
  if (auto r = try_binary(store->value.as<MulNode>(), "mul")) return r;
  if (auto r = try_binary(store->value.as<MinNode>(), "min")) return r;
  if (auto r = try_binary(store->value.as<MaxNode>(), "max")) return r;
  return std::nullopt;
}

// TVM's stage-pipeline condition on rfactor's scope: every read of a
// buffer produced in the scope lies within what its producers write (checked
// where the bounds are constants).
void CheckStagePipeline(const std::string& prim, const PrimFunc& func, const BlockNode* scope) {
  std::vector<BlockLocation> children;
  for (const BlockLocation& b : CollectBlocks(func))
    if (b.scope == scope) children.push_back(b);
  arith::Analyzer ana;
  auto bounds = [&](const BlockLocation& b, const Range& r, int64_t* lo, int64_t* hi) {
    Map<Var, arith::IntSet> dom;
    for (const ForNode* l : b.loops) dom.Set(l->loop_var, arith::IntSet::FromMinExtent(l->min, l->extent));
    Map<Var, PrimExpr> bind;
    for (size_t k = 0; k < b.block->iter_vars.size(); ++k) bind.Set(b.block->iter_vars[k]->var, b.realize->iter_values[k]);
    arith::IntSet set = arith::EvalSet(Range::FromMinExtent(Substitute(r->min, bind), Substitute(r->extent, bind)), dom, &ana);
    if (!set.HasLowerBound() || !set.HasUpperBound()) return false;
    std::optional<int64_t> a = ConstIntValue(ana.Simplify(set.min())), z = ConstIntValue(ana.Simplify(set.max()));
    if (!a || !z) return false;
    *lo = *a;
    *hi = *z;
    return true;
  };
  for (const BlockLocation& c : children) {
    for (BufferRegion r : c.block->reads) {
      for (size_t d = 0; d < r->region.size(); ++d) {
        int64_t lo = 0, hi = 0, plo = INT64_MAX, phi = INT64_MIN;
        bool produced = false, known = bounds(c, r->region[d], &lo, &hi);
        for (const BlockLocation& p : children) {
          if (p.block == c.block) continue;
          for (BufferRegion w : p.block->writes) {
            if (!w->buffer.same_as(r->buffer) || d >= w->region.size()) continue;
            produced = true;
            int64_t a = 0, z = 0;
            if (!bounds(p, w->region[d], &a, &z)) known = false;
            plo = std::min(plo, a);
            phi = std::max(phi, z);
          }
        }
        if (produced && known && (lo < plo || hi > phi)) {
          ThrowScheduleError(prim, "block \"" + c.block->name_hint + "\" reads " + r->buffer->name +
                                       " beyond what its producers in scope \"" + scope->name_hint +
                                       "\" write; the scope is not a stage pipeline",
                             func, {c.block});
        }
      }
    }
  }
}

PrimExpr Combine(const std::string& op, const PrimExpr& a, const PrimExpr& b) {
  if (op == "add") return add(a, b);
  if (op == "mul") return mul(a, b);
  if (op == "min") return min(a, b);
  return max(a, b);
}

Array<PrimExpr> InsertAt(const Array<PrimExpr>& v, int axis, const PrimExpr& x) {
  std::vector<PrimExpr> out = v.to_vector();
  out.insert(out.begin() + axis, x);
  return Array<PrimExpr>(out);
}

}  // namespace

PrimFunc RFactor(const PrimFunc& func, const BlockLocation& loc, const ForNode* loop, int factor_axis,
                 std::string* rf_name) {
  const std::string prim = "rfactor";
  const BlockNode* block = loc.block;
  CheckReductionInLoopChain(prim, func, loc, 0);
  auto pattern = MatchReduction(block);
  if (!block->init || !pattern) {
    ThrowScheduleError(prim, "block \"" + block->name_hint +
                                 "\" is not a reduction `out[i] = out[i] op value` (op: +, *, min, max) with an init",
                       func, {block});
  }
  CheckStagePipeline(prim, func, loc.scope);
  // Blocks are found by name: a second "<name>_rf" would make both unreachable.
  if (FindBlock(func, block->name_hint + "_rf")) {
    ThrowScheduleError(prim, "a block named \"" + block->name_hint + "_rf\" already exists (block \"" +
                                 block->name_hint + "\" was factored before)",
                       func);
  }
  const auto* init_store = block->init->as<BufferStoreNode>();
  if (init_store == nullptr || !init_store->buffer.same_as(pattern->store->buffer)) {
    ThrowScheduleError(prim, "the init of block \"" + block->name_hint + "\" must store the reduction's identity", func, {block});
  }
  // TVM's reduction-block checks: init and update store the same location,
  // the init is the operator's identity, no write is indexed by a reduction
  // iterator, the bindings are quasi-affine, and no loop feeds both spatial
  // and reduction iterators; the loops feeding reduction iterators are serial.
  {
    bool same = init_store->indices.size() == pattern->store->indices.size();
    for (size_t i = 0; same && i < init_store->indices.size(); ++i)
      same = arith::ExprDeepEqual(init_store->indices[i], pattern->store->indices[i]);
    if (!same) {
      ThrowScheduleError(prim, "the init and the update of block \"" + block->name_hint +
                                   "\" store to different locations of " + pattern->store->buffer->name,
                         func, {block});
    }
    std::optional<double> identity;
    if (pattern->op == "add") identity = 0;
    if (pattern->op == "mul") identity = 1;
    if (identity) {
      bool ok = false;
      if (const auto* i = init_store->value.as<IntImmNode>()) ok = static_cast<double>(i->value) == *identity;
      if (const auto* f = init_store->value.as<FloatImmNode>()) ok = f->value == *identity;
      if (!ok) {
        ThrowScheduleError(prim, "the init of block \"" + block->name_hint + "\" is not the identity of its " +
                                     pattern->op + " reduction (" + (*identity == 0 ? "0" : "1") + ")",
                           func, {block});
      }
    }
    for (const IterVar& iv : block->iter_vars) {
      if (iv->iter_type != kCommReduce) continue;
      for (const PrimExpr& e : pattern->store->indices) {
        if (UsesVar(e, iv->var.get())) {
          ThrowScheduleError(prim, "block \"" + block->name_hint + "\" is not a reduction block: its write to " +
                                       pattern->store->buffer->name + " is indexed by the reduction variable " +
                                       iv->var->name_hint,
                             func, {block});
        }
      }
    }
    Map<Var, Range> dom;
    for (const ForNode* l : loc.loops) dom.Set(l->loop_var, Range::FromMinExtent(l->min, l->extent));
    arith::Analyzer ana;
    auto detected = arith::DetectIterMap(loc.realize->iter_values, dom, IntImm(DataType::Bool(), 1),
                                         arith::IterMapLevel::kNoCheck, &ana);
    if (!loc.realize->iter_values.empty() && detected->indices.empty()) {
      ThrowScheduleError(prim, "the bindings of block \"" + block->name_hint + "\" are not quasi-affine", func, {block});
    }
    for (const ForNode* l : loc.loops) {
      bool spatial = false, reduce = false;
      for (size_t k = 0; k < block->iter_vars.size(); ++k) {
        if (!UsesVar(loc.realize->iter_values[k], l->loop_var.get())) continue;
        (block->iter_vars[k]->iter_type == kDataPar ? spatial : reduce) = true;
      }
      if (spatial && reduce) {
        ThrowScheduleError(prim, "loop " + l->loop_var->name_hint + " is bound to both spatial and reduction "
                                     "iterators of block \"" + block->name_hint + "\"",
                           func, {l});
      }
      if (reduce && l->kind != ForKind::kSerial) {
        ThrowScheduleError(prim, "loop " + l->loop_var->name_hint + " of a reduction iterator of block \"" +
                                     block->name_hint + "\" must be serial",
                           func, {l});
      }
    }
  }
  size_t pos = loc.loops.size();
  for (size_t i = 0; i < loc.loops.size(); ++i)
    if (loc.loops[i] == loop) pos = i;
  if (pos == loc.loops.size()) {
    ThrowScheduleError(prim, "loop " + loop->loop_var->name_hint + " does not enclose block \"" + block->name_hint + "\"", func, {loop});
  }
  // The rfactor loop may only feed reduction iterators.
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    bool uses = UsesVar(loc.realize->iter_values[k], loop->loop_var.get());
    if (uses && block->iter_vars[k]->iter_type == kDataPar) {
      ThrowScheduleError(prim, "loop " + loop->loop_var->name_hint + " is bound to a spatial iterator of block \"" +
                                   block->name_hint + "\"",
                         func, {loop});
    }
  }
  // As TVM, a loop that no iterator uses may be factored too.
  // As TVM: the rf nest (a copy of the block's loops) goes before the
  // outermost loop, so the block must be the first block under it; the loops
  // the write-back drops (the other reduction loops) hold only the block.
  const ForNode* outer = loc.loops.empty() ? nullptr : loc.loops[0];
  auto reduction_loop = [&](const ForNode* l) {
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      if (block->iter_vars[k]->iter_type != kDataPar && UsesVar(loc.realize->iter_values[k], l->loop_var.get())) {
        return true;
      }
    }
    return false;
  };
  if (outer != nullptr) {
    auto first = ChildBlocks(GetRef<Stmt>(outer));
    if (first.empty() || first[0] != loc.realize) {
      ThrowScheduleError(prim, "block \"" + block->name_hint + "\" is not the first block under its outermost loop " +
                                   outer->loop_var->name_hint + "; the rfactor block could not be placed before it",
                         func, {outer});
    }
  }
  for (const ForNode* l : loc.loops) {
    if (l == loop || !reduction_loop(l)) continue;
    if (ChildBlocks(GetRef<Stmt>(l)).size() != 1) {
      ThrowScheduleError(prim, "loop " + l->loop_var->name_hint + " holds other blocks besides \"" + block->name_hint + "\"", func, {l});
    }
  }
  if (outer == nullptr) ThrowScheduleError(prim, "block \"" + block->name_hint + "\" has no loops", func, {block});
  const Buffer& out = pattern->store->buffer;
  const int ndim = static_cast<int>(out->shape.size());
  if (factor_axis < 0) factor_axis += ndim + 1;
  if (factor_axis < 0 || factor_axis > ndim) {
    ThrowScheduleError(prim, "factor_axis is out of range for " + out->name, func);
  }
  DataType lt = loop->loop_var.dtype();
  // rf buffer: out's shape with the rfactor loop's extent inserted.
  Buffer rf_buf = decl_buffer(InsertAt(out->shape, factor_axis, loop->extent), out->dtype, out->name + "_rf", out->scope);
  // As TVM (the rf buffer is a copy of out's), a constant elem_offset keeps its dtype.
  if (out->elem_offset.defined() && out->elem_offset.as<IntImmNode>()) rf_buf.CopyOnWrite()->elem_offset = out->elem_offset;

  // ---- the rf block: spatial iterators + one iterator per reduction loop ----
  std::vector<IterVar> rf_iters;
  std::vector<PrimExpr> rf_values;
  std::unordered_map<const VarNode*, PrimExpr> loop_to_iter;
  Var rf_var("v" + loop->loop_var->name_hint, lt);
  // Each new block defines its own iteration variables (one Var is defined at one place).
  auto fresh_spatial = [&](std::unordered_map<const VarNode*, PrimExpr>* subst) {
    std::vector<IterVar> iters;
    for (const IterVar& iv : block->iter_vars) {
      if (iv->iter_type != kDataPar) continue;
      Var nv(iv->var->name_hint, iv->var.dtype());
      (*subst)[iv->var.get()] = nv;
      iters.push_back(IterVar(iv->dom, nv, kDataPar, iv->thread_tag));
    }
    return iters;
  };
  // As TVM: the rfactor iterator comes first, then the block's spatial ones.
  std::unordered_map<const VarNode*, PrimExpr> rf_spatial;
  rf_iters.push_back(IterVar(Range::FromMinExtent(loop->min, loop->extent), rf_var, kDataPar));
  rf_values.push_back(loop->loop_var);
  for (IterVar iv : fresh_spatial(&rf_spatial)) rf_iters.push_back(iv);
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    if (block->iter_vars[k]->iter_type != kDataPar) continue;
    rf_values.push_back(loc.realize->iter_values[k]);
  }
  loop_to_iter[loop->loop_var.get()] = rf_var;
  // As TVM, a reduction iterator whose binding does not use the rfactor loop
  // stays as it is; the others become one iterator per loop they use.
  auto touches_rf = [&](size_t k) {
    return block->iter_vars[k]->iter_type != kDataPar && UsesVar(loc.realize->iter_values[k], loop->loop_var.get());
  };
  std::unordered_map<const VarNode*, PrimExpr> kept_reduce;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    if (iv->iter_type == kDataPar || touches_rf(k)) continue;
    Var nv(iv->var->name_hint, iv->var.dtype());
    kept_reduce[iv->var.get()] = nv;
    rf_iters.push_back(IterVar(iv->dom, nv, iv->iter_type, iv->thread_tag));
    rf_values.push_back(loc.realize->iter_values[k]);
  }
  for (const ForNode* l : loc.loops) {
    if (l == loop) continue;
    bool reduce_loop = false;
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      if (touches_rf(k) && UsesVar(loc.realize->iter_values[k], l->loop_var.get())) {
        reduce_loop = true;
      }
    }
    if (!reduce_loop) continue;
    Var v("v" + l->loop_var->name_hint, l->loop_var.dtype());
    rf_iters.push_back(IterVar(Range::FromMinExtent(l->min, l->extent), v, kCommReduce));
    rf_values.push_back(l->loop_var);
    loop_to_iter[l->loop_var.get()] = v;
  }
  std::unordered_map<const VarNode*, PrimExpr> reduce_subst = rf_spatial;
  for (auto& kv : kept_reduce) reduce_subst[kv.first] = kv.second;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    if (block->iter_vars[k]->iter_type == kDataPar || !touches_rf(k)) continue;
    reduce_subst[block->iter_vars[k]->var.get()] = Substitute(loc.realize->iter_values[k], [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = loop_to_iter.find(v.get());
      if (it == loop_to_iter.end()) return std::nullopt;
      return it->second;
    });
  }
  auto subst_reduce = [&](const PrimExpr& e) {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = reduce_subst.find(v.get());
      if (it == reduce_subst.end()) return std::nullopt;
      return it->second;
    });
  };
  std::vector<PrimExpr> rf_store_indices;
  for (const PrimExpr& e : pattern->store->indices) rf_store_indices.push_back(subst_reduce(e));
  Array<PrimExpr> rf_index = InsertAt(Array<PrimExpr>(rf_store_indices), factor_axis, rf_var);
  Stmt rf_body = BufferStore(rf_buf, Combine(pattern->op, BufferLoad(rf_buf, rf_index), subst_reduce(pattern->rhs)), rf_index);
  Stmt rf_init = BufferStore(rf_buf, subst_reduce(init_store->value), rf_index);
  *rf_name = block->name_hint + "_rf";
  // As TVM: the rf block keeps the block's annotations; without reduction
  // iterators it is a plain store (no init, no accumulation).
  bool rf_reduces = false;
  for (const IterVar& iv : rf_iters) rf_reduces = rf_reduces || iv->iter_type == kCommReduce;
  std::optional<Stmt> rf_init_opt;
  if (rf_reduces) {
    rf_init_opt = rf_init;
  } else {
    rf_body = BufferStore(rf_buf, subst_reduce(pattern->rhs), rf_index);
  }
  Block rf_block(Array<IterVar>(rf_iters), {}, {}, *rf_name, rf_body, rf_init_opt, {}, {}, block->annotations);
  {
    auto [reads, writes] = InferBlockAccessRegions(rf_block);
    rf_block.CopyOnWrite()->reads = reads;
    rf_block.CopyOnWrite()->writes = writes;
  }
  // The rf nest copies the block's loops with fresh loop variables.
  std::unordered_map<const VarNode*, PrimExpr> rf_loop_copy;
  for (const ForNode* l : loc.loops) rf_loop_copy[l->loop_var.get()] = Var(l->loop_var->name_hint, l->loop_var.dtype());
  auto rf_loops = [&](const PrimExpr& e) {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = rf_loop_copy.find(v.get());
      if (it == rf_loop_copy.end()) return std::nullopt;
      return it->second;
    });
  };
  std::vector<PrimExpr> rf_bound;
  for (const PrimExpr& v : rf_values) rf_bound.push_back(rf_loops(v));
  Stmt rf_nest = BlockRealize(Array<PrimExpr>(rf_bound), rf_loops(loc.realize->predicate), rf_block);
  for (size_t i = loc.loops.size(); i-- > 0;) {
    For f = GetRef<For>(loc.loops[i]);
    auto* n = f.CopyOnWrite();
    n->loop_var = Downcast<Var>(rf_loop_copy.at(loc.loops[i]->loop_var.get()));
    n->min = rf_loops(n->min);
    n->extent = rf_loops(n->extent);
    n->body = rf_nest;
    rf_nest = f;
  }

  // ---- the write-back block: spatial iterators + the rfactor iterator as reduction ----
  std::vector<IterVar> wb_iters;
  std::vector<PrimExpr> wb_values;
  std::unordered_map<const VarNode*, PrimExpr> wb_loop_copy;
  for (const ForNode* l : loc.loops) {
    // As TVM: the write-back stays in place under the rfactor loop and every
    // loop no reduction iterator uses; the other loops are dropped.
    bool keep = l == loop || !reduction_loop(l);
    if (!keep) continue;
    wb_loop_copy[l->loop_var.get()] = l->loop_var;
  }
  auto copy_loops = [&](const PrimExpr& e) {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = wb_loop_copy.find(v.get());
      if (it == wb_loop_copy.end()) return std::nullopt;
      return it->second;
    });
  };
  std::unordered_map<const VarNode*, PrimExpr> wb_spatial;
  Var wb_rf_var("v" + loop->loop_var->name_hint, lt);
  wb_iters.push_back(IterVar(Range::FromMinExtent(loop->min, loop->extent), wb_rf_var, kCommReduce));
  wb_values.push_back(wb_loop_copy.at(loop->loop_var.get()));
  for (IterVar iv : fresh_spatial(&wb_spatial)) wb_iters.push_back(iv);
  auto subst_wb = [&](const PrimExpr& e) {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = wb_spatial.find(v.get());
      if (it == wb_spatial.end()) return std::nullopt;
      return it->second;
    });
  };
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    if (block->iter_vars[k]->iter_type != kDataPar) continue;
    wb_values.push_back(copy_loops(loc.realize->iter_values[k]));
  }
  std::vector<PrimExpr> wb_store_indices;
  for (const PrimExpr& e : pattern->store->indices) wb_store_indices.push_back(subst_wb(e));
  Array<PrimExpr> wb_out_index(wb_store_indices);
  Array<PrimExpr> wb_rf_index = InsertAt(wb_out_index, factor_axis, wb_rf_var);
  Stmt wb_body = BufferStore(out, Combine(pattern->op, BufferLoad(out, wb_out_index), BufferLoad(rf_buf, wb_rf_index)),
                             wb_out_index);
  Block wb_block = GetRef<Block>(block);
  {
    auto* n = wb_block.CopyOnWrite();
    n->iter_vars = Array<IterVar>(wb_iters);
    n->body = wb_body;
    if (n->init.has_value()) {
      n->init = Substitute(*n->init, [&](const Var& v) -> std::optional<PrimExpr> {
        auto it = wb_spatial.find(v.get());
        if (it == wb_spatial.end()) return std::nullopt;
        return it->second;
      });
    }
    auto [reads, writes] = InferBlockAccessRegions(wb_block);
    n->reads = reads;
    n->writes = writes;
  }
  // The predicate's conjuncts over the kept loops guard the write-back too.
  PrimExpr wb_pred = ProjectPredicate(
      prim, func, block, loc.realize->predicate, loc.loops,
      [&](const VarNode* v) { return wb_loop_copy.count(v) != 0; }, copy_loops);
  Stmt wb_realize = BlockRealize(Array<PrimExpr>(wb_values), wb_pred, wb_block);
  struct WriteBackPlacer : StmtExprMutator {
    const BlockRealizeNode* target;
    Stmt replacement;
    std::unordered_set<const ForNode*> dropped;
    using StmtExprMutator::VisitStmt_;
    PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
    Stmt VisitStmt_(const ForNode* op) override {
      if (dropped.count(op)) return VisitStmt(op->body);
      return StmtExprMutator::VisitStmt_(op);
    }
    Stmt VisitStmt_(const BlockRealizeNode* op) override {
      return op == target ? replacement : GetRef<Stmt>(op);
    }
  } placer;
  placer.target = loc.realize;
  placer.replacement = wb_realize;
  for (const ForNode* l : loc.loops)
    if (l != loop && reduction_loop(l)) placer.dropped.insert(l);
  Stmt wb_nest = placer.VisitStmt(GetRef<Stmt>(outer));
  PrimFunc result = ReplaceInFunc(func, outer, SeqStmt::Flatten({rf_nest, wb_nest}));
  // Allocate the rf buffer in the scope block.
  auto scope_loc = FindBlock(result, *rf_name);
  Block scope = GetRef<Block>(scope_loc->scope);
  scope.CopyOnWrite()->alloc_buffers.push_back(rf_buf);
  return ReplaceInFunc(result, scope_loc->scope, scope);
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("DecomposeReduction")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return Array<Any>{sch.DecomposeReduction(in.at_any(0).cast<BlockRV>(), in.at_any(1).cast<LoopRV>())};
    })
    .set_as_python(PythonCall("decompose_reduction", {"block", "loop"}, {}));
TESSERA_REGISTER_INST_KIND("RFactor")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return Array<Any>{sch.RFactor(in.at_any(0).cast<LoopRV>(), attrs.at_any(0).cast<int>())};
    })
    .set_as_python(PythonCall("rfactor", {"loop"}, {"factor_axis"}));

// ---- Schedule methods ------------------------------------------------------------

BlockRV Schedule::DecomposeReduction(const BlockRV& block, const LoopRV& loop) const {
  BlockLocation bloc = LocateBlock(block, "decompose_reduction");
  LoopLocation lloc = LocateLoop(loop, "decompose_reduction");
  const std::string func = get()->blocks.at(block.get()).func;
  std::string init_name;
  PrimFunc out = tir::DecomposeReduction(FuncOf(func), bloc, lloc.loop, &init_name);
  Commit(func, out);
  self()->blocks[block.get()].name = bloc.block->name_hint + "_update";
  BlockRV init = BlockRV::Make();
  self()->blocks[init.get()] = {func, init_name};
  Record("DecomposeReduction", {block, loop}, {}, {init});
  return init;
}

BlockRV Schedule::RFactor(const LoopRV& loop, int factor_axis) const {
  LoopLocation lloc = LocateLoop(loop, "rfactor");
  const std::string func = get()->loops.at(loop.get()).func;
  PrimFunc f = FuncOf(func);
  auto blocks = ChildBlocks(GetRef<Stmt>(lloc.loop));
  if (blocks.size() != 1) {
    ThrowScheduleError("rfactor", "loop " + lloc.loop->loop_var->name_hint + " must hold exactly one block", f);
  }
  auto findex = IndexOf(func);
  const BlockLocation* bloc = nullptr;
  for (const BlockLocation& b : findex->blocks())
    if (b.block == blocks[0]->block.get()) bloc = &b;
  std::string name;
  Commit(func, tir::RFactor(f, *bloc, lloc.loop, factor_axis, &name));
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, name};
  Record("RFactor", {loop}, {static_cast<int64_t>(factor_axis)}, {rv});
  return rv;
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.DecomposeReduction").set_body_typed([](Schedule s, BlockRV b, LoopRV l) {
  return s.DecomposeReduction(b, l);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.RFactor").set_body_typed([](Schedule s, LoopRV l, int axis) { return s.RFactor(l, axis); });

}  // namespace tir
}  // namespace tessera
