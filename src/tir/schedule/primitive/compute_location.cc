// compute_at and reverse_compute_at: move a block into another loop nest,
// computing exactly the region needed there (see primitives.h), followed
// by their schedule instruction kinds, Schedule methods (resolve the
// handles, commit, record) and tir.schedule.* FFI entries.
#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "arith/linear_form.h"
#include "arith/region_bound.h"
#include "ir/structural_equal.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/primitive/compute_location_candidates.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

class NodeRemover : public StmtExprMutator {
 public:
  explicit NodeRemover(const Object* target) : target_(target) {}
  Stmt VisitStmt(const Stmt& s) override {
    if (s.get() == target_) return Evaluate(IntImm(DataType::Int(32), 0));
    return StmtFunctor::VisitStmt(s);
  }
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> kept;
    for (Stmt s : op->seq) {
      if (s.get() == target_) continue;
      kept.push_back(VisitStmt(s));
    }
    if (kept.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
    return SeqStmt::Flatten(kept);
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }

 private:
  const Object* target_;
};

// The buffers a block writes / reads, its nested blocks' included: an
// opaque block may declare no regions although blocks inside it access
// buffers (loop_partition's "_common" / "_partition" blocks, as in TVM), so
// its declared regions alone cannot be trusted for dependences.
bool Accesses(const BlockNode* b, const Buffer& buf, bool reads) {
  auto declares = [&](const BlockNode* x) {
    for (BufferRegion r : reads ? x->reads : x->writes)
      if (r->buffer.same_as(buf)) return true;
    return false;
  };
  if (declares(b)) return true;
  bool hit = false;
  PostOrderVisitBlockRealizes(b->body, [&](const BlockRealizeNode* r) { hit = hit || declares(r->block.get()); });
  return hit;
}
bool Writes(const BlockNode* b, const Buffer& buf) { return Accesses(b, buf, /*reads=*/false); }
bool Reads(const BlockNode* b, const Buffer& buf) { return Accesses(b, buf, /*reads=*/true); }

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
  return out;
}

