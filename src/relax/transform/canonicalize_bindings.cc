// CanonicalizeBindings (relax.transform.CanonicalizeBindings): removes
// bindings that only rename a value (`y = x`, a match_cast to the struct info
// the value already has, `w = t[i]` of a tuple literal `t`, a tuple rebuilt
// from every field of a tuple var in order) and renames their
// uses; an output var bound to a dataflow var takes over that var's binding;
// outputs nothing reads after their block become DataflowVars; the return
// struct info follows a body that became more precise; uses of a var bound to
// a constant read the constant. First an analysis
// collects the renamings, then one mutation applies them.
#include <unordered_map>
#include <unordered_set>

#include "ir/structural_equal.h"
#include "relax/expr_functor.h"
#include "relax/transform/function_pass.h"
#include "relax/transform/optimization.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// Which bindings are copies, and what each copied var stands for.
class CopyFinder : public ExprVisitor {
 public:
  using ExprVisitor::VisitBinding_;

  void VisitBinding_(const VarBindingNode* binding) override {
    ExprVisitor::VisitBinding_(binding);
    if (const auto* tuple = binding->value.as<TupleNode>()) tuples_[binding->var.get()] = tuple;
    if (const auto* item = binding->value.as<TupleGetItemNode>()) {
      if (const auto* tv = item->tuple.as<VarNode>()) items_[binding->var.get()] = {Resolve(GetRef<Var>(tv)), item->index};
    }
    if (auto constant = BoundConstant(binding->value)) constants_[binding->var.get()] = *constant;
    // `(t[0], t[1], ..., t[k-1])` over every field of a tuple var `t`, in order, is `t` itself.
    if (auto source = RebuiltTuple(binding->value)) {
      Alias(binding->var, *source);
      return;
    }
    // (A copy annotated with looser struct info, `z: R.Object = x`, goes too, as in TVM:
    // re-emitting it would refine `z` to `x`'s struct info anyway.)
    if (auto source = CopiedVar(binding->value)) Alias(binding->var, *source);
  }

  void VisitBinding_(const MatchCastNode* binding) override {
    ExprVisitor::VisitBinding_(binding);
    const auto* value = binding->value.as<VarNode>();
    if (value == nullptr) return;
    Var source = Resolve(GetRef<Var>(value));
    StructInfo have = GetStructInfo(source);
    // A cast to what the value already is, or to a supertype that defines no symbolic dim.
    bool trivial = StructuralEqual(Any(binding->struct_info), Any(have)) ||
                   (TIRVarsInStructInfo(binding->struct_info).empty() && IsBaseOf(binding->struct_info, have));
    if (trivial) Alias(binding->var, source);
  }

  // The var each removed var stands for, resolved through chains.
  Var Resolve(Var v) const {
    for (auto it = alias_.find(v.get()); it != alias_.end(); it = alias_.find(v.get())) v = it->second;
    return v;
  }

  std::unordered_map<const Object*, Var> alias_;            // var -> the var it copies
  std::unordered_map<const Object*, Var> take_over_;        // dataflow var -> output var defined in its place
  std::unordered_set<const Object*> dropped_;               // vars whose binding disappears
  std::unordered_map<const Object*, RelaxExpr> constants_;  // var -> the constant it is bound to (as input)

 private:
  // A Constant, or `t[i]` of a tuple literal `t` whose field i is one (ConstantUseInliner).
  std::optional<RelaxExpr> BoundConstant(const RelaxExpr& value) const {
    RelaxExpr v = value;
    if (const auto* item = value.as<TupleGetItemNode>()) {
      auto it = tuples_.find(item->tuple.get());
      if (it == tuples_.end() || item->index < 0 || item->index >= static_cast<int>(it->second->fields.size())) {
        return std::nullopt;
      }
      v = it->second->fields[item->index];
    }
    return v->IsInstance<ConstantNode>() ? std::optional<RelaxExpr>(v) : std::nullopt;
  }

