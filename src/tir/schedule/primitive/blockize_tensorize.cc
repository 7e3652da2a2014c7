// blockize and tensorize (see primitives.h), followed by their schedule
// instruction kinds, Schedule methods (resolve the handles, commit,
// record) and tir.schedule.* FFI entries.
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

Block WithInferredRegions(Block b) {
  auto [reads, writes] = InferBlockAccessRegions(b);
  auto* n = b.CopyOnWrite();
  n->reads = reads;
  n->writes = writes;
  return b;
}

PrimExpr SubstituteVars(const PrimExpr& e, const std::unordered_map<const VarNode*, PrimExpr>& m) {
  return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = m.find(v.get());
    if (it == m.end()) return std::nullopt;
    return it->second;
  });
}
Stmt SubstituteVars(const Stmt& s, const std::unordered_map<const VarNode*, PrimExpr>& m) {
  return Substitute(s, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = m.find(v.get());
    if (it == m.end()) return std::nullopt;
    return it->second;
  });
}

}  // namespace

PrimFunc Blockize(const PrimFunc& func, const LoopLocation& loc, std::string* outer_name, bool preserve_unit_iters) {
  const std::string prim = "blockize";
  std::vector<const ForNode*> inner_loops;
  const BlockRealizeNode* realize = nullptr;
  for (Stmt s = GetRef<Stmt>(loc.loop);;) {
    if (const auto* f = s.as<ForNode>()) {
      inner_loops.push_back(f);
      s = f->body;
    } else if (const auto* br = s.as<BlockRealizeNode>()) {
      realize = br;
      break;
    } else {
      ThrowScheduleError(prim, "loop " + loc.loop->loop_var->name_hint +
                                   " must contain a chain of loops ending in a single block",
                         func, {loc.loop});
    }
  }
  const BlockNode* block = realize->block.get();
  arith::Analyzer ana;
  for (const ForNode* a : loc.ancestors) {
    // Binding a unit loop would let the simplifier fold it to a constant: kept when preserving unit iters.
    if (preserve_unit_iters && IsConstInt(a->extent, 1)) continue;
    ana.Bind(a->loop_var, Range::FromMinExtent(a->min, a->extent));
  }
  std::unordered_map<const Object*, arith::IntSet> inner_dom;
  std::unordered_map<const VarNode*, PrimExpr> zero;
  for (const ForNode* l : inner_loops) {
    ana.Bind(l->loop_var, Range::FromMinExtent(l->min, l->extent));
    inner_dom[l->loop_var.get()] = arith::IntSet::FromMinExtent(l->min, l->extent);
    zero[l->loop_var.get()] = IntImm(l->loop_var.dtype(), 0);
  }
  // Without preserve_unit_iters, loops of extent 1 (inside or outside `loop`) are bound as 0.
  std::unordered_map<const VarNode*, PrimExpr> unit_zero;
  if (!preserve_unit_iters) {
    std::vector<const ForNode*> all_loops = loc.ancestors;
    all_loops.insert(all_loops.end(), inner_loops.begin(), inner_loops.end());
    for (const ForNode* l : all_loops)
      if (IsConstInt(l->extent, 1)) unit_zero[l->loop_var.get()] = l->min;
  }
  std::vector<IterVar> outer_iters, inner_iters;
  std::vector<PrimExpr> outer_values, inner_values;
  std::unordered_map<const VarNode*, PrimExpr> body_subst;
  std::vector<int64_t> factors;
  std::vector<Var> inner_vars(block->iter_vars.size());
  std::vector<Var> outer_vars(block->iter_vars.size());
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    IterVar iv = block->iter_vars[k];
    PrimExpr e = realize->iter_values[k];
    if (!unit_zero.empty()) e = ana.Simplify(SubstituteVars(e, unit_zero));
    PrimExpr outer_part = ana.Simplify(SubstituteVars(e, zero));
    PrimExpr inner_part = ana.Simplify(sub(e, outer_part));
    for (const ForNode* a : loc.ancestors) {
      if (UsesVar(inner_part, a->loop_var.get())) {
        ThrowScheduleError(prim, "the binding of " + iv->var->name_hint + " in block \"" + block->name_hint +
                                     "\" mixes loops inside and outside loop " + loc.loop->loop_var->name_hint,
                           func, {block});
      }
    }
    int64_t factor = 1;
    if (!IsConstInt(inner_part, 0)) {
      arith::IntSet set = arith::EvalSet(inner_part, inner_dom, &ana);
      std::optional<int64_t> lo = ConstIntValue(ana.Simplify(set.min()));
      std::optional<int64_t> hi = ConstIntValue(ana.Simplify(set.max()));
      if (!lo || !hi || *lo != 0) {
        ThrowScheduleError(prim, "the inner part of the binding of " + iv->var->name_hint +
                                     " does not start at 0 with a constant extent",
                           func);
      }
      factor = *hi + 1;
    }
    const int64_t* extent = AsConstInt(iv->dom->extent);
    if (extent == nullptr || *extent % factor != 0 || !IsConstInt(iv->dom->min, 0)) {
      ThrowScheduleError(prim, "the domain of " + iv->var->name_hint + " is not a multiple of the tile " +
                                   std::to_string(factor),
                         func);
    }
    DataType t = iv->var.dtype();
    PrimExpr outer_value = factor == 1 ? outer_part : ana.Simplify(floordiv(outer_part, IntImm(t, factor)));
    if (factor != 1 && !ana.CanProveEqual(mul(outer_value, IntImm(t, factor)), outer_part)) {
      ThrowScheduleError(prim, "the outer part of the binding of " + iv->var->name_hint + " is not a multiple of " +
                                   std::to_string(factor),
                         func);
    }
    outer_vars[k] = Var(iv->var->name_hint + "_o", t);
    outer_iters.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), IntImm(t, *extent / factor)), outer_vars[k],
                                  iv->iter_type));
    outer_values.push_back(outer_value);
    if (factor == 1) {
      body_subst[iv->var.get()] = outer_vars[k];
    } else {
      inner_vars[k] = Var(iv->var->name_hint + "_i", t);
      inner_iters.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), IntImm(t, factor)), inner_vars[k], iv->iter_type));
      inner_values.push_back(inner_part);
      // As TVM: an outer iterator of extent 1 (always 0) drops out of the inner binding.
      body_subst[iv->var.get()] =
          *extent == factor ? PrimExpr(inner_vars[k]) : add(mul(outer_vars[k], IntImm(t, factor)), inner_vars[k]);
    }
    factors.push_back(factor);
  }
  // The inner block: inner iteration variables, no init.
  Block inner(Array<IterVar>(inner_iters), {}, {}, block->name_hint, SubstituteVars(block->body, body_subst),
              std::nullopt, block->alloc_buffers, block->match_buffers, block->annotations);
  inner = WithInferredRegions(inner);
  Stmt inner_nest = BlockRealize(Array<PrimExpr>(inner_values), realize->predicate, inner);
  for (size_t i = inner_loops.size(); i-- > 0;) {
    For f = GetRef<For>(inner_loops[i]);
    f.CopyOnWrite()->body = inner_nest;
    inner_nest = f;
  }
  // The init moves to the outer block, over the inner spatial loops.
  std::optional<Stmt> outer_init;
  if (block->init) {
    std::unordered_map<const VarNode*, PrimExpr> loop_copy;
    std::vector<const ForNode*> copied;
    for (const ForNode* l : inner_loops) {
      bool used = false;
      for (size_t k = 0; k < block->iter_vars.size(); ++k) {
        if (block->iter_vars[k]->iter_type == kDataPar && factors[k] != 1 &&
            UsesVar(realize->iter_values[k], l->loop_var.get())) {
          used = true;
        }
      }
      if (used) {
        copied.push_back(l);
        loop_copy[l->loop_var.get()] = Var(l->loop_var->name_hint, l->loop_var.dtype());
      }
    }
    std::vector<IterVar> init_iters;
    std::vector<PrimExpr> init_values;
    std::unordered_map<const VarNode*, PrimExpr> init_subst;
    size_t inner_index = 0;
    for (size_t k = 0; k < block->iter_vars.size(); ++k) {
      IterVar iv = block->iter_vars[k];
      DataType t = iv->var.dtype();
      if (factors[k] == 1) {
        init_subst[iv->var.get()] = outer_vars[k];
        continue;
      }
      PrimExpr inner_value = inner_values[inner_index++];
      if (iv->iter_type != kDataPar) continue;
      Var v(iv->var->name_hint + "_i_init", t);
      init_iters.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), IntImm(t, factors[k])), v, kDataPar));
      init_values.push_back(SubstituteVars(inner_value, loop_copy));
      const int64_t* extent = AsConstInt(iv->dom->extent);
      init_subst[iv->var.get()] = (extent != nullptr && *extent == factors[k])
                                      ? PrimExpr(v)
                                      : add(mul(outer_vars[k], IntImm(t, factors[k])), v);
    }
    Block init_block(Array<IterVar>(init_iters), {}, {}, block->name_hint + "_init",
                     SubstituteVars(*block->init, init_subst));
    init_block = WithInferredRegions(init_block);
    Stmt init_nest = BlockRealize(Array<PrimExpr>(init_values), IntImm(DataType::Bool(), 1), init_block);
    for (size_t i = copied.size(); i-- > 0;) {
      init_nest = For(Downcast<Var>(loop_copy[copied[i]->loop_var.get()]), copied[i]->min, copied[i]->extent,
                      copied[i]->kind, init_nest);
    }
    outer_init = init_nest;
  }
  *outer_name = block->name_hint + "_o";
  Block outer(Array<IterVar>(outer_iters), {}, {}, *outer_name, inner_nest, outer_init);
  outer = WithInferredRegions(outer);
  Stmt outer_realize = BlockRealize(Array<PrimExpr>(outer_values), IntImm(DataType::Bool(), 1), outer);
  return ReplaceInFunc(func, loc.loop, outer_realize);
}