// Region (per dimension, as IntSets over the loops above `loop` inclusive of
// nothing below) that `regions` of blocks under `loop` cover, with the loops
// strictly inside `loop` relaxed.
// With `guard` given (reverse_compute_at: the region a producer writes must
// not be over-approximated, or the moved consumer would read what is not yet
// written or reduce a point twice), each user's block predicate bounds its
// region as TVM's EstimateRegionUpperBound: loops of extent 1 below `loop`
// are replaced by their start, the clauses over relaxed loops bound the
// region through the iterator map, and the clauses left over loops at or
// above `loop` say when the user writes nothing at all: they are returned
// in `*guard` (true when there are none), for the moved block's predicate.
std::vector<arith::IntSet> RelaxedRegion(const std::string& prim, const PrimFunc& func, const ForNode* loop, const Buffer& buffer,
                                         bool want_reads, arith::Analyzer* ana, std::vector<std::string>* users,
                                         PrimExpr* guard = nullptr) {
  std::vector<arith::IntSet> result;
  std::vector<std::vector<arith::IntSet>> per_user;
  std::vector<PrimExpr> user_guards;
  for (const BlockLocation& loc : CollectBlocks(func)) {
    // Only blocks nested inside `loop`.
    size_t pos = loc.loops.size();
    for (size_t i = 0; i < loc.loops.size(); ++i)
      if (loc.loops[i] == loop) pos = i;
    if (pos == loc.loops.size()) continue;
    const Array<BufferRegion>& regions = want_reads ? loc.block->reads : loc.block->writes;
    bool declared = false;
    for (BufferRegion r : regions) declared = declared || r->buffer.same_as(buffer);
    if (!declared && Accesses(loc.block, buffer, want_reads)) {
      ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" under loop " + loop->loop_var->name_hint +
                                   " holds blocks that " + (want_reads ? "read " : "write ") + buffer->name +
                                   " but does not declare the region they access",
                         func, {loc.block});
    }
    std::unordered_map<const Object*, arith::IntSet> dom;
    // Threads that share the buffer's storage also cover the region: loops
    // bound to them are relaxed too (threadIdx for "shared", every thread
    // axis for "global").
    const std::string& scope = buffer->scope;
    for (size_t i = 0; i <= pos; ++i) {
      const ForNode* l = loc.loops[i];
      if (l->kind != ForKind::kThreadBinding || !l->thread_binding) continue;
      const std::string& tag = (*l->thread_binding)->thread_tag;
      bool relax = (scope == "global") || (scope == "shared" && (tag.rfind("threadIdx", 0) == 0 ||
                                                                   tag.rfind("vthread", 0) == 0));
      if (relax) dom[l->loop_var.get()] = arith::IntSet::FromMinExtent(l->min, l->extent);
    }
    for (size_t i = pos + 1; i < loc.loops.size(); ++i) {
      dom[loc.loops[i]->loop_var.get()] = arith::IntSet::FromMinExtent(loc.loops[i]->min, loc.loops[i]->extent);
    }
    Map<Var, PrimExpr> bind;
    for (size_t k = 0; k < loc.block->iter_vars.size(); ++k) bind.Set(loc.block->iter_vars[k]->var, loc.realize->iter_values[k]);
    PrimExpr inner_pred, user_guard = IntImm(DataType::Bool(), 1);
    Map<Var, Range> var_dom;
    if (guard != nullptr && !IsConstInt(loc.realize->predicate, 1)) {
      Map<Var, PrimExpr> unit;
      for (size_t i = pos + 1; i < loc.loops.size(); ++i) {
        const ForNode* l = loc.loops[i];
        if (IsConstInt(l->extent, 1)) {
          unit.Set(l->loop_var, l->min);
          dom.erase(l->loop_var.get());
        }
      }
      for (const auto& [v, set] : dom) {
        var_dom.Set(GetRef<Var>(static_cast<const VarNode*>(v)), Range::FromMinExtent(set.min(), ana->Simplify(sub(add(set.max(), IntImm(set.max().dtype(), 1)), set.min()))));
      }
      Map<Var, PrimExpr> substituted;
      for (const auto& [v, e] : bind.items()) substituted.Set(v, Substitute(e, unit));
      bind = substituted;
      for (const PrimExpr& c : SplitConjuncts(ana->Simplify(Substitute(loc.realize->predicate, unit)))) {
        if (IsConstInt(c, 1)) continue;
        bool relaxed = false;
        PostOrderVisit(c, [&](const ObjectRef& x) { relaxed = relaxed || (x.as<VarNode>() && dom.count(x.get())); });
        if (relaxed) {
          inner_pred = inner_pred.defined() ? logical_and(inner_pred, c) : c;
        } else {
          user_guard = IsConstInt(user_guard, 1) ? c : logical_and(user_guard, c);
        }
      }
    }
    for (BufferRegion r : regions) {
      if (!r->buffer.same_as(buffer)) continue;
      users->push_back(loc.block->name_hint);
      user_guards.push_back(user_guard);
      std::vector<arith::IntSet> sets;
      for (Range rg : r->region) {
        PrimExpr lo = Substitute(rg->min, bind);
        PrimExpr hi = Substitute(add(rg->min, sub(rg->extent, IntImm(rg->extent.dtype(), 1))), bind);
        arith::IntSet a = arith::EvalSet(lo, dom, ana), b = arith::EvalSet(hi, dom, ana);
        sets.push_back(arith::Union({a, b}, ana));
      }
      if (inner_pred.defined()) {
        std::vector<Range> bound;
        for (Range rg : r->region) bound.push_back(Range::FromMinExtent(Substitute(rg->min, bind), Substitute(rg->extent, bind)));
        std::vector<arith::IntSet> under = arith::EstimateRegionUpperBound(Array<Range>(bound), var_dom, inner_pred, ana);
        // The bound under the predicate replaces the plain one only where
        // the predicate cuts more than the buffer's end does: a split's tail
        // cut off past the end leaves TVM's region (the moved block's own
        // bound keeps it inside), with its constant loop extents.
        PrimExpr inside;
        for (size_t d = 0; d < bound.size() && d < buffer->shape.size(); ++d) {
          PrimExpr last = add(bound[d]->min, sub(bound[d]->extent, IntImm(bound[d]->extent.dtype(), 1)));
          PrimExpr shape = buffer->shape[d];
          if (shape.dtype() != last.dtype()) shape = cast(last.dtype(), shape);
          bool relaxed = false;
          PostOrderVisit(last, [&](const ObjectRef& x) { relaxed = relaxed || (x.as<VarNode>() && dom.count(x.get())); });
          if (relaxed) inside = inside.defined() ? logical_and(inside, less(last, shape)) : less(last, shape);
        }
        std::vector<arith::IntSet> cut;
        if (inside.defined()) cut = arith::EstimateRegionUpperBound(Array<Range>(bound), var_dom, inside, ana);
        for (size_t d = 0; d < sets.size() && d < under.size(); ++d) {
          const arith::IntSet& u = under[d];
          if (!u.HasLowerBound() || !u.HasUpperBound()) continue;
          bool same = d < cut.size() && cut[d].HasLowerBound() && cut[d].HasUpperBound() &&
                      StructuralEqual(ana->Simplify(u.min()), ana->Simplify(cut[d].min())) &&
                      StructuralEqual(ana->Simplify(u.max()), ana->Simplify(cut[d].max()));
          if (!same) sets[d] = u;
        }
      }
      per_user.push_back(sets);
    }
  }
  if (per_user.empty()) return result;
  if (guard != nullptr) {
    // Several users, one of which writes nothing on some iterations: the
    // union of their regions has no single guard.
    for (const PrimExpr& g : user_guards) {
      if (!StructuralEqual(g, user_guards[0])) {
        ThrowScheduleError(prim, "the blocks under loop " + loop->loop_var->name_hint + " that " +
                                     (want_reads ? "read " : "write ") + buffer->name +
                                     " (" + Join(*users) + ") are guarded by different predicates over the loops at or above it; "
                                     "their region at the loop cannot be expressed",
                           func, {loop});
      }
    }
    *guard = user_guards[0];
  }
  for (size_t d = 0; d < per_user[0].size(); ++d) {
    std::vector<arith::IntSet> dim;
    for (auto& u : per_user) dim.push_back(u[d]);
    result.push_back(arith::Union(Array<arith::IntSet>(dim), ana));
  }
  return result;
}

// The ranges of `block`'s iteration variables that make its point accesses
// `indices` cover `region`, through their quasi-affine structure (as TVM's
// UpdateBlockVarDomainAffine): each index is a split (digit) of an
// iterator; a variable's range is assembled from its digits' ranges (digits
// it has no constraint on range fully), and a fused iterator's range is
// split back onto the iterators it fuses. False when the structure is not
// recognised.
struct Digit {
  int64_t lower = 1, extent = 1;
  PrimExpr lo, hi;
};

