// EliminateCommonSubexpr (relax.transform.EliminateCommonSubexpr): a binding
// whose pure value equals an earlier visible binding's value becomes a
// var-to-var binding, and later uses read the earlier var (CanonicalizeBindings
// and DeadCodeElimination then remove the copy). Scopes follow visibility:
// dataflow vars die with their block, If branches see what precedes the If
// but not each other, local functions start afresh.
#include <functional>
#include <unordered_map>
#include <vector>

#include "relax/expr_functor.h"
#include "relax/transform/function_pass.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// Ops that are pure but whose every call must produce a distinct object.
bool IsAllocation(const RelaxExpr& value) {
  const auto* call = value.as<CallNode>();
  if (call == nullptr) return false;
  const auto* op = call->op.as<OpNode>();
  if (op == nullptr) return false;
  static const char* const kAllocs[] = {"relax.builtin.alloc_tensor", "relax.memory.alloc_storage",
                                        "relax.memory.alloc_tensor", "relax.vm.alloc_storage",
                                        "relax.vm.alloc_tensor"};
  for (const char* name : kAllocs) {
    if (op->name == name) return true;
  }
  return false;
}

class CommonSubexprEliminator : public ExprMutator {
 public:
  CommonSubexprEliminator(IRModule mod, bool call_only) : ExprMutator(mod), call_only_(call_only) {}
  using ExprMutator::VisitExpr_;
  using ExprMutator::VisitBinding_;

  RelaxExpr VisitExpr_(const FunctionNode* op) override {
    // A local function shares nothing with its enclosing function.
    std::vector<Scope> enclosing;
    enclosing.swap(scopes_);
    ScopeFrame restore([&] { scopes_.swap(enclosing); });
    return ExprMutator::VisitExpr_(op);
  }

  RelaxExpr VisitExpr_(const SeqExprNode* op) override {
    // A function body or an If branch: what it binds is invisible after it.
    scopes_.emplace_back();
    ScopeFrame pop([&] { scopes_.pop_back(); });
    return ExprMutator::VisitExpr_(op);
  }

  BindingBlock VisitBindingBlock_(const DataflowBlockNode* block) override {
    scopes_.emplace_back();
    scopes_.back().dataflow = true;
    ScopeFrame pop([&] { scopes_.pop_back(); });
    BindingBlock out = ExprMutator::VisitBindingBlock_(block);
    Scope& inner = scopes_.back();
    // Uses after the block cannot read the block's dataflow vars.
    for (const Object* v : inner.local_remaps) var_remap_.erase(v);
    // The block's values stay reusable after it through its output vars.
    if (scopes_.size() > 1) {
      Scope& outer = scopes_[scopes_.size() - 2];
      for (auto& [key, var] : inner.values) {
        if (!var->IsInstance<DataflowVarNode>()) {
          outer.values.emplace(key, var);
        } else if (auto it = inner.output_aliases.find(key); it != inner.output_aliases.end()) {
          outer.values.emplace(key, it->second);
        }
      }
    }
    return out;
  }

  void VisitBinding_(const VarBindingNode* binding) override {
    RelaxExpr value = VisitExpr(binding->value);
    if (!Mergeable(value)) {
      ReEmitBinding(binding, value);
      return;
    }
    Record(binding->var, value, [&](const RelaxExpr& v) { ReEmitBinding(binding, v); });
  }

  void VisitBinding_(const MatchCastNode* binding) override {
    // A match_cast that defines symbolic vars is kept (its value may still be renamed).
    if (!TIRVarsInStructInfo(binding->struct_info).empty()) {
      ExprMutator::VisitBinding_(binding);
      return;
    }
    RelaxExpr value = VisitExpr(binding->value);
    Array<ObjectRef> key{value, binding->struct_info};
    Record(binding->var, key, [&](const RelaxExpr& v) {
      if (v.same_as(value)) {
        builder_->EmitNormalized(value.same_as(binding->value)
                                     ? GetRef<Binding>(binding)
                                     : MatchCast(binding->var, builder_->NormalizeArgument(value),
                                                 binding->struct_info, binding->span));
      } else {
        builder_->EmitNormalized(VarBinding(binding->var, v, binding->span));
      }
    }, value);
  }

 private:
  // Runs `leave` when the visit of a scope ends, normally or by an exception.
  struct ScopeFrame {
    explicit ScopeFrame(std::function<void()> leave) : leave(std::move(leave)) {}
    ~ScopeFrame() { leave(); }
    std::function<void()> leave;
  };

  struct Scope {
    bool dataflow = false;
    std::unordered_map<ObjectRef, Var, StructuralKeyHash, StructuralKeyEqual> values;
    // For a value first bound to a dataflow var: the first output var bound to it.
    std::unordered_map<ObjectRef, Var, StructuralKeyHash, StructuralKeyEqual> output_aliases;
    std::vector<const Object*> local_remaps;  // remaps to dataflow vars, undone at block end
  };

  bool Mergeable(const RelaxExpr& value) const {
    if (call_only_) {
      if (!value->IsInstance<CallNode>()) return false;
    } else if (!value->IsInstance<CallNode>() && !value->IsInstance<TupleNode>() &&
               !value->IsInstance<TupleGetItemNode>()) {
      return false;  // leaves (vars, constants, shapes, ...), functions and Ifs
    }
    return !HasSideEffect(value) && !IsAllocation(value);
  }

  // Binds `var` through `emit(v)`: v is the earlier var when `key` was seen,
  // else `fresh` (the binding's own value, recorded as `key`'s first binding).
  template <typename Emit>
  void Record(const Var& var, const ObjectRef& key, Emit emit, std::optional<RelaxExpr> fresh = std::nullopt) {
    RelaxExpr value = fresh ? *fresh : Downcast<RelaxExpr>(key);
    if (scopes_.empty()) {
      emit(value);
      return;
    }
    for (size_t i = scopes_.size(); i-- > 0;) {
      auto it = scopes_[i].values.find(key);
      if (it == scopes_[i].values.end()) continue;
      Var earlier = it->second;
      emit(earlier);
      var_remap_[var.get()] = earlier;
      Scope& cur = scopes_.back();
      if (cur.dataflow && earlier->IsInstance<DataflowVarNode>()) {
        cur.local_remaps.push_back(var.get());
        if (!var->IsInstance<DataflowVarNode>()) cur.output_aliases.emplace(key, var);
      }
      return;
    }
    emit(value);
    Var bound = var;
    if (auto it = var_remap_.find(var.get()); it != var_remap_.end()) bound = it->second;  // struct info refined
    scopes_.back().values.emplace(key, bound);
  }

  bool call_only_;
  std::vector<Scope> scopes_;
};

}  // namespace

namespace transform {

Pass EliminateCommonSubexpr(bool call_only) {
  return CreateFunctionPass(
      [call_only](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(CommonSubexprEliminator(mod, call_only).VisitExpr(func));
      },
      1, "EliminateCommonSubexpr");
}
TESSERA_REGISTER_PASS("relax.transform.EliminateCommonSubexpr", [] { return EliminateCommonSubexpr(false); });
TESSERA_REGISTER_GLOBAL("relax.transform.EliminateCommonSubexprWith").set_body_typed([](bool call_only) {
  return EliminateCommonSubexpr(call_only);
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