namespace {

// Matches an intrinsic's description against a block body: loops and blocks
// correspond one to one, variables are mapped at their definitions, and each
// description buffer maps to one block buffer at a fixed offset.
class TensorizeMatcher {
 public:
  struct BufferMatch {
    Buffer target;
    std::vector<PrimExpr> offsets;
  };

  TensorizeMatcher(arith::Analyzer* ana) : ana_(ana) {}

  bool Stmts(const Stmt& d, const Stmt& t) {
    if (d->type_index() != t->type_index()) return Fail("different statements: " + d->GetTypeKey() + " vs " + t->GetTypeKey());
    if (const auto* df = d.as<ForNode>()) {
      const auto* tf = t.as<ForNode>();
      if (!ana_->CanProveEqual(df->extent, tf->extent) || !ana_->CanProveEqual(df->min, tf->min)) {
        return Fail("loop extents differ");
      }
      vars_[df->loop_var.get()] = tf->loop_var;
      inner_vars_.insert(tf->loop_var.get());
      ana_->Bind(tf->loop_var, Range::FromMinExtent(tf->min, tf->extent), true);
      return Stmts(df->body, tf->body);
    }
    if (const auto* dr = d.as<BlockRealizeNode>()) {
      const auto* tr = t.as<BlockRealizeNode>();
      const BlockNode* db = dr->block.get();
      const BlockNode* tb = tr->block.get();
      if (db->iter_vars.size() != tb->iter_vars.size()) return Fail("blocks have different numbers of iterators");
      if (db->init.has_value() != tb->init.has_value()) return Fail("only one block has an init");
      for (size_t i = 0; i < db->iter_vars.size(); ++i) {
        IterVar a = db->iter_vars[i], b = tb->iter_vars[i];
        if (a->iter_type != b->iter_type || !ana_->CanProveEqual(a->dom->extent, b->dom->extent)) {
          return Fail("block iterators differ");
        }
        vars_[a->var.get()] = b->var;
        inner_vars_.insert(b->var.get());
        ana_->Bind(b->var, b->dom, true);
        if (!Exprs(dr->iter_values[i], tr->iter_values[i])) return false;
      }
      if (db->init && !Stmts(*db->init, *tb->init)) return false;
      return Stmts(db->body, tb->body);
    }
    if (const auto* ds = d.as<BufferStoreNode>()) {
      const auto* ts = t.as<BufferStoreNode>();
      return Access(ds->buffer, ds->indices, ts->buffer, ts->indices) && Exprs(ds->value, ts->value);
    }
    if (const auto* dq = d.as<SeqStmtNode>()) {
      const auto* tq = t.as<SeqStmtNode>();
      if (dq->seq.size() != tq->seq.size()) return Fail("sequences differ in length");
      for (size_t i = 0; i < dq->seq.size(); ++i)
        if (!Stmts(dq->seq[i], tq->seq[i])) return false;
      return true;
    }
    return Fail("unsupported statement " + d->GetTypeKey() + " in the intrinsic description");
  }

