// Predicate-aware region bounds (see region_bound.h).
#include "arith/region_bound.h"

#include "arith/iter_map.h"
#include "tir/op.h"

namespace tessera {
namespace arith {

using namespace tir;

namespace {

// The values [base + split, base + split + extent) take when `split` runs
// over its range: `sum` is the IterSumExpr of a region's min (at most one
// split) and `extent` the region's extent. nullopt when the extent is
// smaller than the split's scale (the covered values would have holes,
// which an interval cannot say) or the split has more than one term.
std::optional<IntSet> EvalIterSum(const IterSumExpr& sum, const PrimExpr& extent, Analyzer* analyzer) {
  if (sum->args.empty()) return IntSet::FromMinExtent(sum->base, extent);
  if (sum->args.size() != 1) return std::nullopt;
  const IterSplitExpr& split = sum->args[0];
  if (!analyzer->CanProve(greater_equal(extent, split->scale))) return std::nullopt;
  // split = floormod(floordiv(source, lower_factor), split.extent) * scale,
  // its quotient in [0, split.extent).
  PrimExpr span = mul(sub(split->extent, IntImm(split->extent.dtype(), 1)), split->scale);
  if (analyzer->CanProve(less(split->scale, IntImm(split->scale.dtype(), 0)))) {
    return IntSet::FromMinExtent(add(sum->base, span), sub(extent, span));
  }
  if (!analyzer->CanProve(greater_equal(split->scale, IntImm(split->scale.dtype(), 0)))) return std::nullopt;
  return IntSet::FromMinExtent(sum->base, add(extent, span));
}

bool IsConstNumber(const PrimExpr& e) { return e.as<IntImmNode>() != nullptr; }

}  // namespace

std::optional<std::vector<IntSet>> EstimateRegionStrictBound(const Array<Range>& region,
                                                             const Map<Var, Range>& var_dom,
                                                             const PrimExpr& predicate, Analyzer* analyzer) {
  std::vector<PrimExpr> mins;
  for (const Range& r : region) {
    if (!IsConstNumber(r->extent)) return std::nullopt;  // as TVM: constant extents only
    mins.push_back(r->min);
  }
  IterMapResult res =
      DetectIterMap(Array<PrimExpr>(mins), var_dom, predicate, IterMapLevel::kSurjective, analyzer);
  if (res->indices.size() != region.size()) return std::nullopt;
  std::vector<IntSet> out;
  for (size_t d = 0; d < region.size(); ++d) {
    std::optional<IntSet> set = EvalIterSum(res->indices[d], region[d]->extent, analyzer);
    if (!set) return std::nullopt;
    out.push_back(*set);
  }
  return out;
}

std::vector<IntSet> EstimateRegionUpperBound(const Array<Range>& region, const Map<Var, Range>& var_dom,
                                             const PrimExpr& predicate, Analyzer* analyzer) {
  if (auto strict = EstimateRegionStrictBound(region, var_dom, predicate, analyzer)) return *strict;
  Map<Var, IntSet> relax;
  for (const auto& [v, r] : var_dom.items()) relax.Set(v, IntSet::FromRange(r));
  std::vector<IntSet> out;
  for (const Range& r : region) {
    if (IsConstNumber(r->extent)) {
      IterMapResult res = DetectIterMap({r->min}, var_dom, predicate, IterMapLevel::kSurjective, analyzer);
      if (res->indices.size() == 1) {
        if (std::optional<IntSet> set = EvalIterSum(res->indices[0], r->extent, analyzer)) {
          out.push_back(*set);
          continue;
        }
      }
    }
    out.push_back(EvalSet(r, relax, analyzer));
  }
  return out;
}

}  // namespace arith
}  // namespace tessera
