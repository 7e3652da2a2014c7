// decompose_padding (TVM's): splits a padding block `y[...] = if_then_else(
// in_bounds, value, pad)` at `loop` into a block "<name>_pad_const" that fills
// the whole region with the pad value (a copy of the loops from `loop` down,
// placed before `loop`) and the block itself restricted to the in-bound
// region (its iteration variables re-based to start at 0; loops below `loop`
// that bind one variable directly shrink, the rest get a predicate). Also
// can_decompose_padding. Instruction kind, Schedule method and FFI entries.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "arith/linear_form.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

constexpr const char* kPrim = "decompose_padding";

struct PaddingBlock {
  const BufferStoreNode* store = nullptr;
  PrimExpr in_value, pad_value;
  std::vector<int64_t> lo, hi;  // in-bound range [lo, hi) of each iteration variable
};

bool IsIfThenElse(const PrimExpr& e) {
  const auto* call = e.as<CallNode>();
  if (call == nullptr || call->args.size() != 3) return false;
  const auto* op = call->op.as<OpNode>();
  return op != nullptr && op->name == "tir.if_then_else";
}

bool ReadsBuffers(const PrimExpr& e) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) { found = found || n.as<BufferLoadNode>() != nullptr; });
  return found;
}

// Narrows [lo, hi) of the iteration variable a conjunct `a <op> b` bounds;
// false when the conjunct is not a comparison of one iteration variable
// (coefficient +-1) with a constant.
bool ApplyBound(const PrimExpr& conj, const BlockNode* b, std::vector<int64_t>* lo, std::vector<int64_t>* hi) {
  const auto* bin = conj.as<BinaryOpNode>();
  if (bin == nullptr) return false;
  // Normalize to d = a - b compared with 0 by `kind` (<, <=, >, >=).
  char kind;
  if (conj.as<LTNode>()) {
    kind = '<';
  } else if (conj.as<LENode>()) {
    kind = 'l';
  } else if (conj.as<GTNode>()) {
    kind = '>';
  } else if (conj.as<GENode>()) {
    kind = 'g';
  } else {
    return false;
  }
  std::optional<arith::LinearForm> d = arith::LinearDifference(bin->a, bin->b);
  if (!d || d->terms.size() != 1) return false;
  const auto* v = d->terms[0].first.as<VarNode>();
  const int64_t c = d->terms[0].second;
  if (v == nullptr || (c != 1 && c != -1)) return false;
  size_t k = 0;
  while (k < b->iter_vars.size() && b->iter_vars[k]->var.get() != v) ++k;
  if (k == b->iter_vars.size()) return false;
  const int64_t konst = d->constant;
  // c*v + konst <kind> 0
  if (c == -1) {  // -v + konst <kind> 0  ==  v <mirror kind> konst
    kind = kind == '<' ? '>' : kind == 'l' ? 'g' : kind == '>' ? '<' : 'l';
  }
  const int64_t rhs = c == 1 ? -konst : konst;  // v <kind> rhs
  switch (kind) {
    case '<': (*hi)[k] = std::min((*hi)[k], rhs); break;
    case 'l': (*hi)[k] = std::min((*hi)[k], rhs + 1); break;
    case '>': (*lo)[k] = std::max((*lo)[k], rhs + 1); break;
    default: (*lo)[k] = std::max((*lo)[k], rhs); break;
  }
  return true;
}