  // Structurally, or else (integer arithmetic over mapped variables only) by
  // value under the iterators' ranges: the block's `(o * 8 + i) % 8` matches
  // the description's `i` (TVM simplifies the blockized body instead).
  bool Exprs(const PrimExpr& d, const PrimExpr& t) {
    std::string saved = reason;
    if (ExprsStructural(d, t)) return true;
    if (!d.dtype().is_int() || d.dtype() != t.dtype()) return false;
    bool pure = true;
    PostOrderVisit(d, [&](const ObjectRef& n) {
      if (const auto* v = n.as<VarNode>()) {
        if (!vars_.count(v)) pure = false;
      } else if (n.as<BufferLoadNode>() || n.as<CallNode>()) {
        pure = false;
      }
    });
    if (!pure || !ana_->CanProveEqual(MapVars(d), t)) return false;
    reason = saved;
    return true;
  }

  PrimExpr MapVars(const PrimExpr& e) const {
    return Substitute(e, [&](const Var& v) -> std::optional<PrimExpr> {
      auto it = vars_.find(v.get());
      if (it == vars_.end()) return std::nullopt;
      return it->second;
    });
  }

  bool ExprsStructural(const PrimExpr& d, const PrimExpr& t) {
    if (d.dtype() != t.dtype()) return Fail("dtypes differ: " + d.dtype().str() + " vs " + t.dtype().str());
    if (const auto* dv = d.as<VarNode>()) {
      auto it = vars_.find(dv);
      if (it == vars_.end()) return Fail("free variable " + dv->name_hint + " in the description");
      return it->second.same_as(t) || Fail("variable " + dv->name_hint + " maps elsewhere");
    }
    if (d->type_index() != t->type_index()) return Fail("expressions differ: " + d->GetTypeKey() + " vs " + t->GetTypeKey());
    if (const auto* di = d.as<IntImmNode>()) return di->value == t.as<IntImmNode>()->value || Fail("constants differ");
    if (const auto* dfl = d.as<FloatImmNode>()) return dfl->value == t.as<FloatImmNode>()->value || Fail("constants differ");
    if (const auto* db = d.as<BinaryOpNode>()) {
      const auto* tb = t.as<BinaryOpNode>();
      return Exprs(db->a, tb->a) && Exprs(db->b, tb->b);
    }
    if (const auto* dc = d.as<CastNode>()) return Exprs(dc->value, t.as<CastNode>()->value);
    if (const auto* dl = d.as<BufferLoadNode>()) {
      const auto* tl = t.as<BufferLoadNode>();
      return Access(dl->buffer, dl->indices, tl->buffer, tl->indices);
    }
    if (const auto* dcall = d.as<CallNode>()) {
      const auto* tcall = t.as<CallNode>();
      if (!dcall->op.same_as(tcall->op) || dcall->args.size() != tcall->args.size()) return Fail("calls differ");
      for (size_t i = 0; i < dcall->args.size(); ++i)
        if (!Exprs(dcall->args[i], tcall->args[i])) return false;
      return true;
    }
    if (const auto* dsel = d.as<SelectNode>()) {
      const auto* tsel = t.as<SelectNode>();
      return Exprs(dsel->condition, tsel->condition) && Exprs(dsel->true_value, tsel->true_value) &&
             Exprs(dsel->false_value, tsel->false_value);
    }
    return Fail("unsupported expression " + d->GetTypeKey() + " in the intrinsic description");
  }