// `*exact` becomes false where the assembled range holds values outside
// the region (a digit narrowed below a higher digit that still varies, as
// `v % 12` fixed while v runs over 192: every twelfth value, not a range).
bool SolveAffine(const BlockNode* block, const std::vector<PrimExpr>& indices, const std::vector<arith::IntSet>& region,
                 arith::Analyzer* ana, std::vector<PrimExpr>* var_lo, std::vector<PrimExpr>* var_hi, bool* exact) {
  // Digits (ascending) cover a range only if every digit above a narrowed
  // one is a single value.
  bool narrowed = false;
  auto visit_digit = [&](const PrimExpr& lo, const PrimExpr& hi, int64_t extent) {
    bool point = ana->CanProveEqual(lo, hi);
    if (narrowed && !point) *exact = false;
    bool full = ana->CanProve(less_equal(lo, IntImm(lo.dtype(), 0))) &&
                ana->CanProve(greater_equal(hi, IntImm(hi.dtype(), extent - 1)));
    if (!full) narrowed = true;
  };
  Map<Var, Range> doms;
  for (IterVar iv : block->iter_vars) {
    if (!IsConstInt(iv->dom->min, 0)) return false;
    doms.Set(iv->var, iv->dom);
  }
  arith::IterMapResult res = arith::DetectIterMap(Array<PrimExpr>(indices), doms, IntImm(DataType::Bool(), 1),
                                                  arith::IterMapLevel::kNoCheck, ana);
  if (res->indices.size() != indices.size()) return false;
  std::vector<const arith::IterMarkNode*> order;  // marks in the order first met
  std::unordered_map<const arith::IterMarkNode*, std::vector<Digit>> digits;
  auto add_digit = [&](const arith::IterSplitExprNode* split, PrimExpr lo, PrimExpr hi) -> bool {
    const int64_t* lower = AsConstInt(split->lower_factor);
    const int64_t* extent = AsConstInt(split->extent);
    if (!lower || !extent || *lower <= 0 || *extent <= 0) return false;
    DataType t = lo.dtype();
    // A digit lies in [0, extent): clip what the region allows to that.
    if (!ana->CanProve(greater_equal(lo, IntImm(t, 0)))) lo = ana->Simplify(max(lo, IntImm(t, 0)));
    if (!ana->CanProve(less(hi, IntImm(t, *extent)))) hi = ana->Simplify(min(hi, IntImm(t, *extent - 1)));
    const arith::IterMarkNode* mark = split->source.get();
    if (!digits.count(mark)) order.push_back(mark);
    digits[mark].push_back(Digit{*lower, *extent, lo, hi});
    return true;
  };
  for (size_t d = 0; d < indices.size(); ++d) {
    const arith::IterSumExprNode* sum = res->indices[d].get();
    if (sum->args.empty()) continue;  // a constant index
    if (sum->args.size() != 1 || !IsConstInt(sum->args[0]->scale, 1)) return false;
    if (!region[d].HasLowerBound() || !region[d].HasUpperBound()) return false;
    PrimExpr lo = ana->Simplify(sub(region[d].min(), sum->base)), hi = ana->Simplify(sub(region[d].max(), sum->base));
    if (!add_digit(sum->args[0].get(), lo, hi)) return false;
  }
  for (size_t m = 0; m < order.size(); ++m) {  // grows as fused iterators are split back
    const arith::IterMarkNode* mark = order[m];
    const int64_t* ext = AsConstInt(mark->extent);
    if (!ext) return false;
    std::vector<Digit>& ds = digits[mark];
    std::sort(ds.begin(), ds.end(), [](const Digit& a, const Digit& b) { return a.lower < b.lower; });
    DataType t = ds[0].lo.dtype();
    int64_t covered = 1;
    PrimExpr lo = IntImm(t, 0), hi = IntImm(t, 0);
    narrowed = false;
    for (const Digit& dg : ds) {
      if (covered >= *ext) break;      // higher digits are 0
      if (dg.lower < covered) return false;  // overlapping digits
      if (dg.lower > covered) {  // free digits in between
        hi = add(hi, IntImm(t, dg.lower - covered));
        visit_digit(IntImm(t, 0), IntImm(t, dg.lower / covered - 1), dg.lower / covered);
      }
      lo = add(lo, mul(dg.lo, IntImm(t, dg.lower)));
      hi = add(hi, mul(dg.hi, IntImm(t, dg.lower)));
      visit_digit(dg.lo, dg.hi, dg.extent);
      covered = dg.lower * dg.extent;
    }
    if (covered < *ext) {
      int64_t top = (*ext + covered - 1) / covered;
      hi = add(hi, IntImm(t, top * covered - covered));
      visit_digit(IntImm(t, 0), IntImm(t, top - 1), top);
    }
    lo = ana->Simplify(lo);
    hi = ana->Simplify(hi);
    if (const auto* v = mark->source.as<VarNode>()) {
      for (size_t k = 0; k < block->iter_vars.size(); ++k) {
        if (block->iter_vars[k]->var.get() != v) continue;
        (*var_lo)[k] = lo;
        (*var_hi)[k] = hi;
      }
      continue;
    }
    const auto* fused = mark->source.as<arith::IterSumExprNode>();
    if (!fused) return false;
    Var f("fused", t);
    std::unordered_map<const Object*, arith::IntSet> dom{{f.get(), arith::IntSet::Interval(lo, hi)}};
    // Split back digit by digit: their box holds the range, exactly when
    // the digits, lowest first, cover it as a range would.
    std::vector<std::tuple<int64_t, PrimExpr, PrimExpr, int64_t>> box;
    for (const arith::IterSplitExpr& arg : fused->args) {
      const int64_t* scale = AsConstInt(arg->scale);
      if (!scale || *scale <= 0) return false;
      PrimExpr digit = floormod(floordiv(sub(f, fused->base), IntImm(t, *scale)), arg->extent);
      arith::IntSet set = arith::EvalSet(digit, dom, ana);
      if (!set.HasLowerBound() || !set.HasUpperBound()) return false;
      PrimExpr dlo = ana->Simplify(set.min()), dhi = ana->Simplify(set.max());
      const int64_t* dext = AsConstInt(arg->extent);
      if (!dext) return false;
      box.emplace_back(*scale, dlo, dhi, *dext);
      if (!add_digit(arg.get(), dlo, dhi)) return false;
    }
    std::sort(box.begin(), box.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    narrowed = false;
    for (const auto& [scale, dlo, dhi, dext] : box) visit_digit(dlo, dhi, dext);
  }
  return true;
}

// The largest value of `extent`, an expression of the loops above (bound in
// `ana`), found by evaluating it at every point of those loops when they
// span at most kMaxExtentPoints points; nothing otherwise.
constexpr int64_t kMaxExtentPoints = 4096;
std::optional<int64_t> LargestExtent(const PrimExpr& extent, arith::Analyzer* ana) {
  std::vector<Var> vars;
  std::unordered_set<const VarNode*> seen;
  PostOrderVisit(extent, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>(); v != nullptr && seen.insert(v).second) vars.push_back(GetRef<Var>(v));
  });
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int64_t points = 1;
  for (const Var& v : vars) {
    arith::ConstIntBound b = ana->const_int_bound(v);
    if (b->min_value == arith::ConstIntBound::kNegInf || b->max_value == arith::ConstIntBound::kPosInf) return {};
    points *= b->max_value - b->min_value + 1;
    if (points > kMaxExtentPoints) return {};
    ranges.emplace_back(b->min_value, b->max_value);
  }
  std::optional<int64_t> best;
  std::vector<int64_t> at(vars.size());
  for (size_t i = 0; i < vars.size(); ++i) at[i] = ranges[i].first;
  for (int64_t n = 0; n < points; ++n) {
    Map<Var, PrimExpr> point;
    for (size_t i = 0; i < vars.size(); ++i) point.Set(vars[i], IntImm(vars[i].dtype(), at[i]));
    const PrimExpr simplified = ana->Simplify(Substitute(extent, point));
    const int64_t* value = AsConstInt(simplified);
    if (value == nullptr) return {};
    best = best ? std::max(*best, *value) : *value;
    for (size_t i = 0; i < vars.size(); ++i) {  // the next point
      if (++at[i] <= ranges[i].second) break;
      at[i] = ranges[i].first;
    }
  }
  return best;
}

