// Integer sets: closed intervals [min_value, max_value] whose ends may be
// symbolic expressions or +/- infinity. EvalSet relaxes variables over their
// domains to bound the values an expression takes (e.g. the region a loop
// nest touches, used by compute_at / reverse_compute_at and region
// analysis). Arith layer; results are exact for affine expressions.
#pragma once

#include <unordered_map>

#include "tir/expr.h"

namespace tessera {
namespace arith {

class Analyzer;

class IntSetNode : public Object {
 public:
  TESSERA_DECLARE_OBJECT_INFO(IntSetNode, Object, "arith.IntSet");
};

// [min_value, max_value], both inclusive. An end equal to SymbolicPosInf() /
// SymbolicNegInf() is unbounded; min > max (pos_inf, neg_inf) is the empty set.
class IntervalSetNode : public IntSetNode {
 public:
  PrimExpr min_value;
  PrimExpr max_value;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(IntervalSetNode, IntSetNode, "arith.IntervalSet");
};

// The unbounded ends (handle-typed variables so they never mix into arithmetic).
const PrimExpr& SymbolicPosInf();
const PrimExpr& SymbolicNegInf();
bool IsPosInf(const PrimExpr& e);
bool IsNegInf(const PrimExpr& e);

class IntSet : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IntSet, ObjectRef, IntSetNode);

  static IntSet Interval(PrimExpr min_value, PrimExpr max_value);  // inclusive ends
  static IntSet SinglePoint(PrimExpr point);
  static IntSet FromMinExtent(PrimExpr min, PrimExpr extent);
  static IntSet FromRange(const Range& range);
  static IntSet Everything();
  static IntSet Nothing();

  PrimExpr min() const;  // SymbolicNegInf() when unbounded below
  PrimExpr max() const;  // SymbolicPosInf() when unbounded above
  bool HasLowerBound() const { return !IsNegInf(min()) && !IsNothing(); }
  bool HasUpperBound() const { return !IsPosInf(max()) && !IsNothing(); }
  bool IsNothing() const;
  bool IsEverything() const;
  bool IsSinglePoint() const;  // min and max are the same expression
  bool CanProveSinglePoint(Analyzer* analyzer) const;
  PrimExpr PointValue() const;  // raises ValueError unless IsSinglePoint()
  // The half-open range [min, max + 1) covered by this set; `max_range`
  // when a side is unbounded.
  Range CoverRange(const Range& max_range) const;
};

class IntervalSet : public IntSet {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(IntervalSet, IntSet, IntervalSetNode);
  IntervalSet(PrimExpr min_value, PrimExpr max_value);
};

// Values of `expr` when each variable in `dom_map` ranges over its set
// (other variables stay symbolic). Ends are simplified with `analyzer`
// (a fresh one when null).
IntSet EvalSet(const PrimExpr& expr, const Map<tir::Var, IntSet>& dom_map, Analyzer* analyzer = nullptr);
IntSet EvalSet(const PrimExpr& expr, const std::unordered_map<const Object*, IntSet>& dom_map,
               Analyzer* analyzer = nullptr);
IntSet EvalSetOverRanges(const PrimExpr& expr, const Map<tir::Var, Range>& dom_map, Analyzer* analyzer = nullptr);
// The set covered by [range.min, range.min + range.extent) under `dom_map`.
IntSet EvalSet(const Range& range, const Map<tir::Var, IntSet>& dom_map, Analyzer* analyzer = nullptr);
// Per-dimension sets of a region (e.g. a buffer region) under `dom_map`.
Array<IntSet> EvalSet(const Array<Range>& region, const Map<tir::Var, IntSet>& dom_map,
                      Analyzer* analyzer = nullptr);

// The smallest interval containing every set / contained in every set.
IntSet Union(const Array<IntSet>& sets, Analyzer* analyzer = nullptr);
IntSet Intersect(const Array<IntSet>& sets, Analyzer* analyzer = nullptr);

// Symbolic variable ranges known to an Analyzer (its Bind(var, range) facts).
class IntSetAnalyzer {
 public:
  explicit IntSetAnalyzer(Analyzer* parent) : parent_(parent) {}
  IntSet operator()(const PrimExpr& expr, const Map<tir::Var, IntSet>& dom_map) const;
  // Relaxes the variables with recorded ranges.
  IntSet operator()(const PrimExpr& expr) const;
  void Update(const tir::Var& var, const IntSet& set, bool allow_override = false);
  void Bind(const tir::Var& var, const Range& range, bool allow_override = false);
  void Unbind(const tir::Var& var);
  bool Has(const tir::Var& var) const { return dom_.count(var.get()) != 0; }
  bool empty() const { return dom_.empty(); }
  const std::unordered_map<const Object*, IntSet>& dom() const { return dom_; }

 private:
  Analyzer* parent_;
  std::unordered_map<const Object*, IntSet> dom_;
  std::unordered_map<const Object*, tir::Var> keep_alive_;
};

}  // namespace arith
}  // namespace tessera
