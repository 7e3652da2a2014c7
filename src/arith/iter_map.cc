// Iterator-map detection (see iter_map.h). Each index is rewritten bottom-up
// into an IterSumExpr; floordiv/floormod first fuse their operand into one
// iterator (its splits must form a chain: each scale is the previous scale
// times the previous extent), then cut that iterator. The check walks every
// iterator reached from the outputs and verifies that the splits used of it
// do not overlap (and, for bijective maps, tile it exactly).
#include "arith/iter_map.h"

#include <optional>

#include "arith/expr_deep_equal.h"
#include "arith/expr_string.h"
#include "runtime/reflection.h"
#include "runtime/registry.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace arith {

using namespace tir;

IterMark::IterMark(PrimExpr source, PrimExpr extent) {
  TESSERA_CHECK_OR_THROW(source.defined() && extent.defined(), ValueError) << "IterMark: undefined argument";
  auto n = make_object<IterMarkNode>();
  n->source = std::move(source);
  n->extent = std::move(extent);
  data_ = std::move(n);
}

IterSplitExpr::IterSplitExpr(IterMark source)
    : IterSplitExpr(source, IntImm(source->extent.dtype(), 1), source->extent, IntImm(source->extent.dtype(), 1)) {}

IterSplitExpr::IterSplitExpr(IterMark source, PrimExpr lower_factor, PrimExpr extent, PrimExpr scale) {
  TESSERA_CHECK_OR_THROW(source.defined() && lower_factor.defined() && extent.defined() && scale.defined(), ValueError)
      << "IterSplitExpr: undefined argument";
  auto n = make_object<IterSplitExprNode>();
  n->dtype = source->source.dtype().is_handle() ? extent.dtype() : source->source.dtype();
  n->source = std::move(source);
  n->lower_factor = std::move(lower_factor);
  n->extent = std::move(extent);
  n->scale = std::move(scale);
  data_ = std::move(n);
}

IterSumExpr::IterSumExpr(Array<IterSplitExpr> args, PrimExpr base) {
  TESSERA_CHECK_OR_THROW(base.defined(), ValueError) << "IterSumExpr: base is undefined";
  auto n = make_object<IterSumExprNode>();
  n->dtype = base.dtype();
  n->args = std::move(args);
  n->base = std::move(base);
  data_ = std::move(n);
}

IterMapLevel ParseIterMapLevel(const Any& level) {
  if (level.kind() == Any::Kind::kInt) {
    int64_t v = level.raw_int();
    if (v == 0) return IterMapLevel::kBijective;
    if (v == 1) return IterMapLevel::kSurjective;
    if (v == 2 || v == 3) return IterMapLevel::kNoCheck;
  } else if (auto s = level.try_cast<std::string>()) {
    std::string k;
    for (char c : *s) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (k == "bijective") return IterMapLevel::kBijective;
    if (k == "surjective") return IterMapLevel::kSurjective;
    if (k == "no_check" || k == "nocheck") return IterMapLevel::kNoCheck;
  }
  TESSERA_THROW(ValueError) << "check_level must be 'bijective', 'surjective' or 'no_check', got " << level.repr();
}

namespace {

class IterMapRewriter {
 public:
  IterMapRewriter(Analyzer* analyzer, Array<String>* errors) : analyzer_(analyzer), errors_(errors) {}

  bool Init(const Map<Var, Range>& input_iters, bool simplify_trivial) {
    for (const auto& [var, range] : input_iters.items()) {
      TESSERA_CHECK_OR_THROW(var.defined() && range.defined(), ValueError)
          << "detect_iter_map: input_iters has an undefined entry";
      DataType t = var.dtype();
      if (simplify_trivial && IsConstInt(analyzer_->Simplify(range->extent), 1)) {
        var_map_[var.get()] = IterSumExpr({}, range->min);
        continue;
      }
      PrimExpr source = IsConstInt(range->min, 0) ? PrimExpr(var) : analyzer_->Simplify(sub(var, range->min));
      IterMark mark(source, range->extent);
      input_marks_.push_back({var, mark});
      var_map_[var.get()] = IterSumExpr({IterSplitExpr(mark, IntImm(t, 1), range->extent, IntImm(t, 1))},
                                        range->min);
    }
    return true;
  }

