// Functors over Relax expressions (TVM v0.18's relax/expr_functor.h):
// ExprFunctor (dispatch by node type), ExprVisitor (walks expressions,
// bindings, blocks and var definitions), ExprMutatorBase (rebuilds without
// normalizing) and ExprMutator (rebuilds through a BlockBuilder: bindings
// re-emitted, vars remapped when their struct info changes, results
// normalized). Relax IR layer; passes and analyses derive from them.
// Binding chains are walked in loops; nesting depth is guarded by CheckStack
// (RecursionError on pathological depth, retried on a large stack from Python).
#pragma once

#include <functional>
#include <unordered_map>

#include "ir/node_functor.h"
#include "relax/block_builder.h"
#include "runtime/stack_guard.h"

namespace tessera {
namespace relax {

#define TESSERA_RELAX_EXPR_NODES(X)                                                                    \
  X(ConstantNode) X(TupleNode) X(VarNode) X(DataflowVarNode) X(ShapeExprNode) X(ExternFuncNode)      \
  X(GlobalVarNode) X(FunctionNode) X(CallNode) X(SeqExprNode) X(IfNode) X(OpNode) X(TupleGetItemNode) \
  X(PrimValueNode) X(StringImmNode) X(DataTypeImmNode)

template <typename FType>
class ExprFunctor;

template <typename R, typename... Args>
class ExprFunctor<R(const RelaxExpr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  virtual R VisitExpr(const RelaxExpr& e, Args... args) {
    TESSERA_CHECK_OR_THROW(e.defined(), TypeError) << "relax expression functor: visiting None";
    CheckStack("relax expression");
    const auto* f = Table().Find(e->type_index());
    if (f == nullptr) return VisitExprDefault_(e.get(), args...);
    return (*f)(this, e.get(), args...);
  }
  R operator()(const RelaxExpr& e, Args... args) { return VisitExpr(e, args...); }

#define TESSERA_DECLARE_VISIT(Node) \
  virtual R VisitExpr_(const Node* op, Args... args) { return VisitExprDefault_(op, args...); }
  TESSERA_RELAX_EXPR_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  virtual R VisitExprDefault_(const Object* op, Args...) {
    TESSERA_THROW(TypeError) << "relax expression functor does not handle " << op->GetTypeKey();
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
      TESSERA_RELAX_EXPR_NODES(TESSERA_SET_DISPATCH)
#undef TESSERA_SET_DISPATCH
      return t;
    }();
    return table;
  }
};

// Visits every sub-expression, binding, block and var definition once per occurrence.
class ExprVisitor : public ExprFunctor<void(const RelaxExpr&)> {
 public:
  using ExprFunctor::VisitExpr;
#define TESSERA_DECLARE_VISIT(Node) void VisitExpr_(const Node* op) override;
  TESSERA_RELAX_EXPR_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT

  virtual void VisitBinding(const Binding& binding);
  virtual void VisitBinding_(const VarBindingNode* binding);
  virtual void VisitBinding_(const MatchCastNode* binding);
  virtual void VisitBindingBlock(const BindingBlock& block);
  virtual void VisitBindingBlock_(const BindingBlockNode* block);
  virtual void VisitBindingBlock_(const DataflowBlockNode* block);
  // A definition point of a var (parameter, binding target).
  virtual void VisitVarDef(const Var& var);
  virtual void VisitVarDef_(const VarNode* var) {}
  virtual void VisitVarDef_(const DataflowVarNode* var) {}
  // PrimExprs met in ShapeExpr/PrimValue and in struct info (symbolic dims).
  virtual void VisitPrimExpr(const PrimExpr& expr) {}
  // Relax expressions inside struct info (a TensorStructInfo's shape).
  virtual void VisitExprDepStructInfoField(const StructInfo& sinfo);
  // The span of each visited expression (first, as TVM's VisitSpan); may be undefined.
  virtual void VisitSpan(const Span& span) {}
};

// Rebuilds expressions bottom-up, sharing unchanged nodes; no normalization.
class ExprMutatorBase : public ExprFunctor<RelaxExpr(const RelaxExpr&)> {
 public:
  using ExprFunctor::VisitExpr;
#define TESSERA_DECLARE_VISIT(Node) RelaxExpr VisitExpr_(const Node* op) override;
  TESSERA_RELAX_EXPR_NODES(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
  virtual BindingBlock VisitBindingBlock(const BindingBlock& block);
  virtual PrimExpr VisitPrimExpr(const PrimExpr& expr) { return expr; }
  virtual StructInfo VisitExprDepStructInfoField(const StructInfo& sinfo) { return sinfo; }
};

// Rebuilds through `builder_`: blocks are re-emitted binding by binding
// (each binding's new value normalized), a var whose value's struct info
// changed is replaced by a new var (later uses remapped), function bodies
// and If branches are visited in new scopes.
class ExprMutator : public ExprMutatorBase {
 public:
  explicit ExprMutator(std::optional<IRModule> mod = std::nullopt) : builder_(BlockBuilder::Create(mod)) {}
  using ExprMutatorBase::VisitExpr_;

  RelaxExpr VisitExpr(const RelaxExpr& expr) override;
  RelaxExpr VisitExpr_(const VarNode* op) override;
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override;
  RelaxExpr VisitExpr_(const FunctionNode* op) override;
  RelaxExpr VisitExpr_(const SeqExprNode* op) override;
  RelaxExpr VisitExpr_(const IfNode* op) override;

  virtual void VisitBinding(const Binding& binding);
  virtual void VisitBinding_(const VarBindingNode* binding);
  virtual void VisitBinding_(const MatchCastNode* binding);
  BindingBlock VisitBindingBlock(const BindingBlock& block) override;
  virtual BindingBlock VisitBindingBlock_(const BindingBlockNode* block);
  virtual BindingBlock VisitBindingBlock_(const DataflowBlockNode* block);
  virtual Var VisitVarDef(const Var& var);
  virtual Var VisitVarDef_(const VarNode* var);
  virtual Var VisitVarDef_(const DataflowVarNode* var);

 protected:
  // Emits `binding`'s var bound to `new_value` (the same binding when nothing changed).
  void ReEmitBinding(const VarBindingNode* binding, const RelaxExpr& new_value);
  // Visits `expr` in a new scope (defining `params`' symbolic vars), as a SeqExpr when bindings were emitted.
  RelaxExpr VisitWithNewScope(const RelaxExpr& expr, std::optional<Array<Var>> params = std::nullopt);
  std::optional<RelaxExpr> LookupBinding(const Var& var) { return builder_->LookupBinding(var); }
  // `var` itself when its struct info already is `sinfo`, else a new var of the same kind and name.
  Var WithStructInfo(const Var& var, const StructInfo& sinfo);

  BlockBuilder builder_;
  // Vars replaced by new ones (keyed by the old var's node).
  std::unordered_map<const Object*, Var> var_remap_;
};

// Calls `fvisit` on every sub-expression in post order.
void PostOrderVisit(const RelaxExpr& expr, const std::function<void(const RelaxExpr&)>& fvisit);

}  // namespace relax
}  // namespace tessera
