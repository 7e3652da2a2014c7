// RemoveUnusedParameters (relax.transform.RemoveUnusedParameters): a private
// Relax function (no "global_symbol") whose every use is a direct call loses
// the parameters its body never reads, provided the symbolic dims they
// define are also defined by a parameter that stays; every call site drops
// the matching arguments. Exposed functions keep their signatures.
#include <unordered_set>

#include "relax/expr_functor.h"
#include "relax/transform/definable_dims.h"
#include "relax/transform/function_pass.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {

// GlobalVarsUsedAsValue (utils.h).
std::unordered_set<const Object*> GlobalVarsUsedAsValue(const IRModule& mod) {
  class Finder : public ExprVisitor {
   public:
    using ExprVisitor::VisitExpr_;
    std::unordered_set<const Object*> found;
    void VisitExpr_(const GlobalVarNode* gv) override { found.insert(gv); }
    void VisitExpr_(const CallNode* call) override {
      if (!call->op->IsInstance<GlobalVarNode>()) VisitExpr(call->op);
      for (const RelaxExpr& a : call->args) VisitExpr(a);
    }
  };
  Finder finder;
  for (const auto& [gv, func] : mod->functions.items()) {
    if (func->IsInstance<FunctionNode>()) finder.VisitExpr(Downcast<Function>(func));
  }
  return finder.found;
}

namespace {

// The indices of `func`'s parameters to keep (all when nothing can go).
std::vector<size_t> KeptParams(const Function& func) {
  std::unordered_set<const Object*> used;
  PostOrderVisit(func->body, [&](const RelaxExpr& e) {
    if (e->IsInstance<VarNode>()) used.insert(e.get());
  });
  std::vector<bool> keep(func->params.size(), true);
  for (size_t i = 0; i < func->params.size(); ++i) keep[i] = used.count(func->params[i].get()) > 0;
  // An unused parameter stays when a symbolic dim it defines (a whole dimension of it, as n of
  // (n, 4) or R.Shape([n]); not n of (n * 2, 4)) is defined by no kept parameter.
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_set<const Object*> defined;
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) CollectDefinableDims(GetStructInfo(func->params[i]), &defined);
    }
    for (size_t i = 0; i < keep.size(); ++i) {
      if (keep[i]) continue;
      std::unordered_set<const Object*> own;
      CollectDefinableDims(GetStructInfo(func->params[i]), &own);
      for (const Object* v : own) {
        if (!defined.count(v)) {
          keep[i] = true;
          changed = true;
          break;
        }
      }
    }
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i]) kept.push_back(i);
  }
  return kept;
}

// Calls of the rewritten functions pass only the kept arguments.
class CallSiteUpdater : public ExprMutator {
 public:
  CallSiteUpdater(IRModule mod, const std::unordered_map<const Object*, std::vector<size_t>>& kept,
                  const std::unordered_map<const Object*, size_t>& arity,
                  const std::unordered_map<const Object*, GlobalVar>& renamed)
      : ExprMutator(mod), kept_(kept), arity_(arity), renamed_(renamed) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr visited = ExprMutator::VisitExpr_(op);
    const auto* call = visited.as<CallNode>();
    auto it = call == nullptr ? kept_.end() : kept_.find(call->op.get());
    if (it == kept_.end()) return visited;
    auto arity = arity_.find(call->op.get());
    TESSERA_CHECK_OR_THROW(call->args.size() == arity->second, ValueError)
        << "RemoveUnusedParameters: a call of '" << Downcast<GlobalVar>(call->op)->name_hint << "' passes "
        << call->args.size() << " arguments; the function takes " << arity->second;
    Array<RelaxExpr> args;
    for (size_t i : it->second) args.push_back(call->args[i]);
    return Call(renamed_.at(call->op.get()), args, call->attrs, call->sinfo_args, call->span);
  }

 private:
  const std::unordered_map<const Object*, std::vector<size_t>>& kept_;
  const std::unordered_map<const Object*, GlobalVar>& renamed_;
  const std::unordered_map<const Object*, size_t>& arity_;  // parameter count before the pass
};

}  // namespace

namespace transform {

Pass RemoveUnusedParameters() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        std::unordered_map<const Object*, std::vector<size_t>> kept;
        std::unordered_map<const Object*, size_t> arity;
        std::unordered_map<const Object*, GlobalVar> renamed;
        IRModule result = RewritePrivateFunctions(mod, [&](const GlobalVar& gv, const Function& func)
                                                           -> std::optional<Function> {
          std::vector<size_t> keep = KeptParams(func);
          if (keep.size() == func->params.size()) return std::nullopt;
          Array<Var> params;
          for (size_t i : keep) params.push_back(func->params[i]);
          kept[gv.get()] = std::move(keep);
          arity[gv.get()] = func->params.size();
          return Function(params, func->body, func->ret_struct_info, func->is_pure, func->attrs, func->span);
        }, &renamed);
        if (kept.empty()) return mod;
        return UpdateRelaxFunctions(result, [&](const GlobalVar&, const Function& f) {
          return Downcast<Function>(CallSiteUpdater(result, kept, arity, renamed).VisitExpr(f));
        });
      },
      0, "RemoveUnusedParameters");
}
TESSERA_REGISTER_PASS("relax.transform.RemoveUnusedParameters", RemoveUnusedParameters);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
