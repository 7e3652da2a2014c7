// Constant integer bounds: the interval [min_value, max_value] that an
// integer expression's value lies in, given bounds of its variables, with
// +/- infinity sentinels for unbounded sides. Arith layer; the simplifier
// uses it to fold comparisons and floordiv/floormod, passes use it to prove
// index ranges.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>

#include "tir/expr.h"

namespace tessera {
namespace arith {

class Analyzer;

class ConstIntBoundNode : public Object {
 public:
  int64_t min_value = 0;
  int64_t max_value = 0;
  // Sentinels meaning "unbounded above/below" (symmetric, as TVM's).
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  static constexpr int64_t kNegInf = -kPosInf;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ConstIntBoundNode, Object, "arith.ConstIntBound");
};

class ConstIntBound : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ConstIntBound, ObjectRef, ConstIntBoundNode);
  ConstIntBound(int64_t min_value, int64_t max_value);
  static constexpr int64_t kPosInf = ConstIntBoundNode::kPosInf;
  static constexpr int64_t kNegInf = ConstIntBoundNode::kNegInf;
};

// A plain [min, max] pair used inside the analyses.
struct BoundEntry {
  int64_t min_value = ConstIntBound::kNegInf;
  int64_t max_value = ConstIntBound::kPosInf;
  bool is_const(int64_t v) const { return min_value == v && max_value == v; }
  bool operator==(const BoundEntry& o) const { return min_value == o.min_value && max_value == o.max_value; }
};

// The full value range of `dtype` (ints: two's complement range; floats and
// 64-bit ends: infinity sentinels).
BoundEntry TypeBound(DataType dtype);

class ConstIntBoundAnalyzer {
 public:
  explicit ConstIntBoundAnalyzer(Analyzer* parent) : parent_(parent) {}

  // Bound of `expr` under the current variable facts.
  ConstIntBound operator()(const PrimExpr& expr) const;
  BoundEntry Eval(const PrimExpr& expr) const;

  // Records that `var` lies in `bound` (replaces any earlier fact).
  void Update(const tir::Var& var, const ConstIntBound& bound, bool allow_override = false);
  void Update(const tir::Var& var, const BoundEntry& bound);
  // var in [range.min, range.min + range.extent): bounds of min and extent are evaluated.
  void Bind(const tir::Var& var, const Range& range, bool allow_override = false);
  // Drops the fact about `var` (if any).
  void Unbind(const tir::Var& var);
  // The recorded fact about `var`, if any.
  const BoundEntry* Lookup(const tir::Var& var) const;

 private:
  struct Fact {
    tir::Var var;  // keeps the key alive
    BoundEntry bound;
  };
  Analyzer* parent_;
  std::unordered_map<const Object*, Fact> var_map_;
};

}  // namespace arith
}  // namespace tessera
