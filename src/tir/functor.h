// Visitors and mutators over TIR: ExprFunctor/StmtFunctor dispatch on the
// node's runtime type through a per-class table; ExprVisitor/StmtVisitor
// walk every child; ExprMutator/StmtMutator rebuild only the nodes whose
// children changed (unchanged subtrees are shared). TIR layer; every
// analysis and pass is written on these.
#pragma once

#include <functional>
#include <vector>

#include "ir/node_functor.h"
#include "runtime/stack_guard.h"
#include "tir/function.h"

namespace tessera {
namespace tir {

// NodeDispatchTable (ir/node_functor.h) maps each node type to its VisitExpr_/VisitStmt_.

#define TESSERA_TIR_EXPR_NODES(X)                                                                        \
  X(VarNode) X(SizeVarNode) X(IntImmNode) X(FloatImmNode) X(StringImmNode) X(CastNode) X(AddNode)       \
  X(SubNode) X(MulNode) X(DivNode) X(ModNode) X(FloorDivNode) X(FloorModNode) X(MinNode) X(MaxNode)     \
  X(EQNode) X(NENode) X(LTNode) X(LENode) X(GTNode) X(GENode) X(AndNode) X(OrNode) X(NotNode)           \
  X(SelectNode) X(LetNode) X(RampNode) X(BroadcastNode) X(CallNode) X(BufferLoadNode)

#define TESSERA_TIR_STMT_NODES(X)                                                                        \
  X(BufferStoreNode) X(ForNode) X(IfThenElseNode) X(SeqStmtNode) X(EvaluateNode) X(LetStmtNode)         \
  X(AttrStmtNode) X(AllocateNode) X(DeclBufferNode) X(WhileNode) X(BlockNode) X(BlockRealizeNode)

template <typename FType>
class ExprFunctor;

template <typename R, typename... Args>
class ExprFunctor<R(const PrimExpr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  virtual R VisitExpr(const PrimExpr& e, Args... args) {
    TESSERA_ICHECK(e.defined()) << "visiting an undefined expression";
    CheckStack("expression");
    const auto* f = Table().Find(e->type_index());
    if (f == nullptr) return VisitExprDefault_(e.get(), args...);
    return (*f)(this, e.get(), args...);
  }
  R operator()(const PrimExpr& e, Args... args) { return VisitExpr(e, args...); }

#define TESSERA_DECLARE_VISIT(Node) virtual R VisitExpr_(const Node* op, Args... args);
  TESSERA_TIR_EXPR_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  virtual R VisitExprDefault_(const Object* op, Args...) {
    TESSERA_THROW(InternalError) << "expression functor does not handle " << op->GetTypeKey();
  }

 private:
  using FDispatch = std::function<R(ExprFunctor*, const Object*, Args...)>;
  static const NodeDispatchTable<FDispatch>& Table() {
    static const NodeDispatchTable<FDispatch> table = [] {
      NodeDispatchTable<FDispatch> t;
#define TESSERA_SET_DISPATCH(Node)                                                        \
  t.Set(Node::RuntimeTypeIndex(), [](ExprFunctor* self, const Object* n, Args... args) { \
    return self->VisitExpr_(static_cast<const Node*>(n), args...);                       \
  });
      TESSERA_TIR_EXPR_NODES(TESSERA_SET_DISPATCH)
#undef TESSERA_SET_DISPATCH
      return t;
    }();
    return table;
  }
};

// Default handlers forward to VisitExprDefault_ (SizeVar forwards to Var).
#define TESSERA_DEFAULT_VISIT(Node)                                                              \
  template <typename R, typename... Args>                                                        \
  R ExprFunctor<R(const PrimExpr&, Args...)>::VisitExpr_(const Node* op, Args... args) {       \
    return VisitExprDefault_(op, args...);                                                       \
  }
TESSERA_DEFAULT_VISIT(VarNode) TESSERA_DEFAULT_VISIT(IntImmNode) TESSERA_DEFAULT_VISIT(FloatImmNode)
TESSERA_DEFAULT_VISIT(StringImmNode) TESSERA_DEFAULT_VISIT(CastNode) TESSERA_DEFAULT_VISIT(AddNode)
TESSERA_DEFAULT_VISIT(SubNode) TESSERA_DEFAULT_VISIT(MulNode) TESSERA_DEFAULT_VISIT(DivNode)
TESSERA_DEFAULT_VISIT(ModNode) TESSERA_DEFAULT_VISIT(FloorDivNode) TESSERA_DEFAULT_VISIT(FloorModNode)
TESSERA_DEFAULT_VISIT(MinNode) TESSERA_DEFAULT_VISIT(MaxNode) TESSERA_DEFAULT_VISIT(EQNode)
TESSERA_DEFAULT_VISIT(NENode) TESSERA_DEFAULT_VISIT(LTNode) TESSERA_DEFAULT_VISIT(LENode)
TESSERA_DEFAULT_VISIT(GTNode) TESSERA_DEFAULT_VISIT(GENode) TESSERA_DEFAULT_VISIT(AndNode)
TESSERA_DEFAULT_VISIT(OrNode) TESSERA_DEFAULT_VISIT(NotNode) TESSERA_DEFAULT_VISIT(SelectNode)
TESSERA_DEFAULT_VISIT(LetNode) TESSERA_DEFAULT_VISIT(RampNode) TESSERA_DEFAULT_VISIT(BroadcastNode)
TESSERA_DEFAULT_VISIT(CallNode) TESSERA_DEFAULT_VISIT(BufferLoadNode)
#undef TESSERA_DEFAULT_VISIT
template <typename R, typename... Args>
R ExprFunctor<R(const PrimExpr&, Args...)>::VisitExpr_(const SizeVarNode* op, Args... args) {
  return VisitExpr_(static_cast<const VarNode*>(op), args...);
}

template <typename FType>
class StmtFunctor;

template <typename R, typename... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  virtual R VisitStmt(const Stmt& s, Args... args) {
    TESSERA_ICHECK(s.defined()) << "visiting an undefined statement";
    CheckStack("statement");
    const auto* f = Table().Find(s->type_index());
    if (f == nullptr) return VisitStmtDefault_(s.get(), args...);
    return (*f)(this, s.get(), args...);
  }
  R operator()(const Stmt& s, Args... args) { return VisitStmt(s, args...); }

#define TESSERA_DECLARE_VISIT(Node) \
  virtual R VisitStmt_(const Node* op, Args... args) { return VisitStmtDefault_(op, args...); }
  TESSERA_TIR_STMT_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  virtual R VisitStmtDefault_(const Object* op, Args...) {
    TESSERA_THROW(InternalError) << "statement functor does not handle " << op->GetTypeKey();
  }