  void Fail(const std::string& msg) { errors_->push_back(String(msg)); }

  bool UsesIter(const PrimExpr& e) const {
    bool used = false;
    PostOrderVisit(e, [&](const ObjectRef& n) {
      if (n.as<VarNode>() && var_map_.count(n.get())) used = true;
    });
    return used;
  }

  PrimExpr Simplify(const PrimExpr& e) { return analyzer_->Simplify(e); }
  bool ProveEqual(const PrimExpr& a, const PrimExpr& b) { return analyzer_->CanProveEqual(a, b); }
  bool Divides(const PrimExpr& divisor, const PrimExpr& value) {
    return ProveEqual(floormod(value, divisor), IntImm(value.dtype(), 0));
  }

  // ---- rewriting --------------------------------------------------------
  std::optional<IterSumExpr> Rewrite(const PrimExpr& e) {
    CheckStack("expression");
    if (!UsesIter(e)) return IterSumExpr({}, e);
    if (const auto* v = e.as<VarNode>()) return var_map_.at(v);
    if (const auto* op = e.as<AddNode>()) return Combine(op->a, op->b, 1);
    if (const auto* op = e.as<SubNode>()) return Combine(op->a, op->b, -1);
    if (const auto* op = e.as<MulNode>()) {
      auto a = Rewrite(op->a);
      auto b = Rewrite(op->b);
      if (!a || !b) return std::nullopt;
      if (a->get()->args.empty()) return Scale(*b, a->get()->base);
      if (b->get()->args.empty()) return Scale(*a, b->get()->base);
      Fail("the product of two iterator expressions is not affine: " + Repr(e));
      return std::nullopt;
    }
    if (const auto* op = e.as<FloorDivNode>()) return DivMod(op->a, op->b, true, e);
    if (const auto* op = e.as<FloorModNode>()) return DivMod(op->a, op->b, false, e);
    if (const auto* op = e.as<CastNode>()) {
      if (op->dtype == op->value.dtype()) return Rewrite(op->value);
    }
    Fail("unsupported expression in an iterator map: " + std::string(e->GetTypeKey()));
    return std::nullopt;
  }

  static std::string Repr(const PrimExpr& e) { return ExprToString(e); }

  IterSumExpr Scale(const IterSumExpr& s, const PrimExpr& factor) {
    if (IsConstInt(factor, 0)) return IterSumExpr({}, IntImm(s->dtype, 0));
    Array<IterSplitExpr> args;
    for (const IterSplitExpr& a : s->args)
      args.push_back(IterSplitExpr(a->source, a->lower_factor, a->extent, Simplify(mul(a->scale, factor))));
    return IterSumExpr(args, Simplify(mul(s->base, factor)));
  }

  std::optional<IterSumExpr> Combine(const PrimExpr& x, const PrimExpr& y, int sign) {
    auto a = Rewrite(x);
    auto b = Rewrite(y);
    if (!a || !b) return std::nullopt;
    std::vector<IterSplitExpr> args((*a)->args.begin(), (*a)->args.end());
    for (const IterSplitExpr& s : (*b)->args) {
      PrimExpr scale = sign > 0 ? s->scale : Simplify(neg(s->scale));
      bool merged = false;
      for (size_t i = 0; i < args.size(); ++i) {
        const IterSplitExpr& t = args[i];
        if (t->source.same_as(s->source) && ExprDeepEqual(t->lower_factor, s->lower_factor) &&
            ExprDeepEqual(t->extent, s->extent)) {
          PrimExpr total = Simplify(add(t->scale, scale));
          if (IsConstInt(total, 0)) args.erase(args.begin() + i);
          else args[i] = IterSplitExpr(t->source, t->lower_factor, t->extent, total);
          merged = true;
          break;
        }
      }
      if (!merged) args.push_back(IterSplitExpr(s->source, s->lower_factor, s->extent, scale));
    }
    PrimExpr base = Simplify(sign > 0 ? add((*a)->base, (*b)->base) : sub((*a)->base, (*b)->base));
    return IterSumExpr(Array<IterSplitExpr>(args), base);
  }

