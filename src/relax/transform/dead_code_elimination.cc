// Dead code elimination for Relax. RemoveAllUnused(func) (Python
// relax.analysis.remove_all_unused) drops every binding whose var is never
// used and whose value has no side effect (no impure op, packed call, PrimFunc
// call or call of an impure function), in nested SeqExprs too; match_casts
// that define symbolic dims are kept. DeadCodeElimination(entry_functions)
// does that to every Relax function (and turns `lv = v; gv = lv` into
// `gv = v` when nothing else uses the dataflow var lv, as TVM), then removes the
// functions not reachable from the entries (those with a "global_symbol",
// ExternFuncs, plus `entry_functions`; every Relax function when none has a
// "global_symbol"). In relax.build's pipeline.
#include <unordered_set>

#include "ir/structural_equal.h"
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"
#include "runtime/registry.h"
#include "runtime/stack_guard.h"
#include "tir/function.h"

namespace tessera {
namespace relax {
// HasSideEffect (utils.h): an impure op, packed call, PrimFunc call or call of an
// impure function anywhere in `value` (calls inside local functions only count
// when those are called).
bool HasSideEffect(const RelaxExpr& value) {
  class Finder : public ExprVisitor {
   public:
    bool found = false;
    void VisitExpr_(const FunctionNode*) override {}
    void VisitExpr_(const CallNode* call) override {
      ExprVisitor::VisitExpr_(call);
      static const OpAttrMap<bool> fpurity = Op::GetAttrMap<bool>("FPurity");
      if (const auto* op = call->op.as<OpNode>()) {
        found |= !fpurity.get(GetRef<Op>(op), false);
      } else if (call->op->IsInstance<ExternFuncNode>()) {
        found = true;
      } else {
        const auto* finfo = call->op->struct_info_.as<FuncStructInfoNode>();
        found |= finfo == nullptr || !finfo->purity;
      }
    }
  };
  Finder f;
  f.VisitExpr(value);
  return f.found;
}

namespace {

void CollectUsedVars(const RelaxExpr& e, std::unordered_set<const Object*>* used) {
  PostOrderVisit(e, [used](const RelaxExpr& n) {
    if (n->IsInstance<VarNode>()) used->insert(n.get());
  });
}

RelaxExpr CleanValue(const RelaxExpr& value);

RelaxExpr CleanSeq(const RelaxExpr& expr) {
  CheckStack("relax expression (dead code elimination)");
  const auto* seq = expr.as<SeqExprNode>();
  if (seq == nullptr) return CleanValue(expr);
  std::unordered_set<const Object*> used;
  CollectUsedVars(seq->body, &used);
  bool changed = false;
  std::vector<BindingBlock> blocks;
  for (size_t bi = seq->blocks.size(); bi-- > 0;) {
    const BindingBlock& block = seq->blocks[bi];
    std::vector<Binding> kept;
    bool block_changed = false;
    for (size_t i = block->bindings.size(); i-- > 0;) {
      const Binding& b = block->bindings[i];
      if (const auto* mc = b.as<MatchCastNode>()) {
        if (used.count(mc->var.get()) || !TIRVarsInStructInfo(mc->struct_info).empty()) {
          kept.push_back(b);
          CollectUsedVars(mc->value, &used);
        } else {
          block_changed = true;
        }
        continue;
      }
      const auto* vb = b.as<VarBindingNode>();
      if (!used.count(vb->var.get()) && !HasSideEffect(vb->value)) {
        block_changed = true;
        continue;
      }
      RelaxExpr value = CleanValue(vb->value);
      if (!value.same_as(vb->value)) {
        block_changed = true;
        kept.push_back(VarBinding(vb->var, value, vb->span));
      } else {
        kept.push_back(b);
      }
      CollectUsedVars(value, &used);
    }
    if (!block_changed) {
      blocks.push_back(block);
      continue;
    }
    changed = true;
    if (kept.empty()) continue;
    Array<Binding> bindings(std::vector<Binding>(kept.rbegin(), kept.rend()));
    blocks.push_back(block->IsInstance<DataflowBlockNode>() ? BindingBlock(DataflowBlock(bindings, block->span))
                                                             : BindingBlock(bindings, block->span));
  }
  if (!changed) return expr;
  SeqExpr out(Array<BindingBlock>(std::vector<BindingBlock>(blocks.rbegin(), blocks.rend())), seq->body, seq->span);
  out->struct_info_ = seq->struct_info_;
  return out;
}

RelaxExpr CleanValue(const RelaxExpr& value) {
  if (const auto* ife = value.as<IfNode>()) {
    RelaxExpr t = CleanSeq(ife->true_branch), f = CleanSeq(ife->false_branch);
    if (t.same_as(ife->true_branch) && f.same_as(ife->false_branch)) return value;
    If out(ife->cond, t, f, ife->span);
    out->struct_info_ = ife->struct_info_;
    return out;
  }
  if (const auto* fn = value.as<FunctionNode>()) {
    RelaxExpr body = CleanSeq(fn->body);
    if (body.same_as(fn->body)) return value;
    Function out(fn->params, body, fn->ret_struct_info, fn->is_pure, fn->attrs, fn->span);
    out->struct_info_ = fn->struct_info_;
    return out;
  }
  return value;
}

// `lv = value; gv = lv` in a dataflow block, where the dataflow var `lv` is
// used nowhere else, becomes `gv = value` (at gv's place), as TVM's dead
// code elimination leaves it. Only top-level blocks of the function body.
Function ElideIntermediates(const Function& func) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (seq == nullptr) return func;
  std::unordered_map<const Object*, int> uses;
  PostOrderVisit(func->body, [&](const RelaxExpr& e) {
    if (e.as<VarNode>()) ++uses[e.get()];
  });
  bool changed = false;
  Array<BindingBlock> blocks;
  for (const BindingBlock& block : seq->blocks) {
    if (!block->IsInstance<DataflowBlockNode>()) {
      blocks.push_back(block);
      continue;
    }
    std::unordered_map<const Object*, RelaxExpr> value_of;  // dataflow var -> its value (VarBindings)
    std::unordered_set<const Object*> elided;
    for (const Binding& b : block->bindings) {
      const auto* vb = b.as<VarBindingNode>();
      if (vb == nullptr) continue;
      if (vb->var->IsInstance<DataflowVarNode>()) value_of[vb->var.get()] = vb->value;
      const auto* src = vb->value.as<DataflowVarNode>();
      if (!vb->var->IsInstance<DataflowVarNode>() && src != nullptr && value_of.count(src) && uses[src] == 1 &&
          StructuralEqual(Any(vb->var->struct_info_), Any(src->struct_info_))) {
        elided.insert(src);
      }
    }
    if (elided.empty()) {
      blocks.push_back(block);
      continue;
    }
    changed = true;
    Array<Binding> bindings;
    for (const Binding& b : block->bindings) {
      if (elided.count(b->var.get())) continue;
      const auto* vb = b.as<VarBindingNode>();
      const auto* src = vb ? vb->value.as<DataflowVarNode>() : nullptr;
      if (src != nullptr && elided.count(src)) {
        bindings.push_back(VarBinding(vb->var, value_of.at(src), vb->span));
      } else {
        bindings.push_back(b);
      }
    }
    blocks.push_back(DataflowBlock(bindings, block->span));
  }
  if (!changed) return func;
  SeqExpr body(blocks, seq->body, seq->span);
  body->struct_info_ = seq->struct_info_;
  Function out(func->params, body, func->ret_struct_info, func->is_pure, func->attrs, func->span);
  out->struct_info_ = func->struct_info_;
  return out;
}

}  // namespace

Function RemoveAllUnused(const Function& func) { return Downcast<Function>(CleanValue(func)); }
Function RemoveUnusedAndIntermediates(const Function& func) { return ElideIntermediates(RemoveAllUnused(func)); }

TESSERA_REGISTER_GLOBAL("relax.analysis.remove_all_unused").set_body_typed([](Function func) {
  return RemoveAllUnused(func);
});

namespace transform {

Pass DeadCodeElimination(Array<String> entry_functions) {
  return tessera::transform::CreateModulePass(
      [entry_functions](IRModule mod, tessera::transform::PassContext) {
        std::vector<GlobalVar> work;
        for (const String& name : entry_functions) {
          auto gv = mod->FindGlobalVar(name);
          TESSERA_CHECK_OR_THROW(gv.has_value(), ValueError)
              << "DeadCodeElimination: entry function '" << std::string(name) << "' is not in the module";
          work.push_back(*gv);
        }
        // Externally visible functions and external (ExternFunc) declarations are kept, as in TVM.
        // A module where no Relax function is marked visible (hand-built functions: relax.build
        // exports them all through AttachGlobalSymbol) keeps every Relax function.
        bool any_visible = false;
        for (const auto& [gv, func] : mod->functions.items()) {
          any_visible |= func->IsInstance<FunctionNode>() && func->attrs.Get("global_symbol").has_value();
        }
        for (const auto& [gv, func] : mod->functions.items()) {
          if (func->attrs.Get("global_symbol") || func->IsInstance<ExternFuncNode>() ||
              (!any_visible && func->IsInstance<FunctionNode>())) {
            work.push_back(gv);
          }
        }
        IRModule result =
            UpdateRelaxFunctions(mod, [](const GlobalVar&, const Function& f) { return RemoveUnusedAndIntermediates(f); });
        // Functions reachable from the entries.
        std::unordered_set<std::string> reachable;
        while (!work.empty()) {
          GlobalVar gv = work.back();
          work.pop_back();
          if (!reachable.insert(gv->name_hint).second) continue;
          auto func = result->functions.Get(gv);
          if (!func || !(*func)->IsInstance<FunctionNode>()) continue;
          PostOrderVisit(*func, [&](const RelaxExpr& e) {
            if (const auto* g = e.as<GlobalVarNode>()) work.push_back(GetRef<GlobalVar>(g));
          });
        }
        for (const auto& [gv, func] : mod->functions.items()) {
          if (!reachable.count(gv->name_hint)) result.mutable_node()->Remove(gv);
        }
        return result;
      },
      1, "DeadCodeElimination");
}
TESSERA_REGISTER_PASS("relax.transform.DeadCodeElimination", [] { return DeadCodeElimination({}); });
TESSERA_REGISTER_GLOBAL("relax.transform.DeadCodeEliminationWith").set_body_typed([](Array<String> entries) {
  return DeadCodeElimination(entries);
});

}  // namespace transform
}  // namespace relax
}  // namespace tessera
