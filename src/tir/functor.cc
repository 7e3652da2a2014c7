// Default traversals of the TIR visitors and mutators (see functor.h).
#include "tir/functor.h"

#include <unordered_set>

#include "runtime/registry.h"

namespace tessera {
namespace tir {

// ---- ExprVisitor ------------------------------------------------------------
void ExprVisitor::VisitExpr_(const VarNode*) {}
void ExprVisitor::VisitExpr_(const SizeVarNode*) {}
void ExprVisitor::VisitExpr_(const IntImmNode*) {}
void ExprVisitor::VisitExpr_(const FloatImmNode*) {}
void ExprVisitor::VisitExpr_(const StringImmNode*) {}
void ExprVisitor::VisitExpr_(const CastNode* op) { VisitExpr(op->value); }
#define TESSERA_VISIT_BINARY(Node) \
  void ExprVisitor::VisitExpr_(const Node* op) { VisitExpr(op->a); VisitExpr(op->b); }
TESSERA_VISIT_BINARY(AddNode) TESSERA_VISIT_BINARY(SubNode) TESSERA_VISIT_BINARY(MulNode)
TESSERA_VISIT_BINARY(DivNode) TESSERA_VISIT_BINARY(ModNode) TESSERA_VISIT_BINARY(FloorDivNode)
TESSERA_VISIT_BINARY(FloorModNode) TESSERA_VISIT_BINARY(MinNode) TESSERA_VISIT_BINARY(MaxNode)
TESSERA_VISIT_BINARY(EQNode) TESSERA_VISIT_BINARY(NENode) TESSERA_VISIT_BINARY(LTNode)
TESSERA_VISIT_BINARY(LENode) TESSERA_VISIT_BINARY(GTNode) TESSERA_VISIT_BINARY(GENode)
TESSERA_VISIT_BINARY(AndNode) TESSERA_VISIT_BINARY(OrNode)
#undef TESSERA_VISIT_BINARY
void ExprVisitor::VisitExpr_(const NotNode* op) { VisitExpr(op->a); }
void ExprVisitor::VisitExpr_(const SelectNode* op) {
  VisitExpr(op->condition);
  VisitExpr(op->true_value);
  VisitExpr(op->false_value);
}
void ExprVisitor::VisitExpr_(const LetNode* op) {
  VisitExpr(op->var);
  VisitExpr(op->value);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const RampNode* op) {
  VisitExpr(op->base);
  VisitExpr(op->stride);
}
void ExprVisitor::VisitExpr_(const BroadcastNode* op) { VisitExpr(op->value); }
void ExprVisitor::VisitExpr_(const CallNode* op) {
  for (PrimExpr a : op->args) VisitExpr(a);
}
void ExprVisitor::VisitExpr_(const BufferLoadNode* op) {
  VisitBufferUse(op->buffer);
  for (PrimExpr i : op->indices) VisitExpr(i);
}

// ---- ExprMutator ------------------------------------------------------------
Array<PrimExpr> ExprMutator::VisitExprs(const Array<PrimExpr>& exprs, bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(exprs.size());
  bool any = false;
  for (PrimExpr e : exprs) {
    PrimExpr n = VisitExpr(e);
    any = any || !n.same_as(e);
    out.push_back(n);
  }
  if (changed) *changed = any;
  return any ? Array<PrimExpr>(out) : exprs;
}

PrimExpr ExprMutator::VisitExpr_(const VarNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const SizeVarNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const IntImmNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const FloatImmNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const StringImmNode* op) { return GetRef<PrimExpr>(op); }
PrimExpr ExprMutator::VisitExpr_(const CastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
  return Cast(op->dtype, v, op->span);
}
#define TESSERA_MUTATE_BINARY(Name)                               \
  PrimExpr ExprMutator::VisitExpr_(const Name##Node* op) {        \
    PrimExpr a = VisitExpr(op->a);                                \
    PrimExpr b = VisitExpr(op->b);                                \
    if (a.same_as(op->a) && b.same_as(op->b)) return GetRef<PrimExpr>(op);  \
    return Name(a, b, op->span);                                  \
  }
TESSERA_MUTATE_BINARY(Add) TESSERA_MUTATE_BINARY(Sub) TESSERA_MUTATE_BINARY(Mul) TESSERA_MUTATE_BINARY(Div)
TESSERA_MUTATE_BINARY(Mod) TESSERA_MUTATE_BINARY(FloorDiv) TESSERA_MUTATE_BINARY(FloorMod)
TESSERA_MUTATE_BINARY(Min) TESSERA_MUTATE_BINARY(Max) TESSERA_MUTATE_BINARY(EQ) TESSERA_MUTATE_BINARY(NE)
TESSERA_MUTATE_BINARY(LT) TESSERA_MUTATE_BINARY(LE) TESSERA_MUTATE_BINARY(GT) TESSERA_MUTATE_BINARY(GE)
TESSERA_MUTATE_BINARY(And) TESSERA_MUTATE_BINARY(Or)
#undef TESSERA_MUTATE_BINARY
PrimExpr ExprMutator::VisitExpr_(const NotNode* op) {
  PrimExpr a = VisitExpr(op->a);
  if (a.same_as(op->a)) return GetRef<PrimExpr>(op);
  return Not(a, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const SelectNode* op) {
  PrimExpr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
  if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) return GetRef<PrimExpr>(op);
  return Select(c, t, f, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const LetNode* op) {
  PrimExpr v = VisitExpr(op->value), b = VisitExpr(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return GetRef<PrimExpr>(op);
  return Let(op->var, v, b, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const RampNode* op) {
  PrimExpr b = VisitExpr(op->base), s = VisitExpr(op->stride);
  if (b.same_as(op->base) && s.same_as(op->stride)) return GetRef<PrimExpr>(op);
  return Ramp(b, s, op->lanes, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const BroadcastNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<PrimExpr>(op);
  return Broadcast(v, op->lanes, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const CallNode* op) {
  bool changed = false;
  Array<PrimExpr> args = VisitExprs(op->args, &changed);
  if (!changed) return GetRef<PrimExpr>(op);
  return Call(op->dtype, op->op, args, op->span);
}
PrimExpr ExprMutator::VisitExpr_(const BufferLoadNode* op) {
  bool changed = false;
  Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
  Buffer buf = VisitBufferUse(op->buffer);
  if (!changed && buf.same_as(op->buffer)) return GetRef<PrimExpr>(op);
  return BufferLoad(buf, idx, op->span);
}

// ---- StmtExprVisitor ----------------------------------------------------------
void StmtExprVisitor::VisitBufferRegion(const BufferRegion& region) {
  VisitBufferUse(region->buffer);
  for (Range r : region->region) {
    VisitExpr(r->min);
    VisitExpr(r->extent);
  }
}
void StmtExprVisitor::VisitStmt_(const BufferStoreNode* op) {
  VisitBufferUse(op->buffer);
  VisitExpr(op->value);
  for (PrimExpr i : op->indices) VisitExpr(i);
}
void StmtExprVisitor::VisitStmt_(const ForNode* op) {
  VisitExpr(op->min);
  VisitExpr(op->extent);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const IfThenElseNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->then_case);
  if (op->else_case) VisitStmt(*op->else_case);
}
void StmtExprVisitor::VisitStmt_(const SeqStmtNode* op) {
  for (Stmt s : op->seq) VisitStmt(s);
}
void StmtExprVisitor::VisitStmt_(const EvaluateNode* op) { VisitExpr(op->value); }
void StmtExprVisitor::VisitStmt_(const LetStmtNode* op) {
  VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const AttrStmtNode* op) {
  if (op->value.defined()) VisitExpr(op->value);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const AllocateNode* op) {
  for (PrimExpr e : op->extents) VisitExpr(e);
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const DeclBufferNode* op) { VisitStmt(op->body); }
void StmtExprVisitor::VisitStmt_(const WhileNode* op) {
  VisitExpr(op->condition);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const BlockNode* op) {
  for (IterVar iv : op->iter_vars) {
    VisitExpr(iv->dom->min);
    VisitExpr(iv->dom->extent);
  }
  for (BufferRegion r : op->reads) VisitBufferRegion(r);
  for (BufferRegion r : op->writes) VisitBufferRegion(r);
  for (MatchBufferRegion m : op->match_buffers) VisitBufferRegion(m->source);
  if (op->init) VisitStmt(*op->init);
  VisitStmt(op->body);
}
void StmtExprVisitor::VisitStmt_(const BlockRealizeNode* op) {
  for (PrimExpr v : op->iter_values) VisitExpr(v);
  VisitExpr(op->predicate);
  VisitStmt(op->block);
}

// ---- StmtExprMutator ----------------------------------------------------------
BufferRegion StmtExprMutator::VisitBufferRegion(const BufferRegion& region) {
  Buffer buf = VisitBufferUse(region->buffer);
  bool changed = !buf.same_as(region->buffer);
  std::vector<Range> out;
  for (Range r : region->region) {
    PrimExpr mn = VisitExpr(r->min), ext = VisitExpr(r->extent);
    if (mn.same_as(r->min) && ext.same_as(r->extent)) {
      out.push_back(r);
    } else {
      changed = true;
      out.push_back(Range::FromMinExtent(mn, ext, r->span));
    }
  }
  if (!changed) return region;
  return BufferRegion(buf, Array<Range>(out));
}
Stmt StmtExprMutator::VisitStmt_(const BufferStoreNode* op) {
  Buffer buf = VisitBufferUse(op->buffer);
  PrimExpr v = VisitExpr(op->value);
  bool changed = false;
  Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
  if (!changed && v.same_as(op->value) && buf.same_as(op->buffer)) return GetRef<Stmt>(op);
  return BufferStore(buf, v, idx, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const ForNode* op) {
  PrimExpr mn = VisitExpr(op->min), ext = VisitExpr(op->extent);
  Stmt body = VisitStmt(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return GetRef<Stmt>(op);
  For f = GetRef<For>(op);
  auto* n = f.CopyOnWrite();
  n->min = mn;
  n->extent = ext;
  n->body = body;
  return f;
}
Stmt StmtExprMutator::VisitStmt_(const IfThenElseNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt t = VisitStmt(op->then_case);
  std::optional<Stmt> e;
  if (op->else_case) e = VisitStmt(*op->else_case);
  if (c.same_as(op->condition) && t.same_as(op->then_case) &&
      (!op->else_case || e->same_as(*op->else_case))) {
    return GetRef<Stmt>(op);
  }
  return IfThenElse(c, t, e, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const SeqStmtNode* op) {
  std::vector<Stmt> out;
  bool changed = false;
  for (Stmt s : op->seq) {
    Stmt n = VisitStmt(s);
    changed = changed || !n.same_as(s);
    out.push_back(n);
  }
  if (!changed) return GetRef<Stmt>(op);
  return SeqStmt::Flatten(out);
}
Stmt StmtExprMutator::VisitStmt_(const EvaluateNode* op) {
  PrimExpr v = VisitExpr(op->value);
  if (v.same_as(op->value)) return GetRef<Stmt>(op);
  return Evaluate(v, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const LetStmtNode* op) {
  PrimExpr v = VisitExpr(op->value);
  Stmt b = VisitStmt(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return LetStmt(op->var, v, b, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const AttrStmtNode* op) {
  PrimExpr v = op->value.defined() ? VisitExpr(op->value) : op->value;
  Stmt b = VisitStmt(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return AttrStmt(op->node, op->attr_key, v, b, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const AllocateNode* op) {
  bool changed = false;
  Array<PrimExpr> ext = VisitExprs(op->extents, &changed);
  PrimExpr c = VisitExpr(op->condition);
  Stmt b = VisitStmt(op->body);
  if (!changed && c.same_as(op->condition) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return Allocate(op->buffer_var, op->dtype, ext, c, b, op->annotations, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const DeclBufferNode* op) {
  Stmt b = VisitStmt(op->body);
  if (b.same_as(op->body)) return GetRef<Stmt>(op);
  return DeclBuffer(op->buffer, b, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const WhileNode* op) {
  PrimExpr c = VisitExpr(op->condition);
  Stmt b = VisitStmt(op->body);
  if (c.same_as(op->condition) && b.same_as(op->body)) return GetRef<Stmt>(op);
  return While(c, b, op->span);
}
Stmt StmtExprMutator::VisitStmt_(const BlockNode* op) {
  bool changed = false;
  std::vector<IterVar> ivs;
  for (IterVar iv : op->iter_vars) {
    PrimExpr mn = VisitExpr(iv->dom->min), ext = VisitExpr(iv->dom->extent);
    if (mn.same_as(iv->dom->min) && ext.same_as(iv->dom->extent)) {
      ivs.push_back(iv);
    } else {
      changed = true;
      ivs.push_back(IterVar(Range::FromMinExtent(mn, ext), iv->var, iv->iter_type, iv->thread_tag, iv->span));
    }
  }
  auto regions = [&](const Array<BufferRegion>& rs) {
    std::vector<BufferRegion> out;
    for (BufferRegion r : rs) {
      BufferRegion n = VisitBufferRegion(r);
      changed = changed || !n.same_as(r);
      out.push_back(n);
    }
    return Array<BufferRegion>(out);
  };
  Array<BufferRegion> reads = regions(op->reads);
  Array<BufferRegion> writes = regions(op->writes);
  std::vector<MatchBufferRegion> matches;
  for (MatchBufferRegion m : op->match_buffers) {
    BufferRegion src = VisitBufferRegion(m->source);
    if (src.same_as(m->source)) {
      matches.push_back(m);
    } else {
      changed = true;
      matches.push_back(MatchBufferRegion(m->buffer, src));
    }
  }
  std::optional<Stmt> init;
  if (op->init) {
    init = VisitStmt(*op->init);
    changed = changed || !init->same_as(*op->init);
  }
  Stmt body = VisitStmt(op->body);
  changed = changed || !body.same_as(op->body);
  if (!changed) return GetRef<Stmt>(op);
  Block b = GetRef<Block>(op);
  auto* n = b.CopyOnWrite();
  n->iter_vars = Array<IterVar>(ivs);
  n->reads = reads;
  n->writes = writes;
  n->match_buffers = Array<MatchBufferRegion>(matches);
  n->init = init;
  n->body = body;
  return b;
}
Stmt StmtExprMutator::VisitStmt_(const BlockRealizeNode* op) {
  bool changed = false;
  Array<PrimExpr> values = VisitExprs(op->iter_values, &changed);
  PrimExpr pred = VisitExpr(op->predicate);
  Stmt block = VisitStmt(op->block);
  if (!changed && pred.same_as(op->predicate) && block.same_as(op->block)) return GetRef<Stmt>(op);
  return BlockRealize(values, pred, Downcast<Block>(block), op->span);
}

// ---- helpers -----------------------------------------------------------------
namespace {

class PostOrderVisitor : public StmtExprVisitor {
 public:
  explicit PostOrderVisitor(const std::function<void(const ObjectRef&)>& f) : f_(f) {}
  void VisitExpr(const PrimExpr& e) override {
    if (!visited_.insert(e.get()).second) return;
    ExprVisitor::VisitExpr(e);
    f_(e);
  }
  void VisitStmt(const Stmt& s) override {
    if (!visited_.insert(s.get()).second) return;
    StmtFunctor::VisitStmt(s);
    f_(s);
  }

 private:
  const std::function<void(const ObjectRef&)>& f_;
  std::unordered_set<const Object*> visited_;
};

class VarSubstituter : public StmtExprMutator {
 public:
  explicit VarSubstituter(const std::function<std::optional<PrimExpr>(const Var&)>& f) : f_(f) {}
  using StmtExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (auto r = f_(GetRef<Var>(op))) return *r;
    return GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const SizeVarNode* op) override { return VisitExpr_(static_cast<const VarNode*>(op)); }

 private:
  const std::function<std::optional<PrimExpr>(const Var&)>& f_;
};

std::function<std::optional<PrimExpr>(const Var&)> MapLookup(const Map<Var, PrimExpr>& vmap) {
  return [vmap](const Var& v) { return vmap.Get(v); };
}

}  // namespace

void PostOrderVisit(const ObjectRef& node, const std::function<void(const ObjectRef&)>& f) {
  PostOrderVisitor v(f);
  if (const auto* e = node.as<PrimExprNode>()) {
    v.VisitExpr(GetRef<PrimExpr>(e));
  } else if (const auto* s = node.as<StmtNode>()) {
    v.VisitStmt(GetRef<Stmt>(s));
  } else {
    TESSERA_THROW(TypeError) << "PostOrderVisit expects an expression or a statement, got " << node->GetTypeKey();
  }
}

PrimExpr Substitute(const PrimExpr& e, const std::function<std::optional<PrimExpr>(const Var&)>& vmap) {
  return VarSubstituter(vmap).VisitExpr(e);
}
Stmt Substitute(const Stmt& s, const std::function<std::optional<PrimExpr>(const Var&)>& vmap) {
  return VarSubstituter(vmap).VisitStmt(s);
}
PrimExpr Substitute(const PrimExpr& e, const Map<Var, PrimExpr>& vmap) { return Substitute(e, MapLookup(vmap)); }
Stmt Substitute(const Stmt& s, const Map<Var, PrimExpr>& vmap) { return Substitute(s, MapLookup(vmap)); }

TESSERA_REGISTER_GLOBAL("tir.PostOrderVisit").set_body_typed([](ObjectRef node, PackedFunc f) {
  PostOrderVisit(node, [&f](const ObjectRef& n) { f(n); });
});
TESSERA_REGISTER_GLOBAL("tir.Substitute").set_body_typed([](ObjectRef node, Map<Var, PrimExpr> vmap) -> ObjectRef {
  if (const auto* e = node.as<PrimExprNode>()) return Substitute(GetRef<PrimExpr>(e), vmap);
  return Substitute(Downcast<Stmt>(node), vmap);
});

}  // namespace tir
}  // namespace tessera