// Rebuilds `block`'s realize so that its iteration variables cover `region`
// (per written/read buffer dimension) with fresh loops ax0, ax1, ...
Stmt MakeNestForRegion(const std::string& primitive, const PrimFunc& func, const BlockLocation& loc,
                       const BufferRegion& access, const std::vector<arith::IntSet>& region,
                       bool preserve_unit_loops, arith::Analyzer* ana,
                       const PrimExpr& guard = IntImm(DataType::Bool(), 1)) {
  const BlockNode* block = loc.block;
  std::vector<PrimExpr> var_lo(block->iter_vars.size()), var_hi(block->iter_vars.size());
  // Dimension by dimension first: an index `v + k` (a point), `k - v` (a
  // point, reversed) or `v * c + k` over a tile of extent c; v's range is
  // solved from the region needed.
  auto dimwise = [&]() -> bool {
    for (size_t d = 0; d < access->region.size(); ++d) {
      Range r = access->region[d];
      if (IsConstInt(r->extent, 1) && AsConstInt(r->min)) continue;  // constant index: nothing to bind
      const VarNode* v = nullptr;
      int64_t coeff = 0, offset = 0;
      if (auto form = arith::ToLinearForm(r->min); form && form->terms.size() == 1) {
        v = form->terms[0].first.as<VarNode>();
        coeff = form->terms[0].second;
        offset = form->constant;
      }
      bool is_iter = false;
      for (size_t k = 0; k < block->iter_vars.size(); ++k) is_iter = is_iter || block->iter_vars[k]->var.get() == v;
      bool point = IsConstInt(r->extent, 1) && (coeff == 1 || coeff == -1);
      bool tile = coeff > 1 && IsConstInt(r->extent, coeff);
      if (!is_iter || !(point || tile)) return false;
      for (size_t k = 0; k < block->iter_vars.size(); ++k) {
        if (block->iter_vars[k]->var.get() != v) continue;
        if (!region[d].HasLowerBound() || !region[d].HasUpperBound()) {
          ThrowScheduleError(primitive, "cannot bound the region of " + access->buffer->name + " needed at the target loop",
                             func);
        }
        PrimExpr lo = region[d].min(), hi = region[d].max();
        DataType t = lo.dtype();
        // As TVM, the region clipped to the buffer's extent replaces it when
        // that is provably smaller (a static bound; a symbolic clip is not taken).
        if (d < access->buffer->shape.size()) {
          PrimExpr last = sub(access->buffer->shape[d], IntImm(access->buffer->shape[d].dtype(), 1));
          if (last.dtype() != t) last = cast(t, last);
          PrimExpr clo = ana->Simplify(max(lo, IntImm(t, 0))), chi = ana->Simplify(min(hi, last));
          if (ana->CanProve(less(sub(chi, clo), sub(hi, lo)))) {
            lo = clo;
            hi = chi;
          }
        }
        PrimExpr vlo, vhi;
        if (coeff == 1) {
          vlo = sub(lo, IntImm(t, offset));
          vhi = sub(hi, IntImm(t, offset));
        } else if (coeff == -1) {
          vlo = sub(IntImm(t, offset), hi);
          vhi = sub(IntImm(t, offset), lo);
        } else {
          vlo = floordiv(sub(lo, IntImm(t, offset)), IntImm(t, coeff));
          vhi = floordiv(sub(hi, IntImm(t, offset)), IntImm(t, coeff));
        }
        var_lo[k] = vlo;
        var_hi[k] = vhi;
      }
    }
    return true;
  };
  if (!dimwise()) {
    // Then, as TVM, point accesses through floordiv/floormod/fused indices.
    std::fill(var_lo.begin(), var_lo.end(), PrimExpr());
    std::fill(var_hi.begin(), var_hi.end(), PrimExpr());
    std::vector<PrimExpr> indices;
    bool points = true;
    for (Range r : access->region) {
      points = points && IsConstInt(r->extent, 1);
      indices.push_back(r->min);
    }
    bool exact = true;
    if (!points || !SolveAffine(block, indices, region, ana, &var_lo, &var_hi, &exact)) {
      ThrowScheduleError(primitive, "block \"" + block->name_hint + "\" accesses " + access->buffer->name +
                                        " with an index that is not an iteration variable (shifted, reversed or "
                                        "tiled) or a quasi-affine point access of them; only such blocks can be moved",
                         func, {block});
    }
    // compute_at may recompute more of its producer than is read; a moved
    // consumer iterating beyond what the loop produced would read what is
    // not yet written, or reduce a point twice.
    if (!exact && primitive == "reverse_compute_at") {
      ThrowScheduleError(primitive, "block \"" + block->name_hint + "\" reads " + access->buffer->name +
                                        " through floordiv/floormod indices whose values at the loop are not a range "
                                        "of its iteration variables (a lower digit fixed while a higher one varies)",
                         func, {block});
    }
  }
  std::vector<PrimExpr> mins(block->iter_vars.size()), extents(block->iter_vars.size());
  std::vector<bool> assigned(block->iter_vars.size(), false);
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    if (!var_lo[k].defined()) continue;
    PrimExpr lo = var_lo[k], hi = var_hi[k];
    mins[k] = ana->Simplify(lo);
    extents[k] = ana->Simplify(add(sub(hi, lo), IntImm(lo.dtype(), 1)));
    assigned[k] = true;
  }
  std::vector<PrimExpr> values;
  std::vector<std::pair<Var, PrimExpr>> new_loops;
  PrimExpr pred = guard;  // when the region is there at all (see RelaxedRegion)
  int counter = 0;
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    IterVar iv = block->iter_vars[k];
    PrimExpr mn = assigned[k] ? mins[k] : iv->dom->min;
    PrimExpr ext = assigned[k] ? extents[k] : iv->dom->extent;
    if (mn.dtype() != iv->var.dtype()) mn = cast(iv->var.dtype(), mn);
    if (ext.dtype() != iv->var.dtype()) ext = cast(iv->var.dtype(), ext);
    PrimExpr value;
    if (IsConstInt(ext, 1) && !preserve_unit_loops) {
      value = mn;
    } else {
      // As TVM: the binding is `min + ax` (constants folded, not simplified).
      Var ax("ax" + std::to_string(counter++), iv->var.dtype());
      // An extent varying with the loops above (a tile of tiles that crosses
      // a row boundary reads one row more) becomes its largest value, with
      // `ax < extent` in the predicate: the same iterations under a static
      // loop, which the tuner's DisallowDynamicLoop requires (TVM keeps the
      // varying extent, and its tuner rejects the schedule).
      PrimExpr loop_ext = ext;
      std::optional<int64_t> largest;
      if (AsConstInt(ext) == nullptr && (largest = LargestExtent(ext, ana)) && *largest >= 1) {
        loop_ext = IntImm(ext.dtype(), *largest);
        pred = logical_and(pred, less(ax, ext));
      }
      new_loops.emplace_back(ax, loop_ext);
      ana->Bind(ax, Range::FromMinExtent(IntImm(ax.dtype(), 0), loop_ext));
      value = add(mn, ax);
    }
    values.push_back(value);
    // Keep the iteration inside the block's domain: each bound that is not
    // provable becomes a conjunct of the predicate (lower, then upper).
    PrimExpr lo = iv->dom->min, hi = add(iv->dom->min, iv->dom->extent);
    if (!ana->CanProve(greater_equal(value, lo))) pred = logical_and(pred, greater_equal(value, lo));
    if (!ana->CanProve(less(value, hi))) pred = logical_and(pred, less(value, hi));
  }
  Stmt body = BlockRealize(Array<PrimExpr>(values), ana->Simplify(pred), GetRef<Block>(block));
  for (size_t i = new_loops.size(); i-- > 0;) {
    body = For(new_loops[i].first, IntImm(new_loops[i].first.dtype(), 0), new_loops[i].second, ForKind::kSerial, body);
  }
  return body;
}