  // Fuses the splits of `sum` (ignoring its base) into one split of one
  // iterator. Fails unless they form a chain of scales.
  std::optional<IterSplitExpr> Fuse(const IterSumExpr& sum) {
    const Array<IterSplitExpr>& args = sum->args;
    if (args.size() == 1) return args[0];
    TESSERA_ICHECK(!args.empty());
    // The smallest scale starts the chain.
    std::optional<size_t> start;
    for (size_t i = 0; i < args.size(); ++i) {
      const int64_t* c = AsConstInt(args[i]->scale);
      if (c && *c > 0 && (!start || *c < *AsConstInt(args[*start]->scale))) start = i;
    }
    std::vector<size_t> candidates;
    if (start) candidates.push_back(*start);
    else
      for (size_t i = 0; i < args.size(); ++i) candidates.push_back(i);
    for (size_t first : candidates) {
      std::vector<IterSplitExpr> chain{args[first]};  // increasing scale
      std::vector<bool> used(args.size(), false);
      used[first] = true;
      PrimExpr expected = Simplify(mul(args[first]->scale, args[first]->extent));
      bool ok = true;
      for (size_t n = 1; n < args.size() && ok; ++n) {
        ok = false;
        for (size_t i = 0; i < args.size(); ++i) {
          if (!used[i] && ProveEqual(args[i]->scale, expected)) {
            used[i] = true;
            chain.push_back(args[i]);
            expected = Simplify(mul(args[i]->scale, args[i]->extent));
            ok = true;
            break;
          }
        }
      }
      if (!ok) continue;
      PrimExpr base_scale = chain[0]->scale;
      // Relative scales; adjacent pieces of one iterator are merged back.
      std::vector<IterSplitExpr> rel;
      for (const IterSplitExpr& s : chain) {
        PrimExpr scale = Simplify(floordiv(s->scale, base_scale));
        if (!rel.empty()) {
          const IterSplitExpr& prev = rel.back();
          if (prev->source.same_as(s->source) &&
              ProveEqual(s->lower_factor, mul(prev->lower_factor, prev->extent))) {
            rel.back() = IterSplitExpr(prev->source, prev->lower_factor, Simplify(mul(prev->extent, s->extent)),
                                       prev->scale);
            continue;
          }
        }
        rel.push_back(IterSplitExpr(s->source, s->lower_factor, s->extent, scale));
      }
      if (rel.size() == 1) {
        const IterSplitExpr& s = rel[0];
        return IterSplitExpr(s->source, s->lower_factor, s->extent, base_scale);
      }
      PrimExpr extent = IntImm(sum->dtype, 1);
      for (const IterSplitExpr& s : rel) extent = Simplify(mul(extent, s->extent));
      std::reverse(rel.begin(), rel.end());  // largest scale first
      IterSumExpr fused(Array<IterSplitExpr>(rel), IntImm(sum->dtype, 0));
      IterMark mark = LookupOrCreateFused(fused, extent);
      return IterSplitExpr(mark, IntImm(sum->dtype, 1), mark->extent, base_scale);
    }
    Fail("the iterators of " + Repr(NormalizeIterMapToExpr(sum)) +
         " do not fuse into one iterator (their scales are not a chain of extents)");
    return std::nullopt;
  }

