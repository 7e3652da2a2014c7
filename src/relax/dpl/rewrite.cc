// RewriteCall (rewrite.h): an ExprMutator whose bindings are offered to the
// indexed patterns; the Python entry relax.dpl.rewrite_call wraps a callable.
#include "relax/dpl/rewrite.h"

#include "ir/structural_equal.h"
#include "relax/dpl/root_index.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace dpl {

void CheckReplacementStructInfo(const RelaxExpr& original, const RelaxExpr& replacement, const std::string& what) {
  StructInfo before = GetStructInfo(original), after = GetStructInfo(replacement);
  bool ok = StructInfoBaseCheck(before, after) != BaseCheckResult::kFailL0;
  const auto* a = before.as<TensorStructInfoNode>();
  const auto* b = after.as<TensorStructInfoNode>();
  auto da = a ? a->GetShape() : std::nullopt, db = b ? b->GetShape() : std::nullopt;
  if (ok && da && db && da->size() == db->size()) {
    for (size_t i = 0; i < da->size(); ++i) {
      PrimExpr dim_a = (*da)[i], dim_b = (*db)[i];
      const int64_t *x = AsConstInt(dim_a), *y = AsConstInt(dim_b);
      ok &= !(x && y && *x != *y);
    }
  }
  TESSERA_CHECK_OR_THROW(ok, ValueError) << what << " was replaced by a value of struct info " << StructInfoText(after)
                                         << ", which contradicts its struct info " << StructInfoText(before);
}

namespace {

class CallRewriteMutator : public ExprMutator {
 public:
  CallRewriteMutator(const std::vector<DFPattern>& patterns, const CallRewriter& rewriter)
      : patterns_(patterns), rewriter_(rewriter) {
    for (size_t i = 0; i < patterns.size(); ++i) index_.Add(static_cast<int>(i), patterns[i]);
  }
  bool changed = false;

  using ExprMutator::VisitBinding_;
  void VisitBinding_(const VarBindingNode* binding) override {
    RelaxExpr value = VisitExpr(binding->value);
    if (auto out = TryRewrite(binding, value)) {
      changed = true;
      value = *out;
      // y = x: use x for y, unless that would let a dataflow var escape its block.
      if (value.as<VarNode>() && (binding->var.as<DataflowVarNode>() || !value.as<DataflowVarNode>())) {
        var_remap_[binding->var.get()] = Downcast<Var>(value);
        return;
      }
    }
    ReEmitBinding(binding, value);
  }

 private:
  std::optional<RelaxExpr> TryRewrite(const VarBindingNode* binding, const RelaxExpr& value) {
    for (int id : index_.Candidates(value)) {
      PatternMatcher matcher([this](const Var& v) { return builder_->LookupBinding(v); });
      if (!matcher.Match(patterns_[id], value)) continue;
      RelaxExpr out = rewriter_(patterns_[id], value, matcher.Matched());
      if (out.same_as(value)) continue;
      out = builder_->Normalize(out);
      CheckReplacementStructInfo(value, out, "binding '" + binding->var->name_hint + "'");
      if (StructuralEqual(out, value)) continue;
      return out;
    }
    return std::nullopt;
  }

  const std::vector<DFPattern>& patterns_;
  const CallRewriter& rewriter_;
  RootOpIndex index_;
};

constexpr int kMaxRounds = 1000;

// `out = dv` where dv is a dataflow var of the same block used only there: dv's binding binds `out`
// instead (TVM's CanonicalizeBindings rule for the trivial bindings a rewrite leaves at block outputs).
Function FoldOutputAliases(const Function& func) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (!seq) return func;
  std::unordered_map<const Object*, int> uses;
  PostOrderVisit(func->body, [&](const RelaxExpr& e) {
    if (e.as<VarNode>()) ++uses[e.get()];
  });
  Array<BindingBlock> blocks;
  bool changed = false;
  for (const BindingBlock& block : seq->blocks) {
    std::unordered_map<const Object*, Var> rename;  // dataflow var -> the output var taking its place
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      const auto* dv = vb ? vb->value.as<DataflowVarNode>() : nullptr;
      if (dv && !b->var.as<DataflowVarNode>() && uses[dv] == 1) rename[dv] = b->var;
    }
    if (rename.empty() || !block.as<DataflowBlockNode>()) {
      blocks.push_back(block);
      continue;
    }
    Array<Binding> out;
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      if (vb && vb->value.as<DataflowVarNode>() && rename.count(vb->value.get())) continue;
      auto it = rename.find(b->var.get());
      if (it != rename.end() && vb && StructuralEqual(GetStructInfo(it->second), GetStructInfo(b->var))) {
        out.push_back(VarBinding(it->second, vb->value, b->span));
      } else if (it != rename.end()) {
        out.push_back(b);
        out.push_back(VarBinding(it->second, b->var, b->span));
      } else {
        out.push_back(b);
      }
    }
    changed = true;
    blocks.push_back(DataflowBlock(out, block->span));
  }
  if (!changed) return func;
  return Function(func->params, SeqExpr(blocks, seq->body, seq->span), func->ret_struct_info, func->is_pure,
                  func->attrs, func->span);
}

}  // namespace

Function RewriteCall(const std::vector<DFPattern>& patterns, const CallRewriter& rewriter, const Function& func) {
  Function current = func;
  for (int round = 0; round < kMaxRounds; ++round) {
    CallRewriteMutator mutator(patterns, rewriter);
    Function next = Downcast<Function>(mutator.VisitExpr(current));
    if (!mutator.changed) return round == 0 ? func : FoldOutputAliases(current);
    current = RemoveAllUnused(next);
  }
  TESSERA_THROW(ValueError) << "rewrite_call: no fixed point after " << kMaxRounds << " rounds of rewriting with "
                            << PatternText(patterns.front()) << " (the rewriter keeps producing new matches)";
}

TESSERA_REGISTER_GLOBAL("relax.dpl.rewrite_call").set_body_typed([](DFPattern pattern, PackedFunc f, Function func) {
  CallRewriter rewriter = [f](const DFPattern&, const RelaxExpr& call, const Map<DFPattern, RelaxExpr>& matches) {
    Any r = f(call, matches);
    auto out = r.is_none() ? std::nullopt : r.try_cast<RelaxExpr>();
    TESSERA_CHECK_OR_THROW(out.has_value(), TypeError)
        << "rewrite_call: the rewriter must return a relax Expr, got " << (r.is_none() ? "None" : r.type_name())
        << " for " << ExprKindName(call);
    return *out;
  };
  return RewriteCall({pattern}, rewriter, func);
});

}  // namespace dpl
}  // namespace relax
}  // namespace tessera
