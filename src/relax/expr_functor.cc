// ExprVisitor, ExprMutatorBase and ExprMutator (see expr_functor.h).
#include "relax/expr_functor.h"

#include "ir/structural_equal.h"

namespace tessera {
namespace relax {

// ---- ExprVisitor ---------------------------------------------------------------------------

void ExprVisitor::VisitExprDepStructInfoField(const StructInfo& sinfo) {
  CheckStack("relax struct info");
  if (const auto* t = sinfo.as<TensorStructInfoNode>()) {
    if (t->shape) VisitExpr(*t->shape);
  } else if (const auto* tu = sinfo.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : tu->fields) VisitExprDepStructInfoField(f);
  } else if (const auto* s = sinfo.as<ShapeStructInfoNode>()) {
    if (s->values) {
      for (const PrimExpr& v : *s->values) VisitPrimExpr(v);
    }
  } else if (const auto* p = sinfo.as<PrimStructInfoNode>()) {
    if (p->value.defined()) VisitPrimExpr(p->value);
  }
}

void ExprVisitor::VisitExpr_(const ConstantNode* op) { VisitSpan(op->span); }
void ExprVisitor::VisitExpr_(const TupleNode* op) {
  VisitSpan(op->span);
  for (const RelaxExpr& f : op->fields) VisitExpr(f);
}
void ExprVisitor::VisitExpr_(const VarNode* op) { VisitSpan(op->span); }
void ExprVisitor::VisitExpr_(const DataflowVarNode* op) { VisitExpr_(static_cast<const VarNode*>(op)); }
void ExprVisitor::VisitExpr_(const ShapeExprNode* op) {
  VisitSpan(op->span);
  for (const PrimExpr& v : op->values) VisitPrimExpr(v);
}
void ExprVisitor::VisitExpr_(const ExternFuncNode* op) { VisitSpan(op->span); }
void ExprVisitor::VisitExpr_(const GlobalVarNode* op) { VisitSpan(op->span); }
void ExprVisitor::VisitExpr_(const FunctionNode* op) {
  VisitSpan(op->span);
  for (const Var& p : op->params) VisitVarDef(p);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const CallNode* op) {
  VisitSpan(op->span);
  VisitExpr(op->op);
  for (const StructInfo& s : op->sinfo_args) VisitExprDepStructInfoField(s);
  for (const RelaxExpr& a : op->args) VisitExpr(a);
}
void ExprVisitor::VisitExpr_(const SeqExprNode* op) {
  VisitSpan(op->span);
  for (const BindingBlock& b : op->blocks) VisitBindingBlock(b);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const IfNode* op) {
  VisitSpan(op->span);
  VisitExpr(op->cond);
  VisitExpr(op->true_branch);
  VisitExpr(op->false_branch);
}
void ExprVisitor::VisitExpr_(const OpNode* op) { VisitSpan(op->span); }
void ExprVisitor::VisitExpr_(const TupleGetItemNode* op) {
  VisitSpan(op->span);
  VisitExpr(op->tuple);
}
void ExprVisitor::VisitExpr_(const PrimValueNode* op) {
  VisitSpan(op->span);
  VisitPrimExpr(op->value);
}
void ExprVisitor::VisitExpr_(const StringImmNode* op) { VisitSpan(op->span); }
void ExprVisitor::VisitExpr_(const DataTypeImmNode* op) { VisitSpan(op->span); }

void ExprVisitor::VisitBinding(const Binding& binding) {
  if (const auto* vb = binding.as<VarBindingNode>()) {
    VisitBinding_(vb);
  } else if (const auto* mc = binding.as<MatchCastNode>()) {
    VisitBinding_(mc);
  } else {
    TESSERA_THROW(TypeError) << "relax visitor: unknown binding kind " << binding->GetTypeKey();
  }
}
void ExprVisitor::VisitBinding_(const VarBindingNode* binding) {
  VisitExpr(binding->value);
  VisitVarDef(binding->var);
}
void ExprVisitor::VisitBinding_(const MatchCastNode* binding) {
  VisitExpr(binding->value);
  VisitExprDepStructInfoField(binding->struct_info);
  VisitVarDef(binding->var);
}
void ExprVisitor::VisitBindingBlock(const BindingBlock& block) {
  if (const auto* df = block.as<DataflowBlockNode>()) {
    VisitBindingBlock_(df);
  } else {
    VisitBindingBlock_(block.get());
  }
}
void ExprVisitor::VisitBindingBlock_(const BindingBlockNode* block) {
  for (const Binding& b : block->bindings) VisitBinding(b);
}
void ExprVisitor::VisitBindingBlock_(const DataflowBlockNode* block) {
  for (const Binding& b : block->bindings) VisitBinding(b);
}
void ExprVisitor::VisitVarDef(const Var& var) {
  if (const auto* df = var.as<DataflowVarNode>()) {
    VisitVarDef_(df);
  } else {
    VisitVarDef_(var.get());
  }
}

void PostOrderVisit(const RelaxExpr& expr, const std::function<void(const RelaxExpr&)>& fvisit) {
  class Visitor : public ExprVisitor {
   public:
    explicit Visitor(const std::function<void(const RelaxExpr&)>& f) : f_(f) {}
    void VisitExpr(const RelaxExpr& e) override {
      ExprVisitor::VisitExpr(e);
      f_(e);
    }

   private:
    const std::function<void(const RelaxExpr&)>& f_;
  };
  Visitor(fvisit).VisitExpr(expr);
}

// ---- ExprMutatorBase -----------------------------------------------------------------------

RelaxExpr ExprMutatorBase::VisitExpr_(const ConstantNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const TupleNode* op) {
  bool same = true;
  Array<RelaxExpr> fields;
  for (const RelaxExpr& f : op->fields) {
    RelaxExpr nf = VisitExpr(f);
    same &= nf.same_as(f);
    fields.push_back(nf);
  }
  if (same) return GetRef<RelaxExpr>(op);
  return Tuple(fields, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const VarNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const DataflowVarNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const ShapeExprNode* op) {
  bool same = true;
  Array<PrimExpr> values;
  for (const PrimExpr& v : op->values) {
    PrimExpr nv = VisitPrimExpr(v);
    same &= nv.same_as(v);
    values.push_back(nv);
  }
  if (same) return GetRef<RelaxExpr>(op);
  return ShapeExpr(values, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const ExternFuncNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const GlobalVarNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const FunctionNode* op) {
  RelaxExpr body = VisitExpr(op->body);
  if (body.same_as(op->body)) return GetRef<RelaxExpr>(op);
  return Function(op->params, body, op->ret_struct_info, op->is_pure, op->attrs, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const CallNode* op) {
  RelaxExpr callee = VisitExpr(op->op);
  bool same = callee.same_as(op->op);
  Array<StructInfo> sinfo_args;
  for (const StructInfo& s : op->sinfo_args) {
    StructInfo ns = VisitExprDepStructInfoField(s);
    same &= ns.same_as(s);
    sinfo_args.push_back(ns);
  }
  Array<RelaxExpr> args;
  for (const RelaxExpr& a : op->args) {
    RelaxExpr na = VisitExpr(a);
    same &= na.same_as(a);
    args.push_back(na);
  }
  if (same) return GetRef<RelaxExpr>(op);
  return Call(callee, args, op->attrs, sinfo_args, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const SeqExprNode* op) {
  bool same = true;
  Array<BindingBlock> blocks;
  for (const BindingBlock& b : op->blocks) {
    BindingBlock nb = VisitBindingBlock(b);
    same &= nb.same_as(b);
    if (!nb->bindings.empty()) blocks.push_back(nb);
  }
  RelaxExpr body = VisitExpr(op->body);
  if (same && body.same_as(op->body)) return GetRef<RelaxExpr>(op);
  return SeqExpr(blocks, body, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const IfNode* op) {
  RelaxExpr c = VisitExpr(op->cond);
  RelaxExpr t = VisitExpr(op->true_branch);
  RelaxExpr f = VisitExpr(op->false_branch);
  if (c.same_as(op->cond) && t.same_as(op->true_branch) && f.same_as(op->false_branch)) return GetRef<RelaxExpr>(op);
  return If(c, t, f, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const OpNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const TupleGetItemNode* op) {
  RelaxExpr t = VisitExpr(op->tuple);
  if (t.same_as(op->tuple)) return GetRef<RelaxExpr>(op);
  return TupleGetItem(t, op->index, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const PrimValueNode* op) {
  PrimExpr v = VisitPrimExpr(op->value);
  if (v.same_as(op->value)) return GetRef<RelaxExpr>(op);
  return PrimValue(v, op->span);
}
RelaxExpr ExprMutatorBase::VisitExpr_(const StringImmNode* op) { return GetRef<RelaxExpr>(op); }
RelaxExpr ExprMutatorBase::VisitExpr_(const DataTypeImmNode* op) { return GetRef<RelaxExpr>(op); }

BindingBlock ExprMutatorBase::VisitBindingBlock(const BindingBlock& block) {
  bool same = true;
  Array<Binding> bindings;
  for (const Binding& b : block->bindings) {
    CheckStack("relax binding");
    Binding nb = b;
    if (const auto* vb = b.as<VarBindingNode>()) {
      RelaxExpr v = VisitExpr(vb->value);
      if (!v.same_as(vb->value)) nb = VarBinding(vb->var, v, vb->span);
    } else if (const auto* mc = b.as<MatchCastNode>()) {
      RelaxExpr v = VisitExpr(mc->value);
      StructInfo s = VisitExprDepStructInfoField(mc->struct_info);
      if (!v.same_as(mc->value) || !s.same_as(mc->struct_info)) nb = MatchCast(mc->var, v, s, mc->span);
    }
    same &= nb.same_as(b);
    bindings.push_back(nb);
  }
  if (same) return block;
  if (block.as<DataflowBlockNode>()) return DataflowBlock(bindings, block->span);
  return BindingBlock(bindings, block->span);
}

// ---- ExprMutator ---------------------------------------------------------------------------

RelaxExpr ExprMutator::VisitExpr(const RelaxExpr& expr) {
  return builder_->Normalize(ExprFunctor::VisitExpr(expr));
}

RelaxExpr ExprMutator::VisitExpr_(const VarNode* op) {
  auto it = var_remap_.find(op);
  if (it != var_remap_.end()) return it->second;
  return GetRef<RelaxExpr>(op);
}
RelaxExpr ExprMutator::VisitExpr_(const DataflowVarNode* op) { return VisitExpr_(static_cast<const VarNode*>(op)); }

RelaxExpr ExprMutator::VisitExpr_(const FunctionNode* op) {
  Array<Var> params;
  bool same = true;
  for (const Var& p : op->params) {
    Var np = VisitVarDef(p);
    if (!np.same_as(p)) {
      var_remap_[p.get()] = np;
      same = false;
    }
    params.push_back(np);
  }
  RelaxExpr body = VisitWithNewScope(op->body, params);
  if (same && body.same_as(op->body)) return GetRef<RelaxExpr>(op);
  // The return annotation is kept unless the body no longer fits it.
  std::optional<StructInfo> ret;
  if (op->ret_struct_info.defined() && HasStructInfo(body) &&
      StructInfoBaseCheck(op->ret_struct_info, GetStructInfo(body)) != BaseCheckResult::kFailL0) {
    ret = op->ret_struct_info;
  }
  return Function(params, body, ret, op->is_pure, op->attrs, op->span);
}

RelaxExpr ExprMutator::VisitExpr_(const SeqExprNode* op) {
  bool same = true;
  Array<BindingBlock> blocks;
  for (const BindingBlock& b : op->blocks) {
    BindingBlock nb = VisitBindingBlock(b);
    if (!nb->bindings.empty()) blocks.push_back(nb);
    same &= nb.same_as(b);
  }
  builder_->BeginBindingBlock();
  RelaxExpr body = VisitExpr(op->body);
  BindingBlock prologue = builder_->EndBlock();
  if (!prologue->bindings.empty()) {
    blocks.push_back(prologue);
    same = false;
  }
  if (same && body.same_as(op->body)) return GetRef<RelaxExpr>(op);
  return SeqExpr(blocks, body, op->span);
}

RelaxExpr ExprMutator::VisitExpr_(const IfNode* op) {
  RelaxExpr c = VisitExpr(op->cond);
  RelaxExpr t = VisitWithNewScope(op->true_branch);
  RelaxExpr f = VisitWithNewScope(op->false_branch);
  if (c.same_as(op->cond) && t.same_as(op->true_branch) && f.same_as(op->false_branch)) return GetRef<RelaxExpr>(op);
  return If(c, t, f, op->span);
}

RelaxExpr ExprMutator::VisitWithNewScope(const RelaxExpr& expr, std::optional<Array<Var>> params) {
  builder_->BeginScope(params);
  builder_->BeginBindingBlock();
  RelaxExpr ret;
  try {
    ret = VisitExpr(expr);
  } catch (...) {
    builder_->EndBlock();
    builder_->EndScope();
    throw;
  }
  BindingBlock prologue = builder_->EndBlock();
  if (!prologue->bindings.empty()) {
    ret = builder_->Normalize(SeqExpr({prologue}, ret));
  }
  builder_->EndScope();
  return ret;
}

void ExprMutator::VisitBinding(const Binding& binding) {
  if (const auto* vb = binding.as<VarBindingNode>()) {
    VisitBinding_(vb);
  } else if (const auto* mc = binding.as<MatchCastNode>()) {
    VisitBinding_(mc);
  } else {
    TESSERA_THROW(TypeError) << "relax mutator: unknown binding kind " << binding->GetTypeKey();
  }
}

void ExprMutator::VisitBinding_(const VarBindingNode* binding) {
  RelaxExpr value = VisitExpr(binding->value);
  ReEmitBinding(binding, value);
}

void ExprMutator::ReEmitBinding(const VarBindingNode* binding, const RelaxExpr& new_value) {
  Var new_var = VisitVarDef(binding->var);
  if (new_var.same_as(binding->var) && new_value.same_as(binding->value)) {
    builder_->EmitNormalized(GetRef<Binding>(binding));
    return;
  }
  Var temp = WithStructInfo(new_var, GetStructInfo(new_value));
  if (!temp.same_as(new_var)) new_var = temp;
  if (!new_var.same_as(binding->var)) var_remap_[binding->var.get()] = new_var;
  builder_->EmitNormalized(VarBinding(new_var, new_value, binding->span));
}

void ExprMutator::VisitBinding_(const MatchCastNode* binding) {
  RelaxExpr value = VisitExpr(binding->value);
  StructInfo sinfo = VisitExprDepStructInfoField(binding->struct_info);
  Var new_var = VisitVarDef(binding->var);
  if (new_var.same_as(binding->var) && value.same_as(binding->value) && sinfo.same_as(binding->struct_info)) {
    builder_->EmitNormalized(GetRef<Binding>(binding));
    return;
  }
  if (!sinfo.same_as(binding->struct_info)) new_var = WithStructInfo(new_var, sinfo);
  if (!new_var.same_as(binding->var)) var_remap_[binding->var.get()] = new_var;
  builder_->EmitNormalized(MatchCast(new_var, builder_->NormalizeArgument(value), sinfo, binding->span));
}

// The original block when every binding came back as the same object.
static BindingBlock KeepIfUnchanged(const BindingBlockNode* old, const BindingBlock& fresh) {
  if (fresh->bindings.size() != old->bindings.size()) return fresh;
  for (size_t i = 0; i < old->bindings.size(); ++i) {
    if (!fresh->bindings[i].same_as(old->bindings[i])) return fresh;
  }
  return GetRef<BindingBlock>(old);
}

BindingBlock ExprMutator::VisitBindingBlock(const BindingBlock& block) {
  if (const auto* df = block.as<DataflowBlockNode>()) return VisitBindingBlock_(df);
  return VisitBindingBlock_(block.get());
}

BindingBlock ExprMutator::VisitBindingBlock_(const BindingBlockNode* block) {
  builder_->BeginBindingBlock();
  try {
    for (const Binding& b : block->bindings) VisitBinding(b);
  } catch (...) {
    builder_->EndBlock();
    throw;
  }
  return KeepIfUnchanged(block, builder_->EndBlock());
}

BindingBlock ExprMutator::VisitBindingBlock_(const DataflowBlockNode* block) {
  builder_->BeginDataflowBlock();
  try {
    for (const Binding& b : block->bindings) VisitBinding(b);
  } catch (...) {
    builder_->EndBlock();
    throw;
  }
  return KeepIfUnchanged(block, builder_->EndBlock());
}

Var ExprMutator::VisitVarDef(const Var& var) {
  if (const auto* df = var.as<DataflowVarNode>()) return VisitVarDef_(df);
  return VisitVarDef_(var.get());
}
Var ExprMutator::VisitVarDef_(const VarNode* var) { return GetRef<Var>(var); }
Var ExprMutator::VisitVarDef_(const DataflowVarNode* var) { return GetRef<Var>(var); }

Var ExprMutator::WithStructInfo(const Var& var, const StructInfo& sinfo) {
  if (var->struct_info_.defined() && StructuralEqual(var->struct_info_, sinfo)) return var;
  if (var.as<DataflowVarNode>()) return DataflowVar(var->name_hint, sinfo, var->span);
  return Var(var->name_hint, sinfo, var->span);
}

}  // namespace relax
}  // namespace tessera