  static bool SameSum(const IterSumExpr& a, const IterSumExpr& b) {
    if (a->args.size() != b->args.size() || !ExprDeepEqual(a->base, b->base)) return false;
    for (size_t i = 0; i < a->args.size(); ++i) {
      const IterSplitExpr& x = a->args[i];
      const IterSplitExpr& y = b->args[i];
      if (!x->source.same_as(y->source) || !ExprDeepEqual(x->lower_factor, y->lower_factor) ||
          !ExprDeepEqual(x->extent, y->extent) || !ExprDeepEqual(x->scale, y->scale))
        return false;
    }
    return true;
  }

  IterMark LookupOrCreateFused(const IterSumExpr& sum, const PrimExpr& extent) {
    for (auto& entry : fused_)
      if (SameSum(entry.first, sum)) return entry.second;
    IterMark mark(sum, extent);
    fused_.emplace_back(sum, mark);
    return mark;
  }

  std::optional<IterSumExpr> DivMod(const PrimExpr& x, const PrimExpr& y, bool is_div, const PrimExpr& whole) {
    auto b = Rewrite(y);
    if (!b) return std::nullopt;
    if (!(*b)->args.empty()) {
      Fail("the divisor of " + Repr(whole) + " depends on an iterator");
      return std::nullopt;
    }
    PrimExpr c = Simplify((*b)->base);
    if (!analyzer_->CanProveGreaterEqual(c, 1)) {
      Fail("the divisor of " + Repr(whole) + " is not provably positive");
      return std::nullopt;
    }
    auto a = Rewrite(x);
    if (!a) return std::nullopt;
    DataType t = (*a)->dtype;
    if ((*a)->args.empty()) {
      return IterSumExpr({}, Simplify(is_div ? floordiv((*a)->base, c) : floormod((*a)->base, c)));
    }
    if (IsConstInt(c, 1)) return is_div ? *a : IterSumExpr({}, IntImm(t, 0));
    auto split = Fuse(*a);
    if (!split) return std::nullopt;
    PrimExpr base = (*a)->base;
    PrimExpr extra = IntImm(t, 0);
    if (!IsConstInt(base, 0)) {
      if (!Divides(c, base)) {
        Fail("the offset " + Repr(base) + " in " + Repr(whole) + " is not a multiple of the divisor");
        return std::nullopt;
      }
      if (is_div) extra = Simplify(floordiv(base, c));
    }
    const IterSplitExpr& s = *split;
    if (Divides(c, s->scale)) {
      if (!is_div) return IterSumExpr({}, IntImm(t, 0));
      return IterSumExpr({IterSplitExpr(s->source, s->lower_factor, s->extent, Simplify(floordiv(s->scale, c)))}, extra);
    }
    if (Divides(s->scale, c)) {
      PrimExpr c2 = Simplify(floordiv(c, s->scale));
      if (Divides(c2, s->extent)) {
        if (is_div) {
          PrimExpr ext = Simplify(floordiv(s->extent, c2));
          if (IsConstInt(ext, 1)) return IterSumExpr({}, extra);  // a single value: 0
          return IterSumExpr({IterSplitExpr(s->source, Simplify(mul(s->lower_factor, c2)), ext, IntImm(t, 1))},
                             extra);
        }
        if (ProveEqual(c2, s->extent)) return IterSumExpr({s}, extra);  // the mod keeps every value
        return IterSumExpr({IterSplitExpr(s->source, s->lower_factor, c2, s->scale)}, extra);
      }
      if (analyzer_->CanProve(less_equal(s->extent, c2))) {
        if (is_div) return IterSumExpr({}, extra);
        return IterSumExpr({s}, extra);
      }
      Fail("the extent " + Repr(s->extent) + " of the iterator in " + Repr(whole) +
           " is not divisible by " + Repr(c2));
      return std::nullopt;
    }
    Fail("the divisor of " + Repr(whole) + " does not align with the iterator's scale " + Repr(s->scale));
    return std::nullopt;
  }