 private:
  using FDispatch = std::function<R(StmtFunctor*, const Object*, Args...)>;
  static const NodeDispatchTable<FDispatch>& Table() {
    static const NodeDispatchTable<FDispatch> table = [] {
      NodeDispatchTable<FDispatch> t;
#define TESSERA_SET_DISPATCH(Node)                                                        \
  t.Set(Node::RuntimeTypeIndex(), [](StmtFunctor* self, const Object* n, Args... args) { \
    return self->VisitStmt_(static_cast<const Node*>(n), args...);                       \
  });
      TESSERA_TIR_STMT_NODES(TESSERA_SET_DISPATCH)
#undef TESSERA_SET_DISPATCH
      return t;
    }();
    return table;
  }
};

// Visits every sub-expression.
class ExprVisitor : public ExprFunctor<void(const PrimExpr&)> {
 public:
  using ExprFunctor::VisitExpr;
#define TESSERA_DECLARE_VISIT(Node) void VisitExpr_(const Node* op) override;
  TESSERA_TIR_EXPR_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  // Buffers referenced by loads; override to look into shapes etc.
  virtual void VisitBufferUse(const Buffer& buffer) {}
};

// Rebuilds expressions bottom-up, sharing unchanged subtrees.
class ExprMutator : public ExprFunctor<PrimExpr(const PrimExpr&)> {
 public:
  using ExprFunctor::VisitExpr;
#define TESSERA_DECLARE_VISIT(Node) PrimExpr VisitExpr_(const Node* op) override;
  TESSERA_TIR_EXPR_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  // Hook to substitute buffers in loads (default: unchanged).
  virtual Buffer VisitBufferUse(const Buffer& buffer) { return buffer; }
  Array<PrimExpr> VisitExprs(const Array<PrimExpr>& exprs, bool* changed);
};

// Visits statements and the expressions inside them.
class StmtExprVisitor : public StmtFunctor<void(const Stmt&)>, public ExprVisitor {
 public:
  using ExprVisitor::VisitExpr;
  using StmtFunctor::VisitStmt;
#define TESSERA_DECLARE_VISIT(Node) void VisitStmt_(const Node* op) override;
  TESSERA_TIR_STMT_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  void VisitBufferRegion(const BufferRegion& region);
};

// Rebuilds statements (and their expressions), sharing unchanged subtrees.
class StmtExprMutator : public StmtFunctor<Stmt(const Stmt&)>, public ExprMutator {
 public:
  using ExprMutator::VisitExpr;
  using StmtFunctor::VisitStmt;
#define TESSERA_DECLARE_VISIT(Node) Stmt VisitStmt_(const Node* op) override;
  TESSERA_TIR_STMT_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  BufferRegion VisitBufferRegion(const BufferRegion& region);
};

// Runs `f` on every node (expressions and statements), children first.
void PostOrderVisit(const ObjectRef& node, const std::function<void(const ObjectRef&)>& f);
// Replaces variables by the mapping (returns the same object when nothing changes).
PrimExpr Substitute(const PrimExpr& e, const std::function<std::optional<PrimExpr>(const Var&)>& vmap);
Stmt Substitute(const Stmt& s, const std::function<std::optional<PrimExpr>(const Var&)>& vmap);
PrimExpr Substitute(const PrimExpr& e, const Map<Var, PrimExpr>& vmap);
Stmt Substitute(const Stmt& s, const Map<Var, PrimExpr>& vmap);

}  // namespace tir
}  // namespace tessera