// TVM's "complete block" requirement: the block is the only writer, in its
// scope, of the buffers it writes (so moving it cannot reorder two writes).
void CheckOnlyWriter(const std::string& prim, const PrimFunc& func, const BlockLocation& loc) {
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.scope != loc.scope || other.block == loc.block) continue;
    for (BufferRegion w : loc.block->writes) {
      if (Writes(other.block, w->buffer)) {
        ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" is not a complete block: block \"" +
                                     other.block->name_hint + "\" also writes " + w->buffer->name +
                                     "; a block must be the only writer of its buffers to be moved",
                           func, {other.block});
      }
    }
  }
}

bool IsAncestor(const LoopLocation& loop, const BlockLocation& block) {
  for (const ForNode* l : block.loops)
    if (l == loop.loop) return true;
  return false;
}

void BindLoopsAbove(const LoopLocation& loop, arith::Analyzer* ana) {
  for (const ForNode* a : loop.ancestors) ana->Bind(a->loop_var, Range::FromMinExtent(a->min, a->extent));
  ana->Bind(loop.loop->loop_var, Range::FromMinExtent(loop.loop->min, loop.loop->extent));
}

// Inserts `nest` (computing `block`) into the loop body at `index`: the
// legal positions lie after every statement producing what the block reads
// and before every statement consuming what it writes; -1 is the last legal
// position, -2 the first, as in TVM.
Stmt InsertIntoLoop(const std::string& prim, const PrimFunc& func, const ForNode* loop, const Stmt& nest,
                    const BlockNode* block, int index) {
  std::vector<Stmt> items;
  if (const auto* seq = loop->body.as<SeqStmtNode>()) {
    for (Stmt s : seq->seq) items.push_back(s);
  } else {
    items.push_back(loop->body);
  }
  auto contains = [&](const Stmt& s, bool producer) {
    bool hit = false;
    PostOrderVisitBlockRealizes(s, [&](const BlockRealizeNode* br) {
      const Array<BufferRegion>& mine = producer ? block->reads : block->writes;
      for (BufferRegion r : mine) {
        if (producer ? Writes(br->block.get(), r->buffer) : Reads(br->block.get(), r->buffer)) hit = true;
      }
    });
    return hit;
  };
  size_t lo = 0, hi = items.size();
  for (size_t i = 0; i < items.size(); ++i)
    if (contains(items[i], /*producer=*/true)) lo = i + 1;
  for (size_t i = items.size(); i-- > 0;)
    if (contains(items[i], /*producer=*/false)) hi = i;
  if (lo > hi) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" has no legal position under loop " +
                                 loop->loop_var->name_hint + ": a consumer of its output comes before a producer of its input",
                       func, {block});
  }
  size_t pos = hi;
  if (index == -2) {
    pos = lo;
  } else if (index >= 0) {
    if (static_cast<size_t>(index) < lo || static_cast<size_t>(index) > hi) {
      ThrowScheduleError(prim, "index " + std::to_string(index) + " is not a legal position for block \"" +
                                   block->name_hint + "\" under loop " + loop->loop_var->name_hint + " (legal: " +
                                   std::to_string(lo) + " to " + std::to_string(hi) + ")",
                         func, {block});
    }
    pos = static_cast<size_t>(index);
  } else if (index != -1) {
    ThrowScheduleError(prim, "index must be -1, -2 or a position, got " + std::to_string(index), func);
  }
  items.insert(items.begin() + static_cast<std::ptrdiff_t>(pos), nest);
  For f = GetRef<For>(loop);
  f.CopyOnWrite()->body = SeqStmt::Flatten(items);
  return f;
}

}  // namespace