  bool Access(const Buffer& db, const Array<PrimExpr>& di, const Buffer& tb, const Array<PrimExpr>& ti) {
    if (db->dtype != tb->dtype) return Fail("buffer " + tb->name + " has dtype " + tb->dtype.str());
    if (db->scope != tb->scope) {
      return Fail("buffer " + tb->name + " is in scope \"" + tb->scope + "\" but the intrinsic expects \"" + db->scope + "\"");
    }
    // As TVM: a description buffer of lower rank matches the trailing
    // dimensions; the leading ones are fixed (extent 1) by the outer iterators.
    if (di.size() > ti.size()) return Fail("buffer " + tb->name + " is indexed with a lower rank than the intrinsic's");
    const size_t lead = ti.size() - di.size();
    std::vector<PrimExpr> offsets;
    for (size_t i = 0; i < ti.size(); ++i) {
      PrimExpr mapped = i < lead ? IntImm(ti[i].dtype(), 0)
                                 : Substitute(di[i - lead], [&](const Var& v) -> std::optional<PrimExpr> {
                                     auto it = vars_.find(v.get());
                                     if (it == vars_.end()) return std::nullopt;
                                     return it->second;
                                   });
      if (mapped.dtype() != ti[i].dtype()) mapped = cast(ti[i].dtype(), mapped);
      PrimExpr off = ana_->Simplify(sub(ti[i], mapped));
      for (const VarNode* iv : inner_vars_) {
        if (UsesVar(off, iv)) return Fail("the index of " + tb->name + " does not have the intrinsic's pattern");
      }
      offsets.push_back(off);
    }
    auto it = buffers_.find(db.get());
    if (it == buffers_.end()) {
      buffers_[db.get()] = BufferMatch{tb, offsets};
      return true;
    }
    if (!it->second.target.same_as(tb)) return Fail("buffer " + db->name + " of the intrinsic maps to two buffers");
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (!ana_->CanProveEqual(offsets[i], it->second.offsets[i])) return Fail("buffer " + tb->name + " is accessed at two offsets");
    }
    return true;
  }

