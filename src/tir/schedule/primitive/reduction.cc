// decompose_reduction (see primitives.h).
#include <functional>
#include <unordered_map>

#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"

namespace tessera {
namespace tir {

PrimFunc DecomposeReduction(const PrimFunc& func, const BlockLocation& loc, const ForNode* loop,
                            std::string* init_name) {
  const BlockNode* block = loc.block;
  if (!block->init) {
    ThrowScheduleError("decompose_reduction", "block \"" + block->name_hint + "\" has no init statement", func);
  }
  size_t pos = loc.loops.size();
  for (size_t i = 0; i < loc.loops.size(); ++i)
    if (loc.loops[i] == loop) pos = i;
  if (pos == loc.loops.size()) {
    ThrowScheduleError("decompose_reduction", "loop " + loop->loop_var->name_hint + " does not enclose block \"" +
                                                  block->name_hint + "\"",
                       func);
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
                           func);
      }
    }
  }
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
  Block init_block(Array<IterVar>(init_iters), {}, Array<BufferRegion>(init_writes), *init_name,
                   Substitute(*block->init, subst_iters));
  // Conjuncts of the predicate that only constrain reduction loops do not
  // concern the init; ones mixing them with spatial loops cannot be split.
  std::vector<PrimExpr> conjuncts;
  std::function<void(const PrimExpr&)> split = [&](const PrimExpr& e) {
    if (const auto* a = e.as<AndNode>()) {
      split(a->a);
      split(a->b);
    } else {
      conjuncts.push_back(e);
    }
  };
  split(loc.realize->predicate);
  PrimExpr pred = IntImm(DataType::Bool(), 1);
  for (const PrimExpr& c : conjuncts) {
    bool uses_dropped = false, uses_kept = false;
    for (size_t i = pos; i < loc.loops.size(); ++i) {
      bool used = UsesVar(c, loc.loops[i]->loop_var.get());
      if (!used) continue;
      if (loop_copy.count(loc.loops[i]->loop_var.get())) uses_kept = true; else uses_dropped = true;
    }
    if (uses_dropped && uses_kept) {
      ThrowScheduleError("decompose_reduction", "the predicate of block \"" + block->name_hint +
                                                    "\" mixes reduction and spatial loops; it cannot be split for the init",
                         func);
    }
    if (!uses_dropped) pred = logical_and(pred, subst_loops(c));
  }
  Stmt init_nest = BlockRealize(Array<PrimExpr>(init_values), pred, init_block);
  for (size_t i = copied.size(); i-- > 0;) {
    const ForNode* l = copied[i];
    init_nest = For(Downcast<Var>(loop_copy[l->loop_var.get()]), l->min, l->extent, l->kind, init_nest);
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
