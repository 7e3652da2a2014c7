// Modular sets: facts "value = coeff * k + base" (for some integer k) about
// integer expressions, e.g. 4*i + 2 is 2 mod 4. coeff == 0 means the value
// is exactly `base`; coeff == 1, base == 0 means nothing is known. Arith
// layer; the simplifier uses it to fold floormod and equalities.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "tir/expr.h"

namespace tessera {
namespace arith {

class Analyzer;

class ModularSetNode : public Object {
 public:
  int64_t coeff = 1;
  int64_t base = 0;
  TESSERA_DECLARE_FINAL_OBJECT_INFO(ModularSetNode, Object, "arith.ModularSet");
};

class ModularSet : public ObjectRef {
 public:
  TESSERA_DEFINE_OBJECT_REF_METHODS(ModularSet, ObjectRef, ModularSetNode);
  ModularSet(int64_t coeff, int64_t base);
};

// Plain pair used inside the analysis; base is kept in [0, coeff) when coeff > 0.
struct ModularEntry {
  int64_t coeff = 1;
  int64_t base = 0;
  static ModularEntry Everything() { return {1, 0}; }
  bool is_everything() const { return coeff == 1; }
};

class ModularSetAnalyzer {
 public:
  explicit ModularSetAnalyzer(Analyzer* parent) : parent_(parent) {}
  ModularSet operator()(const PrimExpr& expr) const;
  ModularEntry Eval(const PrimExpr& expr) const;
  // Records a fact about `var` (replaces any earlier one).
  void Update(const tir::Var& var, const ModularSet& info, bool allow_override = false);
  void Unbind(const tir::Var& var);

 private:
  struct Fact {
    tir::Var var;
    ModularEntry entry;
  };
  Analyzer* parent_;
  std::unordered_map<const Object*, Fact> var_map_;
};

}  // namespace arith
}  // namespace tessera