  bool Fail(const std::string& why) {
    if (reason.empty()) reason = why;
    return false;
  }

  std::string reason;
  std::unordered_map<const BufferNode*, BufferMatch> buffers_;

 private:
  arith::Analyzer* ana_;
  std::unordered_map<const VarNode*, Var> vars_;
  std::unordered_set<const VarNode*> inner_vars_;
};

const BlockRealizeNode* RootRealize(const PrimFunc& f) {
  const auto* br = f->body.as<BlockRealizeNode>();
  return br;
}

}  // namespace

PrimFunc Tensorize(const PrimFunc& func, const BlockLocation& loc, const TensorIntrin& intrin) {
  const std::string prim = "tensorize";
  const BlockNode* block = loc.block;
  if (block->init) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" still has an init; decompose_reduction first", func, {block});
  }
  const BlockRealizeNode* desc_root = RootRealize(intrin->desc);
  const BlockRealizeNode* impl_root = RootRealize(intrin->impl);
  if (desc_root == nullptr || impl_root == nullptr) {
    ThrowScheduleError(prim, "the intrinsic's desc and impl must each consist of one block", func);
  }
  arith::Analyzer ana;
  TensorizeMatcher matcher(&ana);
  if (!matcher.Stmts(desc_root->block->body, block->body)) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" does not match the intrinsic's description: " +
                                 matcher.reason,
                       func, {block});
  }
  // Bind each impl buffer (by parameter position) to the matched region of the block's buffer.
  std::vector<MatchBufferRegion> matches;
  const auto& desc_params = intrin->desc->params;
  const auto& impl_params = intrin->impl->params;
  for (size_t i = 0; i < desc_params.size(); ++i) {
    auto db = intrin->desc->buffer_map.Get(desc_params[i]);
    auto ib = intrin->impl->buffer_map.Get(impl_params[i]);
    if (!db || !ib) ThrowScheduleError(prim, "intrinsic parameter " + std::to_string(i) + " has no buffer", func);
    auto it = matcher.buffers_.find(db->get());
    if (it == matcher.buffers_.end()) {
      ThrowScheduleError(prim, "the intrinsic's buffer " + (*db)->name + " is not used by its description", func);
    }
    std::vector<Range> region;
    const size_t rank = it->second.offsets.size(), lead = rank - (*db)->shape.size();
    for (size_t d = 0; d < rank; ++d) {
      PrimExpr off = it->second.offsets[d];
      PrimExpr extent = d < lead ? IntImm(off.dtype(), 1) : (*db)->shape[d - lead];
      if (extent.dtype() != off.dtype()) extent = cast(off.dtype(), extent);
      region.push_back(Range::FromMinExtent(off, extent));
    }
    matches.push_back(MatchBufferRegion(*ib, BufferRegion(it->second.target, Array<Range>(region))));
  }
  Block b = GetRef<Block>(block);
  auto* n = b.CopyOnWrite();
  n->body = impl_root->block->body;
  n->match_buffers = Array<MatchBufferRegion>(matches);
  // As TVM: the annotations of the implementation's block join the block's.
  for (const auto& [key, value] : impl_root->block->annotations.items()) n->annotations.Set(key, value);
  return ReplaceInFunc(func, block, b);
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("Blockize")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return Array<Any>{sch.Blockize(in.at_any(0).cast<LoopRV>(), attrs.empty() || attrs.at_any(0).cast<bool>())};
    })
    .set_as_python(PythonCall("blockize", {"loop"}, {"preserve_unit_iters"}));