  // ---- predicate --------------------------------------------------------
  bool AddPredicate(const PrimExpr& pred) {
    if (const int64_t* v = AsConstInt(pred)) {
      if (*v) return true;
      Fail("the predicate is always false");
      return false;
    }
    if (const auto* op = pred.as<AndNode>()) return AddPredicate(op->a) && AddPredicate(op->b);
    PrimExpr lhs, bound;  // lhs < bound
    if (const auto* op = pred.as<LTNode>()) lhs = op->a, bound = op->b;
    else if (const auto* op = pred.as<LENode>()) lhs = op->a, bound = add(op->b, IntImm(op->b.dtype(), 1));
    else if (const auto* op = pred.as<GTNode>()) lhs = op->b, bound = op->a;
    else if (const auto* op = pred.as<GENode>()) lhs = op->b, bound = add(op->a, IntImm(op->a.dtype(), 1));
    if (!lhs.defined() || UsesIter(bound) || !UsesIter(lhs)) {
      Fail("unsupported predicate clause " + Repr(pred) + " (expected `fused_iterator < bound`)");
      return false;
    }
    auto sum = Rewrite(lhs);
    if (!sum) return false;
    if ((*sum)->args.empty()) {  // its iterators were trivial (extent 1) and simplified away
      Fail("unsupported predicate clause " + Repr(pred) + " (it bounds no iterator of extent above 1)");
      return false;
    }
    auto split = Fuse(*sum);
    if (!split) return false;
    const IterSplitExpr& s = *split;
    if (!IsConstInt(s->scale, 1) || !IsConstInt(s->lower_factor, 1)) {
      Fail("unsupported predicate clause " + Repr(pred) + " (the bounded iterator is scaled or split)");
      return false;
    }
    PrimExpr extent = Simplify(sub(bound, (*sum)->base));
    if (analyzer_->CanProve(greater_equal(extent, s->extent))) return true;  // no constraint
    // As TVM: a bound not provably below the iterator's own extent narrows
    // it to the smaller of the two (`n - i0 * 6` alone would exceed the
    // iterator's range in the iterations the predicate does not cut).
    if (!analyzer_->CanProve(less_equal(extent, s->extent))) extent = Simplify(min(extent, s->extent));
    // Replace the iterator's mark by one with the smaller extent.
    IterMark old = s->source;
    IterMark narrowed(old->source, extent);
    for (auto& entry : fused_) {
      if (entry.second.same_as(old)) {
        entry.second = narrowed;
        return true;
      }
    }
    for (auto& [var, mark] : input_marks_) {
      if (mark.same_as(old)) {
        mark = narrowed;
        IterSumExpr cur = var_map_.at(var.get());
        DataType t = var.dtype();
        var_map_[var.get()] = IterSumExpr({IterSplitExpr(narrowed, IntImm(t, 1), extent, IntImm(t, 1))}, cur->base);
        return true;
      }
    }
    Fail("unsupported predicate clause " + Repr(pred));
    return false;
  }

