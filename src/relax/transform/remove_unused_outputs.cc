// RemoveUnusedOutputs (relax.transform.RemoveUnusedOutputs): a private Relax
// function returning a tuple literal, whose every call is bound to a var read
// only through `var[i]`, returns only the elements some caller reads (the
// element itself when one is left); callers' indices follow, and the
// function's bindings that fed only the dropped elements are removed.
#include <map>
#include <set>
#include <unordered_set>

#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// Which tuple elements of each private function's result the callers read.
class OutputUseFinder : public ExprVisitor {
 public:
  using ExprVisitor::VisitExpr_;
  using ExprVisitor::VisitBinding_;

  void VisitBinding_(const VarBindingNode* binding) override {
    const auto* call = binding->value.as<CallNode>();
    if (call != nullptr && call->op->IsInstance<GlobalVarNode>()) {
      results_[binding->var.get()] = call->op.get();
      used_[call->op.get()];  // called at least once
      for (const RelaxExpr& a : call->args) VisitExpr(a);
      return;
    }
    ExprVisitor::VisitBinding_(binding);
  }
  void VisitExpr_(const CallNode* call) override {
    // A call not bound to a var (or a GlobalVar used as a value): its whole result is used.
    if (call->op->IsInstance<GlobalVarNode>()) whole_.insert(call->op.get());
    ExprVisitor::VisitExpr_(call);
  }
  void VisitExpr_(const GlobalVarNode* gv) override { whole_.insert(gv); }
  void VisitExpr_(const TupleGetItemNode* item) override {
    auto it = results_.find(item->tuple.get());
    if (it == results_.end()) {
      ExprVisitor::VisitExpr_(item);
      return;
    }
    used_[it->second].insert(item->index);
  }
  void VisitExpr_(const VarNode* var) override { MarkWhole(var); }
  void VisitExpr_(const DataflowVarNode* var) override { MarkWhole(var); }

  std::unordered_map<const Object*, const Object*> results_;  // call-result var -> callee
  std::unordered_map<const Object*, std::set<int>> used_;       // callee -> element indices read
  std::unordered_set<const Object*> whole_;                     // callees whose whole result is used

 private:
  void MarkWhole(const Object* var) {
    auto it = results_.find(var);
    if (it != results_.end()) whole_.insert(it->second);
  }
};

// Callers read the remaining elements at their new positions.
class IndexUpdater : public ExprMutator {
 public:
  IndexUpdater(IRModule mod, const std::unordered_map<const Object*, const Object*>& results,
               const std::unordered_map<const Object*, std::map<int, int>>& new_index,
               const std::unordered_map<const Object*, GlobalVar>& renamed)
      : ExprMutator(mod), results_(results), new_index_(new_index), renamed_(renamed) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr visited = ExprMutator::VisitExpr_(op);
    const auto* call = visited.as<CallNode>();
    if (call == nullptr || !new_index_.count(call->op.get())) return visited;
    // A call of the new GlobalVar: its struct info is inferred from the new signature.
    return Call(renamed_.at(call->op.get()), call->args, call->attrs, call->sinfo_args, call->span);
  }

  RelaxExpr VisitExpr_(const TupleGetItemNode* item) override {
    auto callee = results_.find(item->tuple.get());
    auto remap = callee == results_.end() ? new_index_.end() : new_index_.find(callee->second);
    if (remap == new_index_.end()) return ExprMutator::VisitExpr_(item);
    RelaxExpr tuple = VisitExpr(item->tuple);
    if (remap->second.size() == 1) return tuple;  // the function now returns that element itself
    return TupleGetItem(tuple, remap->second.at(item->index), item->span);
  }

 private:
  const std::unordered_map<const Object*, const Object*>& results_;
  const std::unordered_map<const Object*, std::map<int, int>>& new_index_;
  const std::unordered_map<const Object*, GlobalVar>& renamed_;
};

}  // namespace

namespace transform {

Pass RemoveUnusedOutputs() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        OutputUseFinder finder;
        for (const auto& [gv, func] : mod->functions.items()) {
          if (func->IsInstance<FunctionNode>()) finder.VisitExpr(Downcast<Function>(func));
        }
        std::unordered_map<const Object*, std::map<int, int>> new_index;
        std::unordered_map<const Object*, GlobalVar> renamed;
        IRModule result = RewritePrivateFunctions(mod, [&](const GlobalVar& gv, const Function& func)
                                                           -> std::optional<Function> {
          auto used = finder.used_.find(gv.get());
          const auto* seq = func->body.as<SeqExprNode>();
          const auto* tuple = seq == nullptr ? nullptr : seq->body.as<TupleNode>();
          if (finder.whole_.count(gv.get()) || used == finder.used_.end() || used->second.empty() ||
              tuple == nullptr || used->second.size() == tuple->fields.size()) {
            return std::nullopt;
          }
          std::map<int, int> positions;
          Array<RelaxExpr> fields;
          for (int i : used->second) {
            positions[i] = static_cast<int>(fields.size());
            fields.push_back(tuple->fields[i]);
          }
          new_index[gv.get()] = std::move(positions);
          RelaxExpr body = fields.size() == 1 ? fields[0] : RelaxExpr(Tuple(fields, tuple->span));
          Function updated(func->params, SeqExpr(seq->blocks, body, seq->span), std::nullopt, func->is_pure,
                           func->attrs, func->span);
          // The bindings that fed only the dropped elements go.
          return RemoveAllUnused(Downcast<Function>(BlockBuilder::Create(mod)->Normalize(updated)));
        }, &renamed);
        if (new_index.empty()) return mod;
        return UpdateRelaxFunctions(result, [&](const GlobalVar&, const Function& f) {
          return Downcast<Function>(IndexUpdater(result, finder.results_, new_index, renamed).VisitExpr(f));
        });
      },
      0, "RemoveUnusedOutputs");
}
TESSERA_REGISTER_PASS("relax.transform.RemoveUnusedOutputs", RemoveUnusedOutputs);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