void CheckSpatialOrReductionIters(const std::string& prim, const PrimFunc& func, const BlockNode* block) {
  for (const IterVar& iv : block->iter_vars) {
    if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) {
      ThrowScheduleError(prim, "block \"" + block->name_hint + "\" is neither a complete nor a reduction block: "
                                   "its iteration variable " + iv->var->name_hint +
                                   " is neither spatial nor a reduction",
                         func, {block});
    }
  }
}

namespace {

// Shared checks of compute_at and reverse_compute_at.
void CheckPlacement(const std::string& prim, const PrimFunc& func, const BlockLocation& loc, const LoopLocation& loop) {
  if (IsAncestor(loop, loc)) {
    ThrowScheduleError(prim, "loop " + loop.loop->loop_var->name_hint + " is an ancestor of block \"" +
                                 loc.block->name_hint + "\" (it already encloses it)",
                       func, {loop.loop});
  }
  if (loop.scope != loc.scope) {
    ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" and loop " + loop.loop->loop_var->name_hint +
                                 " are not in the same block scope",
                       func, {loc.block});
  }
  CheckOnlyWriter(prim, func, loc);
  // An opaque iterator (rolling_buffer's, whose iterations reuse what
  // earlier ones computed) cannot be recomputed elsewhere.
  CheckSpatialOrReductionIters(prim, func, loc.block);
}

// Removes the block's old nest and inserts `nest` into `loop` (see InsertIntoLoop).
PrimFunc MoveNest(const std::string& prim, const PrimFunc& func, const BlockLocation& loc, const LoopLocation& loop,
                  const Stmt& nest, int index) {
  PrimFunc removed = func;
  removed.CopyOnWrite()->body = RemoveBlockNest(func->body, loc);
  auto new_loop = FindLoop(removed, loop.loop->loop_var.get());
  TESSERA_ICHECK(new_loop.has_value()) << "moving block " << loc.block->name_hint << " lost the target loop";
  return ReplaceInFunc(removed, new_loop->loop, InsertIntoLoop(prim, func, new_loop->loop, nest, loc.block, index));
}

}  // namespace