TESSERA_REGISTER_INST_KIND("Tensorize")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.Tensorize(in.at_any(0).cast<ObjectRef>(), attrs.at_any(0).cast<std::string>(),
                    attrs.size() < 2 || attrs.at_any(1).cast<bool>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("tensorize", {"block_or_loop"}, {"tensor_intrin", "preserve_unit_iters"}));

// ---- Schedule methods ------------------------------------------------------------

BlockRV Schedule::Blockize(const LoopRV& loop, bool preserve_unit_iters) const {
  LoopLocation loc = LocateLoop(loop, "blockize");
  const std::string func = get()->loops.at(loop.get()).func;
  std::string name;
  Commit(func, tir::Blockize(FuncOf(func), loc, &name, preserve_unit_iters));
  BlockRV rv = BlockRV::Make();
  self()->blocks[rv.get()] = {func, name};
  Record("Blockize", {loop}, {preserve_unit_iters}, {rv});
  return rv;
}

void Schedule::Tensorize(const ObjectRef& block_or_loop, const std::string& intrin_name,
                         bool preserve_unit_iters) const {
  TensorIntrin intrin = TensorIntrin::Get(intrin_name);
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    BlockLocation loc = LocateBlock(GetRef<BlockRV>(b), "tensorize");
    const std::string func = get()->blocks.at(b).func;
    Commit(func, tir::Tensorize(FuncOf(func), loc, intrin));
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    LoopLocation loc = LocateLoop(l, "tensorize");
    const std::string func = get()->loops.at(l.get()).func;
    std::string name;
    PrimFunc blocked = tir::Blockize(FuncOf(func), loc, &name, preserve_unit_iters);
    auto bloc = FindBlock(blocked, name);
    Commit(func, tir::Tensorize(blocked, *bloc, intrin));
  }
  Record("Tensorize", {block_or_loop}, {intrin_name, preserve_unit_iters}, {});
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Blockize").set_body_typed([](Schedule s, LoopRV l, bool preserve) {
  return s.Blockize(l, preserve);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Tensorize").set_body_typed([](Schedule s, ObjectRef x, std::string name, bool preserve) {
  s.Tensorize(x, name, preserve);
});

}  // namespace tir
}  // namespace tessera