  std::optional<Var> CopiedVar(const RelaxExpr& value) const {
    if (const auto* v = value.as<VarNode>()) return Resolve(GetRef<Var>(v));
    if (const auto* item = value.as<TupleGetItemNode>()) {
      const auto* tv = item->tuple.as<VarNode>();
      if (tv == nullptr) return std::nullopt;
      auto it = tuples_.find(Resolve(GetRef<Var>(tv)).get());
      if (it == tuples_.end() || item->index < 0 || item->index >= static_cast<int>(it->second->fields.size())) {
        return std::nullopt;
      }
      if (const auto* field = it->second->fields[item->index].as<VarNode>()) return Resolve(GetRef<Var>(field));
    }
    return std::nullopt;
  }

  std::optional<Var> RebuiltTuple(const RelaxExpr& value) const {
    const auto* tuple = value.as<TupleNode>();
    if (tuple == nullptr || tuple->fields.empty()) return std::nullopt;
    std::optional<Var> source;
    for (size_t i = 0; i < tuple->fields.size(); ++i) {
      const auto* field = tuple->fields[i].as<VarNode>();
      if (field == nullptr) return std::nullopt;
      auto it = items_.find(Resolve(GetRef<Var>(field)).get());
      if (it == items_.end() || it->second.second != static_cast<int>(i)) return std::nullopt;
      if (source && !source->same_as(it->second.first)) return std::nullopt;
      source = it->second.first;
    }
    const auto* sinfo = GetStructInfo(*source).as<TupleStructInfoNode>();
    if (sinfo == nullptr || sinfo->fields.size() != tuple->fields.size()) return std::nullopt;
    return source;
  }

  void Alias(const Var& var, const Var& source) {
    dropped_.insert(var.get());
    if (!var->IsInstance<DataflowVarNode>() && source->IsInstance<DataflowVarNode>()) {
      // An output bound to a dataflow var of its block: the output is defined where that var was.
      take_over_[source.get()] = var;
      alias_[source.get()] = var;
      return;
    }
    alias_[var.get()] = source;
  }

  std::unordered_map<const Object*, const TupleNode*> tuples_;
  std::unordered_map<const Object*, std::pair<Var, int>> items_;  // var bound to t[i] -> (t, i)
};

class CopyRemover : public ExprMutator {
 public:
  CopyRemover(IRModule mod, const CopyFinder& found) : ExprMutator(mod), found_(found) {
    for (const auto& [var, source] : found.alias_) var_remap_[var] = found.Resolve(source);
  }

  void VisitBinding_(const VarBindingNode* binding) override {
    if (found_.dropped_.count(binding->var.get())) return;
    ExprMutator::VisitBinding_(binding);
    FollowTakeOver(binding->var);
  }
  void VisitBinding_(const MatchCastNode* binding) override {
    if (found_.dropped_.count(binding->var.get())) return;
    ExprMutator::VisitBinding_(binding);
    FollowTakeOver(binding->var);
  }
  Var VisitVarDef_(const DataflowVarNode* var) override {
    auto it = found_.take_over_.find(var);
    return it == found_.take_over_.end() ? GetRef<Var>(var) : it->second;
  }

 private:
  // When the output var that took over `var`'s binding was re-created with
  // refined struct info, the output's later uses read the new var.
  void FollowTakeOver(const Var& var) {
    auto it = found_.take_over_.find(var.get());
    if (it == found_.take_over_.end()) return;
    auto emitted = var_remap_.find(var.get());
    if (emitted != var_remap_.end() && !emitted->second.same_as(it->second)) {
      var_remap_[it->second.get()] = emitted->second;
    }
  }

  const CopyFinder& found_;
};