PaddingBlock AnalyzePadding(const PrimFunc& f, const BlockLocation& loc) {
  const BlockNode* b = loc.block;
  const std::string name = "block \"" + b->name_hint + "\"";
  auto fail = [&](const std::string& why) { ThrowScheduleError(kPrim, name + " is not a padding block: " + why, f, {b}); };
  if (b->init) fail("it is a reduction");
  if (!b->match_buffers.empty() || !b->alloc_buffers.empty()) fail("it matches or allocates buffers");
  PaddingBlock info;
  info.store = b->body.as<BufferStoreNode>();
  if (info.store == nullptr) fail("its body is not a single buffer store");
  if (!IsIfThenElse(info.store->value)) fail("the stored value is not T.if_then_else(in_bounds, value, pad_value)");
  const auto* call = info.store->value.as<CallNode>();
  PrimExpr cond = call->args[0];
  info.in_value = call->args[1];
  info.pad_value = call->args[2];
  if (ReadsBuffers(info.pad_value)) fail("the pad value reads a buffer");
  if (ReadsBuffers(cond)) fail("the padding condition reads a buffer");
  for (const IterVar& iv : b->iter_vars) {
    if (iv->iter_type != IterVarType::kDataPar) fail("iteration variable " + iv->var->name_hint + " is not spatial");
    const int64_t* mn = AsConstInt(iv->dom->min);
    const int64_t* ext = AsConstInt(iv->dom->extent);
    if (mn == nullptr || ext == nullptr) fail("iteration variable " + iv->var->name_hint + " has a symbolic domain");
    info.lo.push_back(*mn);
    info.hi.push_back(*mn + *ext);
  }
  for (const PrimExpr& conj : SplitConjuncts(cond)) {
    if (!ApplyBound(conj, b, &info.lo, &info.hi)) {
      ThrowScheduleError(kPrim, "the padding condition of " + name +
                                    " must compare single iteration variables with constants",
                         f, {conj.get()});
    }
  }
  bool trivial = true;
  for (size_t k = 0; k < info.lo.size(); ++k) {
    const int64_t* mn = AsConstInt(b->iter_vars[k]->dom->min);
    const int64_t* ext = AsConstInt(b->iter_vars[k]->dom->extent);
    if (info.lo[k] >= info.hi[k]) {
      ThrowScheduleError(kPrim, "the padding condition of " + name + " holds for no value of " +
                                    b->iter_vars[k]->var->name_hint,
                         f, {b});
    }
    trivial = trivial && info.lo[k] == *mn && info.hi[k] == *mn + *ext;
  }
  if (trivial) fail("its padding condition holds on the whole iteration domain");
  return info;
}

// Rewrites loads/stores' indices through the analyzer (x[(v + 3) - 3] -> x[v]).
class IndexSimplifier : public StmtExprMutator {
 public:
  explicit IndexSimplifier(arith::Analyzer* ana) : ana_(ana) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    std::vector<PrimExpr> idx;
    for (const PrimExpr& i : op->indices) idx.push_back(ana_->Simplify(VisitExpr(i)));
    return BufferLoad(op->buffer, Array<PrimExpr>(idx), op->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    std::vector<PrimExpr> idx;
    for (const PrimExpr& i : op->indices) idx.push_back(ana_->Simplify(VisitExpr(i)));
    return BufferStore(op->buffer, VisitExpr(op->value), Array<PrimExpr>(idx), op->span);
  }

 private:
  arith::Analyzer* ana_;
};

Block WithRegions(Block blk) {
  auto regions = InferBlockAccessRegions(blk);
  auto* n = blk.CopyOnWrite();
  n->reads = regions.first;
  n->writes = regions.second;
  return blk;
}

// The loops from `loop` down to the block (outermost first); empty when
// `loop` is not above the block.
std::vector<const ForNode*> PathFrom(const BlockLocation& loc, const ForNode* loop) {
  for (size_t i = 0; i < loc.loops.size(); ++i) {
    if (loc.loops[i] == loop) return std::vector<const ForNode*>(loc.loops.begin() + i, loc.loops.end());
  }
  return {};
}

// Rebuilds the subtree of `loop`: the block realize replaced, shrunk loops
// given their new extents.
class PathRewriter : public StmtExprMutator {
 public:
  PathRewriter(const BlockRealizeNode* realize, Stmt replacement,
               std::unordered_map<const ForNode*, PrimExpr> extents)
      : realize_(realize), replacement_(std::move(replacement)), extents_(std::move(extents)) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    return op == realize_ ? replacement_ : GetRef<Stmt>(op);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto it = extents_.find(op);
    if (it == extents_.end()) return s;
    For f = Downcast<For>(s);
    f.CopyOnWrite()->extent = it->second;
    return f;
  }

 private:
  const BlockRealizeNode* realize_;
  Stmt replacement_;
  std::unordered_map<const ForNode*, PrimExpr> extents_;
};

