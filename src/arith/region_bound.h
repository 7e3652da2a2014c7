// Predicate-aware bounds of a buffer region touched by a loop nest, as TVM's
// EstimateRegionStrictBound / EstimateRegionUpperBound: the region's mins are
// read as an iterator map (DetectIterMap) under the block predicate, so a
// split whose tail the predicate cuts off (`i0 * 4 + i1 < n`) is bounded by
// `n`, not by the padded loop extents. Arith layer; cache_read/cache_write use it.
#pragma once

#include <optional>
#include <vector>

#include "arith/analyzer.h"
#include "arith/int_set.h"

namespace tessera {
namespace arith {

// Per-dimension sets of `region` (mins and extents over the variables of
// `var_dom`, others symbolic) when all its mins together form a surjective
// iterator map under `predicate` and its extents are constants; nullopt otherwise.
std::optional<std::vector<IntSet>> EstimateRegionStrictBound(const Array<Range>& region,
                                                             const Map<tir::Var, Range>& var_dom,
                                                             const PrimExpr& predicate, Analyzer* analyzer);

// As EstimateRegionStrictBound, falling back to one dimension at a time and
// then to plain EvalSet (without the predicate) for a dimension it cannot map.
std::vector<IntSet> EstimateRegionUpperBound(const Array<Range>& region, const Map<tir::Var, Range>& var_dom,
                                             const PrimExpr& predicate, Analyzer* analyzer);

}  // namespace arith
}  // namespace tessera