  // ---- checking ---------------------------------------------------------
  bool Check(const std::vector<IterSumExpr>& outputs, IterMapLevel level) {
    std::vector<IterMark> order;
    std::unordered_map<const Object*, std::vector<IterSplitExpr>> uses;
    std::vector<IterSplitExpr> work;
    for (const IterSumExpr& s : outputs)
      for (const IterSplitExpr& a : s->args) work.push_back(a);
    while (!work.empty()) {
      IterSplitExpr s = work.back();
      work.pop_back();
      auto it = uses.find(s->source.get());
      if (it == uses.end()) {
        order.push_back(s->source);
        uses[s->source.get()].push_back(s);
        if (const auto* inner = s->source->source.as<IterSumExprNode>())
          for (const IterSplitExpr& a : inner->args) work.push_back(a);
      } else {
        it->second.push_back(s);
      }
    }
    for (const IterMark& mark : order) {
      std::vector<IterSplitExpr> splits = uses[mark.get()];
      PrimExpr expected = IntImm(mark->extent.dtype(), 1);
      std::vector<bool> used(splits.size(), false);
      for (size_t n = 0; n < splits.size(); ++n) {
        std::optional<size_t> pick;
        for (size_t i = 0; i < splits.size(); ++i)
          if (!used[i] && ProveEqual(splits[i]->lower_factor, expected)) {
            pick = i;
            break;
          }
        if (!pick && level == IterMapLevel::kSurjective) {
          // A gap is allowed: the next piece starts at a multiple of `expected`.
          const int64_t* e = AsConstInt(expected);
          for (size_t i = 0; i < splits.size() && e; ++i) {
            const int64_t* lf = AsConstInt(splits[i]->lower_factor);
            if (used[i] || !lf || *lf < *e || *lf % *e != 0) continue;
            if (!pick || *lf < *AsConstInt(splits[*pick]->lower_factor)) pick = i;
          }
        }
        if (!pick) {
          Fail("the iterator " + Repr(NormalizeMark(mark)) + " is used by overlapping or non-contiguous splits");
          return false;
        }
        used[*pick] = true;
        expected = Simplify(mul(splits[*pick]->lower_factor, splits[*pick]->extent));
      }
      if (level == IterMapLevel::kBijective) {
        if (!ProveEqual(expected, mark->extent)) {
          Fail("the iterator " + Repr(NormalizeMark(mark)) + " is not fully covered (mapping is not bijective)");
          return false;
        }
      } else if (!Divides(expected, mark->extent)) {
        Fail("the splits of iterator " + Repr(NormalizeMark(mark)) + " exceed or misalign with its extent " +
             Repr(mark->extent));
        return false;
      }
    }
    if (level == IterMapLevel::kBijective) {
      for (const auto& [var, mark] : input_marks_) {
        if (!uses.count(mark.get())) {
          Fail("the input iterator " + var->name_hint + " is not used (mapping is not bijective)");
          return false;
        }
      }
    }
    return true;
  }

  static PrimExpr NormalizeMark(const IterMark& mark) { return NormalizeIterMapToExpr(mark->source); }

 private:
  Analyzer* analyzer_;
  Array<String>* errors_;
  std::unordered_map<const Object*, IterSumExpr> var_map_;
  std::vector<std::pair<Var, IterMark>> input_marks_;
  std::vector<std::pair<IterSumExpr, IterMark>> fused_;
};

}  // namespace

IterMapResult DetectIterMap(const Array<PrimExpr>& indices, const Map<Var, Range>& input_iters,
                            const PrimExpr& predicate, IterMapLevel check_level, Analyzer* analyzer,
                            bool simplify_trivial_iterators) {
  Analyzer local;
  if (analyzer == nullptr) analyzer = &local;
  auto result = make_object<IterMapResultNode>();
  result->padding_predicate = IntImm(DataType::Bool(), 0);
  Array<String> errors;
  IterMapRewriter rewriter(analyzer, &errors);
  auto finish = [&](bool ok, const std::vector<IterSumExpr>& out) {
    if (ok) result->indices = Array<IterSumExpr>(out);
    result->errors = errors;
    return IterMapResult(ObjectPtr<Object>(std::move(result)));
  };
  rewriter.Init(input_iters, simplify_trivial_iterators);
  // Indices are pre-simplified knowing the iterator ranges (floordiv(i*4 + j, 4) -> i).
  // (Bounds only: the iterators themselves are never substituted.)
  Analyzer bounded;
  for (const auto& [v, r] : input_iters.items()) {
    bounded.const_int_bound.Bind(v, r);
    if (!AsConstInt(r->min) || !AsConstInt(r->extent)) bounded.int_set.Bind(v, r);
  }
  PrimExpr pred = predicate.defined() ? bounded.Simplify(predicate) : PrimExpr(IntImm(DataType::Bool(), 1));
  if (!rewriter.AddPredicate(pred)) return finish(false, {});
  std::vector<IterSumExpr> out;
  for (const PrimExpr& index : indices) {
    TESSERA_CHECK_OR_THROW(index.defined(), ValueError) << "detect_iter_map: an index is undefined (None)";
    auto sum = rewriter.Rewrite(bounded.Simplify(index));
    if (!sum) return finish(false, {});
    if ((*sum)->args.size() > 1) {
      auto split = rewriter.Fuse(*sum);
      if (!split) return finish(false, {});
      sum = IterSumExpr({*split}, (*sum)->base);
    }
    out.push_back(*sum);
  }
  if (check_level != IterMapLevel::kNoCheck && !rewriter.Check(out, check_level)) return finish(false, {});
  return finish(true, out);
}

