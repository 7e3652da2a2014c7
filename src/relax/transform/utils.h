// Helpers shared by the Relax lowering passes of src/relax/transform:
// applying a rewrite to every Relax function of a module, and a mutator
// that remembers which variable the visited value is bound to (for messages).
#pragma once

#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "relax/expr.h"
#include "relax/expr_functor.h"

namespace tessera {
namespace relax {

// A copy of `mod` in which every relax.Function is replaced by
// `rewrite(gv, func)` (other functions kept, module order kept). The input
// module is not modified.
inline IRModule UpdateRelaxFunctions(const IRModule& mod,
                                     const std::function<Function(const GlobalVar&, const Function&)>& rewrite) {
  IRModule result = mod.ShallowCopy();
  for (const auto& [gv, func] : mod->functions.items()) {
    const auto* relax_func = func.as<FunctionNode>();
    if (relax_func == nullptr) continue;
    Function updated = rewrite(gv, GetRef<Function>(relax_func));
    if (!updated.same_as(func)) result.mutable_node()->Update(gv, updated);
  }
  return result;
}

// Hash and equality of IR by structure (StructuralHash / StructuralEqual),
// for maps keyed by expressions, struct infos or functions.
struct StructuralKeyHash {
  size_t operator()(const ObjectRef& key) const { return static_cast<size_t>(StructuralHash(Any(key))); }
};
struct StructuralKeyEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const { return StructuralEqual(Any(a), Any(b)); }
};

// Whether evaluating `value` may have an effect besides its result (defined
// in dead_code_elimination.cc; also read by EliminateCommonSubexpr).
bool HasSideEffect(const RelaxExpr& value);

// The GlobalVars that some Relax function of `mod` uses other than as the
// callee of a call (passed or bound as a value): their signatures must stay.
// Defined in remove_unused_parameters.cc.
std::unordered_set<const Object*> GlobalVarsUsedAsValue(const IRModule& mod);

// Rewrites the signatures of the private Relax functions of `mod` (no
// "global_symbol") that no function uses as a value, so that every call of
// them is visible: `rewrite(gv, func)` returns the new function, or nullopt
// to keep it. Returns a copy of `mod` in which each new function (normalized)
// is bound to a new GlobalVar of the same name, recorded in `renamed` (the
// input module's GlobalVars, whose struct info is the old signature, are left
// alone); the caller then points the calls at the new GlobalVars.
inline IRModule RewritePrivateFunctions(
    const IRModule& mod, const std::function<std::optional<Function>(const GlobalVar&, const Function&)>& rewrite,
    std::unordered_map<const Object*, GlobalVar>* renamed) {
  std::unordered_set<const Object*> used_as_value = GlobalVarsUsedAsValue(mod);
  IRModule result = mod.ShallowCopy();
  for (const auto& [gv, base] : mod->functions.items()) {
    const auto* func = base.as<FunctionNode>();
    if (func == nullptr || func->attrs.Get("global_symbol") || used_as_value.count(gv.get())) continue;
    if (auto updated = rewrite(gv, GetRef<Function>(func))) {
      GlobalVar fresh(gv->name_hint, gv->span);
      result.mutable_node()->Remove(gv);
      result.mutable_node()->Add(fresh, Downcast<Function>(BlockBuilder::Create(result)->Normalize(*updated)));
      (*renamed)[gv.get()] = fresh;
    }
  }
  return result;
}

// `bindings` as one dataflow block in which every var not in `outputs`
// becomes a DataflowVar of the same name and struct info (later uses in the
// block follow). Defined in convert_to_dataflow.cc; CanonicalizeBindings
// uses it to turn outputs nothing reads after their block into DataflowVars.
DataflowBlock AsDataflowBlock(const Array<Binding>& bindings, const std::unordered_set<const Object*>& outputs);

// An ExprMutator that records the name of the variable each visited binding
// defines, so that a pass's errors can say "bound to 'lv1'".
class BindingNamingMutator : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;
  using ExprMutator::VisitExpr_;

  void VisitBinding_(const VarBindingNode* binding) override {
    bound_to_ = binding->var->name_hint;
    ExprMutator::VisitBinding_(binding);
  }

 protected:
  std::string bound_to_;  // the var of the binding being visited
};

}  // namespace relax
}  // namespace tessera
