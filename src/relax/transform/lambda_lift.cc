// LambdaLift (relax.transform.LambdaLift): every local function (a binding
// `f = R.function ...` inside a Relax function, nested ones included) becomes
// a private module function named `<outer>_<f>` (made unique); calls `f(args)`
// call it directly. Variables the local function captures become trailing
// parameters, passed at each call (recursive calls too), instead of TVM's
// closures (R.make_closure / invoke_closure are not Tessera ops yet); a
// capturing function used other than as a callee is refused.
#include <unordered_set>

#include "relax/expr_functor.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// The relax vars `func` reads without defining them, in order of first use.
std::vector<Var> FreeVars(const Function& func) {
  class Finder : public ExprVisitor {
   public:
    using ExprVisitor::VisitExpr_;
    std::unordered_set<const Object*> defined, seen;
    std::vector<Var> order;
    void VisitVarDef_(const VarNode* v) override { defined.insert(v); }
    void VisitVarDef_(const DataflowVarNode* v) override { defined.insert(v); }
    void VisitExpr_(const VarNode* v) override { Use(v); }
    void VisitExpr_(const DataflowVarNode* v) override { Use(v); }
    void Use(const VarNode* v) {
      if (seen.insert(v).second) order.push_back(GetRef<Var>(v));
    }
  };
  Finder finder;
  finder.VisitExpr(func);
  std::vector<Var> free;
  for (const Var& v : finder.order) {
    if (!finder.defined.count(v.get())) free.push_back(v);
  }
  return free;
}

class LambdaLifter : public ExprMutator {
 public:
  LambdaLifter(IRModule mod, std::string outer, std::unordered_set<std::string>* taken)
      : ExprMutator(mod), outer_(std::move(outer)), taken_(taken) {}
  using ExprMutator::VisitExpr_;
  using ExprMutator::VisitBinding_;

  std::vector<std::pair<GlobalVar, Function>> lifted_functions;

  void VisitBinding_(const VarBindingNode* binding) override {
    const auto* fn = binding->value.as<FunctionNode>();
    if (fn == nullptr) {
      ExprMutator::VisitBinding_(binding);
      return;
    }
    // Captures: free vars of the local function, those of local functions it calls included.
    std::vector<Var> captured;
    std::unordered_set<const Object*> have;
    for (const Var& v : FreeVars(GetRef<Function>(fn))) {
      if (v.same_as(binding->var)) continue;  // a recursive call
      auto it = lifted_.find(v.get());
      const std::vector<Var>& vs = it == lifted_.end() ? std::vector<Var>{v} : it->second.captured;
      for (const Var& c : vs) {
        if (have.insert(c.get()).second) captured.push_back(c);
      }
    }
    const std::string name = UniqueName(outer_ + "_" + binding->var->name_hint);
    GlobalVar gv(name);
    Array<Var> params = fn->params;
    std::vector<std::pair<const Object*, std::optional<Var>>> saved;
    for (const Var& c : captured) {
      Var fresh(c->name_hint, GetStructInfo(c), c->span);
      params.push_back(fresh);
      auto old = var_remap_.find(c.get());
      saved.emplace_back(c.get(), old == var_remap_.end() ? std::nullopt : std::optional<Var>(old->second));
      var_remap_[c.get()] = fresh;
    }
    // The GlobalVar's signature is needed by the calls in the body (recursion).
    Array<StructInfo> param_sinfo;
    for (const Var& p : params) param_sinfo.push_back(GetStructInfo(p));
    const auto* finfo = GetStructInfo(GetRef<Function>(fn)).as<FuncStructInfoNode>();
    gv->struct_info_ = FuncStructInfo(param_sinfo, finfo->ret, fn->is_pure);
    lifted_[binding->var.get()] = Lifted{gv, captured};

    RelaxExpr body;
    try {
      body = VisitWithNewScope(fn->body, params);
    } catch (...) {
      Restore(saved);
      throw;
    }
    Restore(saved);
    Function lifted(params, body, fn->ret_struct_info, fn->is_pure, fn->attrs, fn->span);
    lifted_functions.emplace_back(gv, lifted);
    // The binding goes: uses of the local function now use `gv`.
  }

  RelaxExpr VisitExpr_(const CallNode* op) override {
    auto it = lifted_.find(op->op.get());
    if (it == lifted_.end()) return ExprMutator::VisitExpr_(op);
    Array<RelaxExpr> args;
    for (const RelaxExpr& a : op->args) args.push_back(VisitExpr(a));
    for (const Var& c : it->second.captured) args.push_back(VisitExpr(c));
    return Call(it->second.gv, args, op->attrs, op->sinfo_args, op->span);
  }
  RelaxExpr VisitExpr_(const VarNode* op) override { return UseAsValue(op); }
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override { return UseAsValue(op); }

 private:
  struct Lifted {
    GlobalVar gv;
    std::vector<Var> captured;  // vars of the enclosing function, in parameter order
  };

  RelaxExpr UseAsValue(const VarNode* op) {
    auto it = lifted_.find(op);
    if (it == lifted_.end()) return ExprMutator::VisitExpr_(op);
    if (!it->second.captured.empty()) {
      std::string names;
      for (const Var& c : it->second.captured) names += (names.empty() ? "'" : ", '") + c->name_hint + "'";
      TESSERA_THROW(NotImplementedError)
          << "LambdaLift: local function '" << op->name_hint << "' in '" << outer_ << "' captures " << names
          << " and is used as a value (not only called); lifting it needs a closure (R.make_closure), which "
             "Tessera does not support yet";
    }
    return it->second.gv;
  }

  void Restore(const std::vector<std::pair<const Object*, std::optional<Var>>>& saved) {
    for (const auto& [key, old] : saved) {
      if (old) {
        var_remap_[key] = *old;
      } else {
        var_remap_.erase(key);
      }
    }
  }

  std::string UniqueName(const std::string& base) {
    std::string name = base;
    for (int i = 0; taken_->count(name); ++i) name = base + "_" + std::to_string(i);
    taken_->insert(name);
    return name;
  }

  std::string outer_;
  std::unordered_set<std::string>* taken_;
  std::unordered_map<const Object*, Lifted> lifted_;
};

bool HasLocalFunction(const Function& func) {
  bool found = false;
  PostOrderVisit(func->body, [&](const RelaxExpr& e) { found |= e->IsInstance<FunctionNode>(); });
  return found;
}

}  // namespace

namespace transform {

Pass LambdaLift() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        std::unordered_set<std::string> taken;
        for (const auto& [gv, f] : mod->functions.items()) taken.insert(gv->name_hint);
        IRModule result = mod.ShallowCopy();
        std::vector<std::pair<GlobalVar, Function>> added;
        bool changed = false;
        for (const auto& [gv, base] : mod->functions.items()) {
          const auto* func = base.as<FunctionNode>();
          if (func == nullptr || !HasLocalFunction(GetRef<Function>(func))) continue;
          LambdaLifter lifter(result, gv->name_hint, &taken);
          Function updated = Downcast<Function>(lifter.VisitExpr(GetRef<Function>(func)));
          result.mutable_node()->Update(gv, updated);
          for (auto& entry : lifter.lifted_functions) added.push_back(std::move(entry));
          changed = true;
        }
        if (!changed) return mod;
        for (const auto& [gv, func] : added) {
          result.mutable_node()->Add(gv, Downcast<Function>(BlockBuilder::Create(result)->Normalize(func)));
        }
        return result;
      },
      0, "LambdaLift");
}
TESSERA_REGISTER_PASS("relax.transform.LambdaLift", LambdaLift);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