PrimExpr NormalizeIterMapToExpr(const PrimExpr& expr) {
  TESSERA_CHECK_OR_THROW(expr.defined(), ValueError) << "normalize_iter_map_to_expr: expression is undefined";
  if (const auto* sum = expr.as<IterSumExprNode>()) {
    PrimExpr r;
    for (const IterSplitExpr& s : sum->args) {
      PrimExpr e = NormalizeIterMapToExpr(s);
      r = r.defined() ? add(r, e) : e;
    }
    if (!r.defined()) return sum->base;
    return IsConstInt(sum->base, 0) ? r : add(r, sum->base);
  }
  if (const auto* s = expr.as<IterSplitExprNode>()) {
    PrimExpr r = NormalizeIterMapToExpr(s->source->source);
    if (!IsConstInt(s->lower_factor, 1)) r = floordiv(r, s->lower_factor);
    Analyzer analyzer;
    if (!analyzer.CanProveEqual(mul(s->lower_factor, s->extent), s->source->extent)) r = floormod(r, s->extent);
    if (!IsConstInt(s->scale, 1)) r = mul(r, s->scale);
    return r;
  }
  return expr;
}

Array<PrimExpr> IterMapSimplify(const Array<PrimExpr>& indices, const Map<Var, Range>& input_iters,
                                const PrimExpr& predicate, IterMapLevel check_level, Analyzer* analyzer,
                                bool simplify_trivial_iterators) {
  Analyzer local;
  if (analyzer == nullptr) analyzer = &local;
  IterMapResult res =
      DetectIterMap(indices, input_iters, predicate, check_level, analyzer, simplify_trivial_iterators);
  Array<PrimExpr> out;
  if (res->indices.empty() && !indices.empty()) {
    for (const PrimExpr& e : indices) out.push_back(analyzer->Simplify(e));
    return out;
  }
  for (const IterSumExpr& e : res->indices) out.push_back(analyzer->Simplify(NormalizeIterMapToExpr(e)));
  return out;
}

TESSERA_REGISTER_OBJECT_TYPE(IterMapExprNode);
TESSERA_REGISTER_OBJECT_TYPE(IterMarkNode);
TESSERA_REGISTER_OBJECT_TYPE(IterSplitExprNode);
TESSERA_REGISTER_OBJECT_TYPE(IterSumExprNode);
TESSERA_REGISTER_OBJECT_TYPE(IterMapResultNode);
TESSERA_REGISTER_NODE(IterMarkNode).field("source", &IterMarkNode::source).field("extent", &IterMarkNode::extent);
TESSERA_REGISTER_NODE(IterSplitExprNode)
    .field("source", &IterSplitExprNode::source)
    .field("lower_factor", &IterSplitExprNode::lower_factor)
    .field("extent", &IterSplitExprNode::extent)
    .field("scale", &IterSplitExprNode::scale);
TESSERA_REGISTER_NODE(IterSumExprNode).field("args", &IterSumExprNode::args).field("base", &IterSumExprNode::base);
TESSERA_REGISTER_NODE(IterMapResultNode)
    .field("indices", &IterMapResultNode::indices)
    .field("errors", &IterMapResultNode::errors)
    .field("padding_predicate", &IterMapResultNode::padding_predicate);

}  // namespace arith
}  // namespace tessera