// Checks (and with `apply` performs) the decomposition; returns the const block.
std::optional<BlockRV> DecomposePadding(const Schedule& sch, const BlockRV& block_rv, const LoopRV& loop_rv,
                                        bool apply) {
  BlockLocation loc = sch.LocateBlock(block_rv, kPrim);
  LoopLocation lloc = sch.LocateLoop(loop_rv, kPrim);
  const std::string func = sch->blocks.at(block_rv.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  std::vector<const ForNode*> path = PathFrom(loc, lloc.loop);
  if (path.empty() || sch.LoopEntryOf(loop_rv, kPrim).func != func) {
    ThrowScheduleError(kPrim, "loop " + lloc.loop->loop_var->name_hint + " is not an ancestor of block \"" +
                                  b->name_hint + "\"",
                       f, {lloc.loop});
  }
  PaddingBlock info = AnalyzePadding(f, loc);
  const std::string const_name = b->name_hint + "_pad_const";
  int taken = 0;
  sch.IndexOf(func)->FindBlock(const_name, &taken);
  if (taken > 0) ThrowScheduleError(kPrim, "the block name \"" + const_name + "\" is taken", f, {b});
  if (!apply) return std::nullopt;

  const BlockRealizeNode* realize = loc.realize;
  const size_t n = b->iter_vars.size();
  // Bindings are simplified over the ranges of the loops above `loop` (a unit
  // loop there binds 0), as TVM's; `ana` knows every loop, for the predicate.
  arith::Analyzer ana, outer;
  for (const ForNode* l : loc.loops) {
    ana.Bind(l->loop_var, Range::FromMinExtent(l->min, l->extent));
    if (l == path.front()) break;
  }
  for (const ForNode* l : loc.loops) {
    if (l == path.front()) break;
    outer.Bind(l->loop_var, Range::FromMinExtent(l->min, l->extent));
  }
  for (const ForNode* l : path) ana.Bind(l->loop_var, Range::FromMinExtent(l->min, l->extent));
  // ---- the constant-filling nest: fresh copies of the path loops and of the block's variables.
  std::unordered_map<const VarNode*, PrimExpr> loop_copy;
  std::vector<Var> new_loop_vars;
  for (const ForNode* l : path) {
    Var v(l->loop_var->name_hint, l->loop_var->dtype);
    loop_copy[l->loop_var.get()] = v;
    new_loop_vars.push_back(v);
  }
  auto subst_loops = [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = loop_copy.find(v.get());
    return it == loop_copy.end() ? std::nullopt : std::optional<PrimExpr>(it->second);
  };
  std::vector<IterVar> const_ivs;
  std::unordered_map<const VarNode*, PrimExpr> iv_copy;
  std::vector<PrimExpr> const_values;
  for (size_t k = 0; k < n; ++k) {
    const IterVar& iv = b->iter_vars[k];
    Var v(iv->var->name_hint, iv->var->dtype);
    iv_copy[iv->var.get()] = v;
    const_ivs.push_back(IterVar(iv->dom, v, iv->iter_type, iv->thread_tag));
    const_values.push_back(outer.Simplify(Substitute(realize->iter_values[k], subst_loops)));
  }
  auto subst_ivs = [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = iv_copy.find(v.get());
    return it == iv_copy.end() ? std::nullopt : std::optional<PrimExpr>(it->second);
  };
  std::vector<PrimExpr> const_idx;
  for (const PrimExpr& i : info.store->indices) const_idx.push_back(Substitute(i, subst_ivs));
  Block const_block(Array<IterVar>(const_ivs), {}, {}, const_name,
                    BufferStore(info.store->buffer, Substitute(info.pad_value, subst_ivs), Array<PrimExpr>(const_idx)));
  const_block = WithRegions(const_block);
  Stmt const_nest = BlockRealize(Array<PrimExpr>(const_values), Substitute(realize->predicate, subst_loops), const_block);
  for (size_t i = path.size(); i-- > 0;) {
    For l = GetRef<For>(path[i]);
    auto* ln = l.CopyOnWrite();
    ln->loop_var = new_loop_vars[i];
    // An inner loop's range may use an outer loop of the path (after
    // compute_at): it refers to that loop's copy. (TVM keeps the original
    // variable, then out of scope.)
    ln->min = Substitute(ln->min, subst_loops);
    ln->extent = Substitute(ln->extent, subst_loops);
    ln->body = const_nest;
    const_nest = l;
  }

  // ---- the in-bound block.
  // Loops of the path whose subtree holds only this block can shrink.
  std::unordered_set<const ForNode*> exclusive;
  for (const ForNode* l : path) {
    int blocks = 0;
    PostOrderVisitBlockRealizes(GetRef<Stmt>(l), [&](const BlockRealizeNode*) { ++blocks; });
    if (blocks == 1) exclusive.insert(l);
  }
  auto uses = [&](const VarNode* var, size_t except) {
    int count = UsesVar(realize->predicate, var) ? 1 : 0;
    for (size_t j = 0; j < n; ++j) {
      if (j != except && UsesVar(realize->iter_values[j], var)) ++count;
    }
    return count;
  };
  std::unordered_map<const ForNode*, PrimExpr> new_extents;
  std::vector<IterVar> ivs;
  std::vector<PrimExpr> values;
  std::vector<PrimExpr> conds;
  std::unordered_map<const VarNode*, PrimExpr> rebase;
  for (size_t k = 0; k < n; ++k) {
    const IterVar& iv = b->iter_vars[k];
    const DataType t = iv->var->dtype;
    const int64_t mn = *AsConstInt(iv->dom->min), ext = *AsConstInt(iv->dom->extent);
    const int64_t lo = info.lo[k], hi = info.hi[k];
    const PrimExpr binding = outer.Simplify(realize->iter_values[k]);
    Var nv(iv->var->name_hint, t);
    ivs.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), IntImm(t, hi - lo)), nv, iv->iter_type, iv->thread_tag));
    rebase[iv->var.get()] = lo == 0 ? PrimExpr(nv) : add(nv, IntImm(t, lo));
    if (lo == mn && hi == mn + ext) {  // unconstrained: same range, re-based
      values.push_back(lo == 0 ? binding : sub(binding, IntImm(t, lo)));
      continue;
    }
    const ForNode* shrink = nullptr;
    if (const auto* bv = binding.as<VarNode>()) {
      for (const ForNode* l : path) {
        if (l->loop_var.get() == bv && exclusive.count(l) && IsConstInt(l->min, 0) && IsConstInt(l->extent, ext) &&
            mn == 0 && uses(bv, k) == 0) {
          shrink = l;
        }
      }
    }
    if (shrink != nullptr) {
      new_extents[shrink] = IntImm(shrink->extent.dtype(), hi - lo);
      values.push_back(binding);
      continue;
    }
    values.push_back(lo == 0 ? binding : sub(binding, IntImm(t, lo)));
    PrimExpr lower = LE(IntImm(t, lo), binding), upper = LT(binding, IntImm(t, hi));
    if (!ana.CanProve(lower)) conds.push_back(lower);
    if (!ana.CanProve(upper)) conds.push_back(upper);
  }
  if (!IsConstInt(realize->predicate, 1)) {
    for (const PrimExpr& c : SplitConjuncts(realize->predicate)) conds.push_back(c);
  }
  PrimExpr predicate = IntImm(DataType::Bool(), 1);
  for (size_t i = 0; i < conds.size(); ++i) predicate = i == 0 ? conds[i] : And(predicate, conds[i]);
  auto subst_rebase = [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = rebase.find(v.get());
    return it == rebase.end() ? std::nullopt : std::optional<PrimExpr>(it->second);
  };
  std::vector<PrimExpr> idx;
  for (const PrimExpr& i : info.store->indices) idx.push_back(Substitute(i, subst_rebase));
  Stmt body = BufferStore(info.store->buffer, Substitute(info.in_value, subst_rebase), Array<PrimExpr>(idx));
  body = IndexSimplifier(&ana).VisitStmt(body);
  Block nb = GetRef<Block>(b);
  {
    auto* bn = nb.CopyOnWrite();
    bn->iter_vars = Array<IterVar>(ivs);
    bn->body = body;
  }
  nb = WithRegions(nb);
  Stmt new_realize = BlockRealize(Array<PrimExpr>(values), predicate, nb, realize->span);
  Stmt new_loop = PathRewriter(realize, new_realize, new_extents).VisitStmt(GetRef<Stmt>(lloc.loop));
  sch.Commit(func, ReplaceInFunc(f, lloc.loop, SeqStmt::Flatten({const_nest, new_loop})));
  BlockRV rv = BlockRV::Make();
  sch.self()->blocks[rv.get()] = {func, const_name};
  sch.Record("DecomposePadding", {block_rv, loop_rv}, {}, {rv});
  return rv;
}

}  // namespace

TESSERA_REGISTER_INST_KIND("DecomposePadding")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return Array<Any>{*DecomposePadding(sch, in.at_any(0).cast<BlockRV>(), in.at_any(1).cast<LoopRV>(), true)};
    })
    .set_as_python(PythonCall("decompose_padding", {"block", "loop"}, {}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.DecomposePadding").set_body_typed([](Schedule s, BlockRV b, LoopRV l) {
  return *DecomposePadding(s, b, l, true);
});

// Whether decompose_padding(block, loop) would succeed (TVM's
// can_decompose_padding); the schedule is not changed.
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CanDecomposePadding")
    .set_body_typed([](Schedule s, BlockRV b, LoopRV l) {
      try {
        DecomposePadding(s, b, l, false);
      } catch (const Error& e) {
        if (e.kind() != "ScheduleError") throw;
        return false;
      }
      return true;
    });

}  // namespace tir
}  // namespace tessera
