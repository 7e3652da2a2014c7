// Iterator-map detection: recognises block bindings that are quasi-affine
// maps of loop iterators (sums of splits floormod(floordiv(x, lower_factor),
// extent) * scale of possibly fused iterators), as TVM's DetectIterMap, and
// checks that the map is bijective / surjective. Arith layer; blockize,
// compute_at and the printer use it to reason about bindings.
#pragma once

#include "arith/analyzer.h"
#include "tir/expr.h"

namespace tessera {
namespace arith {

// How strictly DetectIterMap checks the mapping.
enum class IterMapLevel : int {
  kBijective = 0,   // every input point maps to a distinct output; every input iterator is used
  kSurjective = 1,  // outputs are independent and cover their whole ranges
  kNoCheck = 3,     // only the affine structure is detected
};

// Base of the structured iterator expressions.
class IterMapExprNode : public PrimExprNode {
 public:
  TESSERA_DECLARE_OBJECT_INFO(IterMapExprNode, PrimExprNode, "arith.IterMapExpr");
};

// An iterator with values in [0, extent): a loop variable, or a fused sum
// of splits (an IterSumExpr).
class IterMarkNode : public Object {
 public:
  PrimExpr source;
  PrimExpr extent;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IterMarkNode, Object, "arith.IterMark");
};
class IterMark : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IterMark, ObjectRef, IterMarkNode);
  IterMark(PrimExpr source, PrimExpr extent);
};

// floormod(floordiv(source, lower_factor), extent) * scale.
class IterSplitExprNode : public IterMapExprNode {
 public:
  IterMark source;
  PrimExpr lower_factor;
  PrimExpr extent;
  PrimExpr scale;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IterSplitExprNode, IterMapExprNode, "arith.IterSplitExpr");
};
class IterSplitExpr : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IterSplitExpr, PrimExpr, IterSplitExprNode);
  explicit IterSplitExpr(IterMark source);  // the whole mark, scale 1
  IterSplitExpr(IterMark source, PrimExpr lower_factor, PrimExpr extent, PrimExpr scale);
};

// sum(args) + base.
class IterSumExprNode : public IterMapExprNode {
 public:
  Array<IterSplitExpr> args;
  PrimExpr base;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IterSumExprNode, IterMapExprNode, "arith.IterSumExpr");
};
class IterSumExpr : public PrimExpr {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IterSumExpr, PrimExpr, IterSumExprNode);
  IterSumExpr(Array<IterSplitExpr> args, PrimExpr base);
};

// Result of DetectIterMap: `indices` (one IterSumExpr per input index, each
// a single split of one fused iterator plus an offset) on success; empty
// `indices` and the reasons in `errors` on failure.
class IterMapResultNode : public Object {
 public:
  Array<IterSumExpr> indices;
  Array<String> errors;
  PrimExpr padding_predicate;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IterMapResultNode, Object, "arith.IterMapResult");
};
class IterMapResult : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IterMapResult, ObjectRef, IterMapResultNode);
};

// Detects whether `indices` are an affine map of the iterators in
// `input_iters` (var -> range). `predicate` may constrain fused iterators
// (conjunctions of `fused < bound`, as produced by non-divisible splits).
IterMapResult DetectIterMap(const Array<PrimExpr>& indices, const Map<tir::Var, Range>& input_iters,
                            const PrimExpr& predicate, IterMapLevel check_level, Analyzer* analyzer,
                            bool simplify_trivial_iterators = true);

// The plain expression of an IterSumExpr / IterSplitExpr (others unchanged).
PrimExpr NormalizeIterMapToExpr(const PrimExpr& expr);

// `indices` rewritten through DetectIterMap + normalization + simplification,
// or simplified one by one when they are not an affine map.
Array<PrimExpr> IterMapSimplify(const Array<PrimExpr>& indices, const Map<tir::Var, Range>& input_iters,
                                const PrimExpr& predicate, IterMapLevel check_level, Analyzer* analyzer,
                                bool simplify_trivial_iterators = true);

// Parses "bijective" / "surjective" / "no_check" (or 0 / 1 / 3).
IterMapLevel ParseIterMapLevel(const Any& level);

}  // namespace arith
}  // namespace tessera