Stmt RemoveBlockNest(const Stmt& root, const BlockLocation& loc) {
  const Object* target = loc.realize;
  for (const ForNode* l : loc.loops) {
    auto children = ChildBlocks(GetRef<Stmt>(l));
    if (children.size() == 1 && children[0] == loc.realize) {
      target = l;
      break;
    }
  }
  return NodeRemover(target).VisitStmt(root);
}

PrimFunc RefreshBlockRegions(const PrimFunc& func, const std::vector<std::string>& names) {
  PrimFunc out = func;
  for (const std::string& name : names) {
    auto loc = FindBlock(out, name);
    if (!loc) continue;
    auto [reads, writes] = InferBlockAccessRegions(GetRef<Block>(loc->block));
    Block b = GetRef<Block>(loc->block);
    auto* n = b.CopyOnWrite();
    n->reads = reads;
    n->writes = writes;
    out = ReplaceInFunc(out, loc->block, b);
  }
  return out;
}

PrimFunc ComputeAt(const PrimFunc& func, const BlockLocation& loc, const LoopLocation& loop, bool preserve_unit_loops,
                   int index) {
  const std::string prim = "compute_at";
  CheckPlacement(prim, func, loc, loop);
  // As TVM: an output block (one writing a buffer its scope block does not
  // allocate) cannot be computed at a consumer's loop.
  for (BufferRegion w : loc.block->writes) {
    bool allocated = false;
    if (loc.scope == nullptr) break;
    for (Buffer b : loc.scope->alloc_buffers) allocated = allocated || b.same_as(w->buffer);
    if (!allocated) {
      ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" is an output block (it writes " +
                                   w->buffer->name + ", which its scope does not allocate) and cannot be moved",
                         func, {loc.block});
    }
  }
  if (loc.block->writes.size() != 1) {
    ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" must write exactly one buffer", func, {loc.block});
  }
  BufferRegion write = loc.block->writes[0];
  // Every consumer in the scope must be under `loop`.
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.scope != loc.scope || other.block == loc.block || !Reads(other.block, write->buffer)) continue;
    if (!IsAncestor(loop, other)) {
      ThrowScheduleError(prim, "compute_at requires all the consumer blocks of block \"" + loc.block->name_hint +
                                   "\" to be under loop " + loop.loop->loop_var->name_hint + "; block \"" +
                                   other.block->name_hint + "\" reads " + write->buffer->name + " outside it",
                         func, {other.block});
    }
  }
  arith::Analyzer ana;
  BindLoopsAbove(loop, &ana);
  std::vector<std::string> users;
  auto region = RelaxedRegion(prim, func, loop.loop, write->buffer, /*want_reads=*/true, &ana, &users);
  if (region.empty()) {
    ThrowScheduleError(prim, "no block under loop " + loop.loop->loop_var->name_hint + " reads " + write->buffer->name,
                       func, {loop.loop});
  }
  Stmt nest = MakeNestForRegion(prim, func, loc, write, region, preserve_unit_loops, &ana);
  return MoveNest(prim, func, loc, loop, nest, index);
}

// The moved consumer runs only where it reads what the loop produces; over
// all iterations of the loop (and those above it) that must still be its
// whole domain: a consumer also iterating where it reads nothing produced
// (a guarded read of padding, T.if_then_else) would lose those iterations.
void CheckNestCoversDomain(const std::string& prim, const PrimFunc& func, const BlockLocation& loc,
                           const LoopLocation& loop, const Stmt& nest) {
  Map<Var, arith::IntSet> dom;
  for (const ForNode* a : loop.ancestors) dom.Set(a->loop_var, arith::IntSet::FromMinExtent(a->min, a->extent));
  dom.Set(loop.loop->loop_var, arith::IntSet::FromMinExtent(loop.loop->min, loop.loop->extent));
  Stmt s = nest;
  while (const auto* f = s.as<ForNode>()) {
    dom.Set(f->loop_var, arith::IntSet::FromMinExtent(f->min, f->extent));
    s = f->body;
  }
  const auto* realize = s.as<BlockRealizeNode>();
  if (realize == nullptr) return;
  arith::Analyzer ana;
  for (size_t k = 0; k < loc.block->iter_vars.size(); ++k) {
    const IterVar& iv = loc.block->iter_vars[k];
    arith::IntSet got = arith::EvalSet(realize->iter_values[k], dom, &ana);
    PrimExpr last = iv->dom->min + iv->dom->extent - 1;
    // Refused where the gap is provable (symbolic nests whose bounds the
    // analyzer cannot compare are let through, as before).
    bool misses = (got.HasLowerBound() && ana.CanProve(got.min() > iv->dom->min)) ||
                  (got.HasUpperBound() && ana.CanProve(got.max() < last));
    if (misses) {
      ThrowScheduleError(prim, "under loop " + loop.loop->loop_var->name_hint + " block \"" + loc.block->name_hint +
                                   "\" would run only where it reads what the loop produces, not over all of " +
                                   iv->var->name_hint + " (it also iterates where it reads none of it)",
                         func, {loc.block});
    }
  }
}