// Outputs of a dataflow block that nothing after the block reads become
// DataflowVars (they only served the block, or a copy that was removed).
class OutputDemoter : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const SeqExprNode* op) override {
    RelaxExpr visited = ExprMutator::VisitExpr_(op);
    const auto* seq = visited.as<SeqExprNode>();
    if (seq == nullptr) return visited;
    std::unordered_set<const Object*> used_after;
    auto collect = [&](const RelaxExpr& e) {
      PostOrderVisit(e, [&](const RelaxExpr& n) {
        if (n->IsInstance<VarNode>()) used_after.insert(n.get());
      });
    };
    collect(seq->body);
    Array<BindingBlock> blocks = seq->blocks;
    bool changed = false;
    for (size_t i = blocks.size(); i-- > 0;) {
      const BindingBlock block = blocks[i];
      if (block->IsInstance<DataflowBlockNode>()) {
        bool demote = false;
        for (const Binding& b : block->bindings) {
          demote |= !b->var->IsInstance<DataflowVarNode>() && !used_after.count(b->var.get());
        }
        if (demote) {
          blocks.Set(i, AsDataflowBlock(block->bindings, used_after));
          changed = true;
        }
      }
      for (const Binding& b : block->bindings) {
        if (const auto* vb = b.as<VarBindingNode>()) collect(vb->value);
        if (const auto* mc = b.as<MatchCastNode>()) collect(mc->value);
      }
    }
    if (!changed) return visited;
    return SeqExpr(blocks, seq->body, seq->span);
  }
};

// Uses of a var bound to a constant read the constant itself: `n = R.const(1)`, or `x = t[i]` of a
// tuple literal `t` whose field i is one, as bound in the input (a var that takes over a copied
// constant's binding, `y = R.const(1); n = y`, keeps its uses, as in TVM). The bindings stay
// (dead-code elimination removes them), as do the output marks: which outputs are read after
// their block is decided before (OutputDemoter), as TVM decides it on the input.
class ConstantUseInliner : public ExprMutator {
 public:
  ConstantUseInliner(IRModule mod, std::unordered_map<const Object*, RelaxExpr> constants)
      : ExprMutator(mod), constants_(std::move(constants)) {}
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const VarNode* op) override { return Inline(op, ExprMutator::VisitExpr_(op)); }
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override { return Inline(op, ExprMutator::VisitExpr_(op)); }

 private:
  RelaxExpr Inline(const Object* var, const RelaxExpr& e) const {
    auto it = constants_.find(var);
    return it == constants_.end() ? e : it->second;
  }
  std::unordered_map<const Object*, RelaxExpr> constants_;
};

// When removing copies made the body's struct info more precise (a copy had
// a looser annotation), the function's return struct info follows, provided
// every symbolic dim in it is defined by the parameters.
Function RefineReturn(const Function& func) {
  StructInfo body = GetStructInfo(func->body);
  if (StructuralEqual(Any(body), Any(func->ret_struct_info)) || !IsBaseOf(func->ret_struct_info, body)) return func;
  std::unordered_set<const Object*> defined;
  for (const Var& p : func->params) {
    for (const tir::Var& v : TIRVarsInStructInfo(GetStructInfo(p))) defined.insert(v.get());
  }
  for (const tir::Var& v : TIRVarsInStructInfo(body)) {
    if (!defined.count(v.get())) return func;
  }
  return Function(func->params, func->body, body, func->is_pure, func->attrs, func->span);
}

}  // namespace

namespace transform {

Pass CanonicalizeBindings() {
  return CreateFunctionPass(
      [](Function func, IRModule mod, PassContext) {
        CopyFinder finder;
        finder.VisitExpr(func);
        Function out = func;
        if (!finder.dropped_.empty()) out = Downcast<Function>(CopyRemover(mod, finder).VisitExpr(func));
        out = Downcast<Function>(OutputDemoter(mod).VisitExpr(out));
        std::unordered_map<const Object*, RelaxExpr> constants = finder.constants_;
        for (const Object* dropped : finder.dropped_) constants.erase(dropped);
        for (const auto& [source, var] : finder.take_over_) constants.erase(var.get());
        if (!constants.empty()) out = Downcast<Function>(ConstantUseInliner(mod, constants).VisitExpr(out));
        return out.same_as(func) ? out : RefineReturn(out);
      },
      1, "CanonicalizeBindings");
}
TESSERA_REGISTER_PASS("relax.transform.CanonicalizeBindings", CanonicalizeBindings);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