PrimFunc ReverseComputeAt(const PrimFunc& func, const BlockLocation& loc, const LoopLocation& loop,
                          bool preserve_unit_loops, int index) {
  const std::string prim = "reverse_compute_at";
  CheckPlacement(prim, func, loc, loop);
  // The consumer reads what producers under `loop` write; other producers must not be after it.
  std::optional<BufferRegion> read;
  for (BufferRegion r : loc.block->reads) {
    for (const BlockLocation& other : CollectBlocks(func)) {
      if (other.scope == loc.scope && other.block != loc.block && Writes(other.block, r->buffer) &&
          IsAncestor(loop, other)) {
        read = r;
      }
    }
  }
  if (!read) {
    ThrowScheduleError(prim, "no block under loop " + loop.loop->loop_var->name_hint + " produces what block \"" +
                                 loc.block->name_hint + "\" reads",
                       func, {loop.loop});
  }
  // As TVM: every producer (in the scope) of what the block reads is under `loop`.
  for (BufferRegion r : loc.block->reads) {
    for (const BlockLocation& other : CollectBlocks(func)) {
      if (other.scope != loc.scope || other.block == loc.block || !Writes(other.block, r->buffer)) continue;
      if (!IsAncestor(loop, other)) {
        ThrowScheduleError(prim, "reverse_compute_at requires all the producer blocks of block \"" +
                                     loc.block->name_hint + "\" to be under loop " + loop.loop->loop_var->name_hint +
                                     "; block \"" + other.block->name_hint + "\" writes " + r->buffer->name +
                                     " outside it",
                           func, {other.block});
      }
    }
  }
  // Producers of the block's other inputs that run after `loop` would run
  // after the moved block.
  std::vector<BlockLocation> order = CollectBlocks(func);
  size_t first_under = order.size();
  for (size_t i = 0; i < order.size() && first_under == order.size(); ++i) {
    if (order[i].scope == loc.scope && IsAncestor(loop, order[i])) first_under = i;
  }
  for (size_t i = first_under; i < order.size(); ++i) {
    const BlockLocation& other = order[i];
    if (other.scope != loc.scope || other.block == loc.block || IsAncestor(loop, other)) continue;
    for (BufferRegion r : loc.block->reads) {
      if (Writes(other.block, r->buffer)) {
        ThrowScheduleError(prim, "block \"" + other.block->name_hint + "\" produces " + r->buffer->name +
                                     " for block \"" + loc.block->name_hint + "\" but runs after loop " +
                                     loop.loop->loop_var->name_hint,
                           func, {other.block});
      }
    }
  }
  arith::Analyzer ana;
  BindLoopsAbove(loop, &ana);
  std::vector<std::string> users;
  PrimExpr guard;
  auto region = RelaxedRegion(prim, func, loop.loop, (*read)->buffer, /*want_reads=*/false, &ana, &users, &guard);
  Stmt nest = MakeNestForRegion(prim, func, loc, *read, region, preserve_unit_loops, &ana, guard);
  CheckNestCoversDomain(prim, func, loc, loop, nest);
  return MoveNest(prim, func, loc, loop, nest, index);
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("ComputeAt")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.ComputeAt(in.at_any(0).cast<BlockRV>(), in.at_any(1).cast<LoopRV>(), attrs.at_any(0).cast<bool>(),
                    attrs.at_any(1).cast<int>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("compute_at", {"block", "loop"}, {"preserve_unit_loops", "index"}));
TESSERA_REGISTER_INST_KIND("ReverseComputeAt")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.ReverseComputeAt(in.at_any(0).cast<BlockRV>(), in.at_any(1).cast<LoopRV>(), attrs.at_any(0).cast<bool>(),
                           attrs.at_any(1).cast<int>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("reverse_compute_at", {"block", "loop"}, {"preserve_unit_loops", "index"}));

// ---- Schedule methods ------------------------------------------------------------

// The "root" location of sample_compute_location leaves the block where it
// is; the "inline" location inlines it.
#define TESSERA_SCHEDULE_MOVE(Method, Fn, Inline, Name, Kind)                                        \
  void Schedule::Method(const BlockRV& block, const LoopRV& loop, bool preserve_unit_loops, int index) const { \
    const Var& at = LoopEntryOf(loop, Name).var;                                                     \
    BlockLocation bloc = LocateBlock(block, Name);                                                   \
    const std::string func = get()->blocks.at(block.get()).func;                                     \
    if (at.same_as(InlineMarkVar())) {                                                               \
      Commit(func, Inline(FuncOf(func), bloc));                                                      \
    } else if (at.defined()) {                                                                       \
      Commit(func, Fn(FuncOf(func), bloc, LocateLoop(loop, Name), preserve_unit_loops, index));      \
    }                                                                                                \
    Record(Kind, {block, loop}, {preserve_unit_loops, static_cast<int64_t>(index)}, {});             \
  }
TESSERA_SCHEDULE_MOVE(ComputeAt, tir::ComputeAt, tir::ComputeInline, "compute_at", "ComputeAt")
TESSERA_SCHEDULE_MOVE(ReverseComputeAt, tir::ReverseComputeAt, tir::ReverseComputeInline, "reverse_compute_at", "ReverseComputeAt")
#undef TESSERA_SCHEDULE_MOVE

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ComputeAt").set_body_typed([](Schedule s, BlockRV b, LoopRV l, bool p, int i) {
  s.ComputeAt(b, l, p, i);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReverseComputeAt").set_body_typed([](Schedule s, BlockRV b, LoopRV l, bool p, int i) {
  s.ReverseComputeAt(b, l, p, i);
});

}  // namespace tir
}  // namespace tessera
