// PyExprVisitor / PyExprMutator: the C++ ExprVisitor / ExprMutator whose hooks
// (VisitExpr_ per node type, VisitBinding_, VisitBindingBlock_, VisitVarDef_,
// VisitSpan) may be Python callables (python/tessera/relax/expr_functor.py).
// The traversal runs here; a hook crosses into Python only when the Python
// subclass overrides it (the Python side passes None for the others), so an
// unchanged walk costs what the C++ walk costs. Relax IR layer.
#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "relax/expr_functor.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {
namespace {

// The hooks, in the order the Python side passes them (expr_functor.py _HOOKS).
#define TESSERA_PY_EXPR_HOOKS(X)                                                                          \
  X(kVisitExpr, "visit_expr") X(kConstant, "visit_constant_") X(kTuple, "visit_tuple_") X(kVar, "visit_var_") \
  X(kDataflowVar, "visit_dataflow_var_") X(kShapeExpr, "visit_shape_expr_")                              \
  X(kExternFunc, "visit_extern_func_") X(kGlobalVar, "visit_global_var_") X(kFunction, "visit_function_") \
  X(kCall, "visit_call_") X(kSeqExpr, "visit_seq_expr_") X(kIf, "visit_if_") X(kOp, "visit_op_")           \
  X(kTupleGetItem, "visit_tuple_getitem_") X(kPrimValue, "visit_prim_value_")                              \
  X(kStringImm, "visit_string_imm_") X(kDataTypeImm, "visit_data_type_imm_")                               \
  X(kVisitBinding, "visit_binding") X(kVarBinding, "visit_var_binding_") X(kMatchCast, "visit_match_cast_") \
  X(kVisitBindingBlock, "visit_binding_block") X(kBindingBlock, "visit_binding_block_")                   \
  X(kDataflowBlock, "visit_dataflow_block_") X(kVisitVarDef, "visit_var_def") X(kVarDef, "visit_var_def_") \
  X(kDataflowVarDef, "visit_dataflow_var_def_") X(kSpan, "visit_span")

enum Hook : int {
#define TESSERA_HOOK_ENUM(id, name) id,
  TESSERA_PY_EXPR_HOOKS(TESSERA_HOOK_ENUM)
#undef TESSERA_HOOK_ENUM
  kNumHooks
};
const char* HookName(int h) {
  static const char* names[] = {
#define TESSERA_HOOK_NAME(id, name) name,
      TESSERA_PY_EXPR_HOOKS(TESSERA_HOOK_NAME)
#undef TESSERA_HOOK_NAME
  };
  return names[h];
}

// The Python hooks of one functor object, with the Python class name for messages.
struct PyHooks {
  std::string cls;
  std::array<std::optional<PackedFunc>, kNumHooks> f;
  // Hooks called so far (a failed walk that called none left no trace in Python).
  mutable std::atomic<uint64_t> calls{0};
  // Held by the walk in progress: walks of one functor from several threads take
  // turns; a hook re-entering from the walk's own thread passes.
  mutable std::recursive_mutex mu;

  // Reads (class name, hook 0, ..., hook kNumHooks-1) from `args` starting at `first`.
  PyHooks(const char* what, PackedArgs args, int first) {
    TESSERA_CHECK_OR_THROW(args.size() == first + 1 + kNumHooks, TypeError)
        << what << " expects " << first + 1 + kNumHooks << " arguments but got " << args.size();
    cls = args[first].cast<std::string>();
    for (int i = 0; i < kNumHooks; ++i) {
      const Any& a = args[first + 1 + i];
      if (a.is_none()) continue;
      TESSERA_CHECK_OR_THROW(a.as<PackedFuncObj>(), TypeError)
          << what << ": hook " << HookName(i) << " must be callable or None, got " << a.type_name();
      f[i] = a.cast<PackedFunc>();
    }
  }
  bool Has(Hook h) const { return f[h].has_value(); }
  // Calls hook `h` on `node` if the Python class overrides it (result ignored); whether it did.
  bool TryCall(Hook h, const ObjectRef& node) const {
    if (!f[h]) return false;
    ++calls;
    (*f[h])(node);
    return true;
  }

  // Calls hook `h` on `node`; its result must convert to T (a relax.Expr, Var, BindingBlock, ...).
  template <typename T>
  T CallExpecting(Hook h, const ObjectRef& node, const char* expected) const {
    ++calls;
    Any r = (*f[h])(node);
    if (!r.is_none()) {
      if (auto v = r.try_cast<T>()) return *v;
    }
    TESSERA_THROW(TypeError) << cls << "." << HookName(h) << " must return a " << expected << ", got "
                             << r.type_name() << " (visiting " << node->GetTypeKey() << ")";
  }
};

// The node-type dispatch of the base implementation `Base::VisitExpr_`, for
// Python's super().visit_<node>_() (the Python hook is not called again).
template <typename Self, typename R>
R DispatchBase(Self* self, const RelaxExpr& e) {
  TESSERA_CHECK_OR_THROW(e.defined(), TypeError) << "relax expression functor: visiting None";
  const uint32_t t = e->type_index();
#define TESSERA_BASE_CASE(Node) \
  if (t == Node::RuntimeTypeIndex()) return self->VisitBase_(static_cast<const Node*>(e.get()));
  TESSERA_RELAX_EXPR_NODES(TESSERA_BASE_CASE)
#undef TESSERA_BASE_CASE
  TESSERA_THROW(TypeError) << "relax expression functor does not handle " << e->GetTypeKey();
}

// ---- visitor --------------------------------------------------------------------------------

class PyExprVisitorNode : public Object, public ExprVisitor {
 public:
  explicit PyExprVisitorNode(PackedArgs args) : hooks_("relax.MakePyExprVisitor", args, 0) {}

  void VisitExpr(const RelaxExpr& e) override {
    if (!hooks_.TryCall(kVisitExpr, e)) ExprVisitor::VisitExpr(e);
  }
#define TESSERA_PY_VISIT(Node, hook)                                                 \
  void VisitExpr_(const Node* op) override {                                         \
    if (!hooks_.TryCall(hook, GetRef<RelaxExpr>(op))) ExprVisitor::VisitExpr_(op); \
  }                                                                                  \
  void VisitBase_(const Node* op) { ExprVisitor::VisitExpr_(op); }
  TESSERA_PY_VISIT(ConstantNode, kConstant)
  TESSERA_PY_VISIT(TupleNode, kTuple)
  TESSERA_PY_VISIT(VarNode, kVar)
  // As TVM: a DataflowVar use is not also visited as a Var use (visit_var_).
  void VisitExpr_(const DataflowVarNode* op) override {
    if (!hooks_.TryCall(kDataflowVar, GetRef<RelaxExpr>(op))) VisitBase_(op);
  }
  void VisitBase_(const DataflowVarNode* op) { VisitSpan(op->span); }
  TESSERA_PY_VISIT(ShapeExprNode, kShapeExpr)
  TESSERA_PY_VISIT(ExternFuncNode, kExternFunc)
  TESSERA_PY_VISIT(GlobalVarNode, kGlobalVar)
  TESSERA_PY_VISIT(FunctionNode, kFunction)
  TESSERA_PY_VISIT(CallNode, kCall)
  TESSERA_PY_VISIT(SeqExprNode, kSeqExpr)
  TESSERA_PY_VISIT(IfNode, kIf)
  TESSERA_PY_VISIT(OpNode, kOp)
  TESSERA_PY_VISIT(TupleGetItemNode, kTupleGetItem)
  TESSERA_PY_VISIT(PrimValueNode, kPrimValue)
  TESSERA_PY_VISIT(StringImmNode, kStringImm)
  TESSERA_PY_VISIT(DataTypeImmNode, kDataTypeImm)
#undef TESSERA_PY_VISIT

  void VisitBinding(const Binding& b) override {
    if (!hooks_.TryCall(kVisitBinding, b)) ExprVisitor::VisitBinding(b);
  }
  void VisitBinding_(const VarBindingNode* b) override {
    if (!hooks_.TryCall(kVarBinding, GetRef<Binding>(b))) ExprVisitor::VisitBinding_(b);
  }
  void VisitBinding_(const MatchCastNode* b) override {
    if (!hooks_.TryCall(kMatchCast, GetRef<Binding>(b))) ExprVisitor::VisitBinding_(b);
  }
  void VisitBindingBlock(const BindingBlock& block) override {
    if (!hooks_.TryCall(kVisitBindingBlock, block)) ExprVisitor::VisitBindingBlock(block);
  }
  void VisitBindingBlock_(const BindingBlockNode* block) override {
    if (!hooks_.TryCall(kBindingBlock, GetRef<BindingBlock>(block))) ExprVisitor::VisitBindingBlock_(block);
  }
  void VisitBindingBlock_(const DataflowBlockNode* block) override {
    if (!hooks_.TryCall(kDataflowBlock, GetRef<BindingBlock>(block))) ExprVisitor::VisitBindingBlock_(block);
  }
  void VisitVarDef(const Var& var) override {
    if (!hooks_.TryCall(kVisitVarDef, var)) ExprVisitor::VisitVarDef(var);
  }
  void VisitVarDef_(const VarNode* var) override { hooks_.TryCall(kVarDef, GetRef<Var>(var)); }
  void VisitVarDef_(const DataflowVarNode* var) override { hooks_.TryCall(kDataflowVarDef, GetRef<Var>(var)); }
  void VisitSpan(const Span& span) override { hooks_.TryCall(kSpan, span); }

  // The defaults behind the Python base methods (no hook for the node itself).
  void DefaultVisitExpr(const RelaxExpr& e) { ExprVisitor::VisitExpr(e); }
  void DefaultVisitBinding(const Binding& b) { ExprVisitor::VisitBinding(b); }
  void DefaultVisitBindingBlock(const BindingBlock& b) { ExprVisitor::VisitBindingBlock(b); }
  void DefaultVisitVarDef(const Var& v) { ExprVisitor::VisitVarDef(v); }
  void BaseVisitExpr(const RelaxExpr& e) { DispatchBase<PyExprVisitorNode, void>(this, e); }
  void BaseVisitBinding(const Binding& b) {
    if (const auto* vb = b.as<VarBindingNode>()) return ExprVisitor::VisitBinding_(vb);
    if (const auto* mc = b.as<MatchCastNode>()) return ExprVisitor::VisitBinding_(mc);
    TESSERA_THROW(TypeError) << "relax visitor: unknown binding kind " << b->GetTypeKey();
  }
  void BaseVisitBindingBlock(const BindingBlock& block) {
    if (const auto* df = block.as<DataflowBlockNode>()) return ExprVisitor::VisitBindingBlock_(df);
    ExprVisitor::VisitBindingBlock_(block.get());
  }
  void BaseVisitVarDef(const Var& var) {
    if (const auto* df = var.as<DataflowVarNode>()) return ExprVisitor::VisitVarDef_(df);
    ExprVisitor::VisitVarDef_(var.get());
  }
  void BaseVisitSpan(const Span& span) { ExprVisitor::VisitSpan(span); }

  const PyHooks& hooks() const { return hooks_; }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(PyExprVisitorNode, Object, "relax.PyExprVisitor");

 private:
  PyHooks hooks_;
};

// ---- mutator --------------------------------------------------------------------------------

class PyExprMutatorNode : public Object, public ExprMutator {
 public:
  PyExprMutatorNode(BlockBuilder builder, PackedArgs args) : hooks_("relax.MakePyExprMutator", args, 1) {
    builder_ = std::move(builder);
  }

  RelaxExpr VisitExpr(const RelaxExpr& e) override {
    if (hooks_.Has(kVisitExpr)) {
      return builder_->Normalize(hooks_.CallExpecting<RelaxExpr>(kVisitExpr, e, "relax.Expr"));
    }
    return ExprMutator::VisitExpr(e);
  }
#define TESSERA_PY_MUTATE(Node, hook)                                                          \
  RelaxExpr VisitExpr_(const Node* op) override {                                              \
    if (hooks_.Has(hook)) return hooks_.CallExpecting<RelaxExpr>(hook, GetRef<RelaxExpr>(op), "relax.Expr"); \
    return ExprMutator::VisitExpr_(op);                                                        \
  }                                                                                            \
  RelaxExpr VisitBase_(const Node* op) { return ExprMutator::VisitExpr_(op); }
  TESSERA_PY_MUTATE(ConstantNode, kConstant)
  TESSERA_PY_MUTATE(TupleNode, kTuple)
  TESSERA_PY_MUTATE(VarNode, kVar)
  // As TVM: a DataflowVar use is not also visited as a Var use (visit_var_).
  RelaxExpr VisitExpr_(const DataflowVarNode* op) override {
    if (hooks_.Has(kDataflowVar)) {
      return hooks_.CallExpecting<RelaxExpr>(kDataflowVar, GetRef<RelaxExpr>(op), "relax.Expr");
    }
    return VisitBase_(op);
  }
  RelaxExpr VisitBase_(const DataflowVarNode* op) { return ExprMutator::VisitExpr_(static_cast<const VarNode*>(op)); }
  TESSERA_PY_MUTATE(ShapeExprNode, kShapeExpr)
  TESSERA_PY_MUTATE(ExternFuncNode, kExternFunc)
  TESSERA_PY_MUTATE(GlobalVarNode, kGlobalVar)
  TESSERA_PY_MUTATE(FunctionNode, kFunction)
  TESSERA_PY_MUTATE(CallNode, kCall)
  TESSERA_PY_MUTATE(SeqExprNode, kSeqExpr)
  TESSERA_PY_MUTATE(IfNode, kIf)
  TESSERA_PY_MUTATE(OpNode, kOp)
  TESSERA_PY_MUTATE(TupleGetItemNode, kTupleGetItem)
  TESSERA_PY_MUTATE(PrimValueNode, kPrimValue)
  TESSERA_PY_MUTATE(StringImmNode, kStringImm)
  TESSERA_PY_MUTATE(DataTypeImmNode, kDataTypeImm)
#undef TESSERA_PY_MUTATE

  void VisitBinding(const Binding& b) override {
    if (!hooks_.TryCall(kVisitBinding, b)) ExprMutator::VisitBinding(b);
  }
  void VisitBinding_(const VarBindingNode* b) override {
    if (!hooks_.TryCall(kVarBinding, GetRef<Binding>(b))) ExprMutator::VisitBinding_(b);
  }
  void VisitBinding_(const MatchCastNode* b) override {
    if (!hooks_.TryCall(kMatchCast, GetRef<Binding>(b))) ExprMutator::VisitBinding_(b);
  }
  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    if (hooks_.Has(kVisitBindingBlock)) {
      return hooks_.CallExpecting<BindingBlock>(kVisitBindingBlock, block, "relax.BindingBlock");
    }
    return ExprMutator::VisitBindingBlock(block);
  }
  BindingBlock VisitBindingBlock_(const BindingBlockNode* block) override {
    if (hooks_.Has(kBindingBlock)) {
      return hooks_.CallExpecting<BindingBlock>(kBindingBlock, GetRef<BindingBlock>(block), "relax.BindingBlock");
    }
    return ExprMutator::VisitBindingBlock_(block);
  }
  BindingBlock VisitBindingBlock_(const DataflowBlockNode* block) override {
    if (hooks_.Has(kDataflowBlock)) {
      return hooks_.CallExpecting<BindingBlock>(kDataflowBlock, GetRef<BindingBlock>(block), "relax.BindingBlock");
    }
    return ExprMutator::VisitBindingBlock_(block);
  }
  Var VisitVarDef(const Var& var) override {
    if (hooks_.Has(kVisitVarDef)) return hooks_.CallExpecting<Var>(kVisitVarDef, var, "relax.Var");
    return ExprMutator::VisitVarDef(var);
  }
  Var VisitVarDef_(const VarNode* var) override {
    if (hooks_.Has(kVarDef)) return hooks_.CallExpecting<Var>(kVarDef, GetRef<Var>(var), "relax.Var");
    return ExprMutator::VisitVarDef_(var);
  }
  Var VisitVarDef_(const DataflowVarNode* var) override {
    if (hooks_.Has(kDataflowVarDef)) return hooks_.CallExpecting<Var>(kDataflowVarDef, GetRef<Var>(var), "relax.Var");
    return ExprMutator::VisitVarDef_(var);
  }

  // The defaults behind the Python base methods (no hook for the node itself).
  RelaxExpr DefaultVisitExpr(const RelaxExpr& e) { return ExprMutator::VisitExpr(e); }
  void DefaultVisitBinding(const Binding& b) { ExprMutator::VisitBinding(b); }
  BindingBlock DefaultVisitBindingBlock(const BindingBlock& b) { return ExprMutator::VisitBindingBlock(b); }
  Var DefaultVisitVarDef(const Var& v) { return ExprMutator::VisitVarDef(v); }
  RelaxExpr BaseVisitExpr(const RelaxExpr& e) { return DispatchBase<PyExprMutatorNode, RelaxExpr>(this, e); }
  void BaseVisitBinding(const Binding& b) {
    if (const auto* vb = b.as<VarBindingNode>()) return ExprMutator::VisitBinding_(vb);
    if (const auto* mc = b.as<MatchCastNode>()) return ExprMutator::VisitBinding_(mc);
    TESSERA_THROW(TypeError) << "relax mutator: unknown binding kind " << b->GetTypeKey();
  }
  BindingBlock BaseVisitBindingBlock(const BindingBlock& block) {
    if (const auto* df = block.as<DataflowBlockNode>()) return ExprMutator::VisitBindingBlock_(df);
    return ExprMutator::VisitBindingBlock_(block.get());
  }
  Var BaseVisitVarDef(const Var& var) {
    if (const auto* df = var.as<DataflowVarNode>()) return ExprMutator::VisitVarDef_(df);
    return ExprMutator::VisitVarDef_(var.get());
  }
  // The children of `e` rewritten (hooks apply to them), `e` rebuilt and normalized.
  RelaxExpr VisitExprPostOrder(const RelaxExpr& e) { return builder_->Normalize(BaseVisitExpr(e)); }
  RelaxExpr NewScope(const RelaxExpr& e) { return VisitWithNewScope(e); }
  std::optional<RelaxExpr> Lookup(const Var& v) { return LookupBinding(v); }
  Var StructInfoVar(const Var& v, const StructInfo& s) { return WithStructInfo(v, s); }
  void SetVarRemap(const Var& old_var, const Var& new_var) {
    var_remap_[old_var.get()] = new_var;
    remap_keys_.push_back(old_var);  // the key stays a live object while it is in the map
  }
  std::optional<Var> GetVarRemap(const Var& old_var) const {
    auto it = var_remap_.find(old_var.get());
    if (it == var_remap_.end()) return std::nullopt;
    return it->second;
  }
  const BlockBuilder& builder() const { return builder_; }
  const PyHooks& hooks() const { return hooks_; }

  TESSERA_DECLARE_FINAL_OBJECT_INFO(PyExprMutatorNode, Object, "relax.PyExprMutator");

 private:
  PyHooks hooks_;
  std::vector<Var> remap_keys_;
};

// Runs `f(node)` for a call from Python on functor `self` (a Node), holding the
// functor's lock. A walk that ran out of stack is retried on a large stack by
// the FFI only when no Python hook ran yet (a retry would run the hooks' side
// effects twice); otherwise the RecursionError is final.
template <typename Node, typename F>
auto CallFunctor(const ObjectRef& self, const char* what, F f) {
  auto* n = const_cast<Node*>(self.as<Node>());
  TESSERA_CHECK_OR_THROW(n, TypeError) << what << ": expected a " << Node::_type_key << ", got "
                                       << (self.defined() ? self->GetTypeKey() : "None");
  std::lock_guard<std::recursive_mutex> lock(n->hooks().mu);
  const uint64_t before = n->hooks().calls;
  try {
    return f(n);
  } catch (const RecursionError& e) {
    if (n->hooks().calls == before) throw;
    throw Error(std::string(e.what()) + " (" + n->hooks().cls +
                    "'s Python hooks had already run, so the walk is not retried on a larger stack)",
                "RecursionError");
  }
}

}  // namespace

TESSERA_REGISTER_OBJECT_TYPE(PyExprVisitorNode);
TESSERA_REGISTER_OBJECT_TYPE(PyExprMutatorNode);

// ---- Python API: (class name, hooks...) and (builder, class name, hooks...) ---------------------

TESSERA_REGISTER_GLOBAL("relax.MakePyExprVisitor").set_body([](PackedArgs args) -> Any {
  return ObjectRef(make_object<PyExprVisitorNode>(args));
});
TESSERA_REGISTER_GLOBAL("relax.MakePyExprMutator").set_body([](PackedArgs args) -> Any {
  TESSERA_CHECK_OR_THROW(args.size() > 0 && args[0].as<BlockBuilderNode>(), TypeError)
      << "relax.MakePyExprMutator: argument 0 (builder_) must be a relax.BlockBuilder";
  BlockBuilder bb = args[0].cast<BlockBuilder>();
  return ObjectRef(make_object<PyExprMutatorNode>(bb, args));
});

#define TESSERA_FUNCTOR_GLOBAL(name, Node, Arg, body)                    \
  TESSERA_REGISTER_GLOBAL(name).set_body_typed([](ObjectRef self, Arg x) { \
    return CallFunctor<Node>(self, name, [&](Node* n) { return n->body(x); }); \
  })

TESSERA_FUNCTOR_GLOBAL("relax.PyExprVisitorVisitExpr", PyExprVisitorNode, RelaxExpr, DefaultVisitExpr);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprVisitorVisitBinding", PyExprVisitorNode, Binding, DefaultVisitBinding);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprVisitorVisitBindingBlock", PyExprVisitorNode, BindingBlock, DefaultVisitBindingBlock);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprVisitorVisitVarDef", PyExprVisitorNode, Var, DefaultVisitVarDef);
TESSERA_FUNCTOR_GLOBAL("relax.ExprVisitorVisitExpr", PyExprVisitorNode, RelaxExpr, BaseVisitExpr);
TESSERA_FUNCTOR_GLOBAL("relax.ExprVisitorVisitBinding", PyExprVisitorNode, Binding, BaseVisitBinding);
TESSERA_FUNCTOR_GLOBAL("relax.ExprVisitorVisitBindingBlock", PyExprVisitorNode, BindingBlock, BaseVisitBindingBlock);
TESSERA_FUNCTOR_GLOBAL("relax.ExprVisitorVisitVarDef", PyExprVisitorNode, Var, BaseVisitVarDef);
TESSERA_FUNCTOR_GLOBAL("relax.ExprVisitorVisitSpan", PyExprVisitorNode, Span, BaseVisitSpan);

TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorVisitExpr", PyExprMutatorNode, RelaxExpr, DefaultVisitExpr);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorVisitBinding", PyExprMutatorNode, Binding, DefaultVisitBinding);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorVisitBindingBlock", PyExprMutatorNode, BindingBlock, DefaultVisitBindingBlock);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorVisitVarDef", PyExprMutatorNode, Var, DefaultVisitVarDef);
TESSERA_FUNCTOR_GLOBAL("relax.ExprMutatorVisitExpr", PyExprMutatorNode, RelaxExpr, BaseVisitExpr);
TESSERA_FUNCTOR_GLOBAL("relax.ExprMutatorVisitBinding", PyExprMutatorNode, Binding, BaseVisitBinding);
TESSERA_FUNCTOR_GLOBAL("relax.ExprMutatorVisitBindingBlock", PyExprMutatorNode, BindingBlock, BaseVisitBindingBlock);
TESSERA_FUNCTOR_GLOBAL("relax.ExprMutatorVisitVarDef", PyExprMutatorNode, Var, BaseVisitVarDef);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorVisitExprPostOrder", PyExprMutatorNode, RelaxExpr, VisitExprPostOrder);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorVisitWithNewScope", PyExprMutatorNode, RelaxExpr, NewScope);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorLookupBinding", PyExprMutatorNode, Var, Lookup);
TESSERA_FUNCTOR_GLOBAL("relax.PyExprMutatorGetVarRemap", PyExprMutatorNode, Var, GetVarRemap);
#undef TESSERA_FUNCTOR_GLOBAL

TESSERA_REGISTER_GLOBAL("relax.PyExprMutatorSetVarRemap").set_body_typed([](ObjectRef self, Var old_var, Var new_var) {
  CallFunctor<PyExprMutatorNode>(self, "relax.PyExprMutatorSetVarRemap",
                                 [&](PyExprMutatorNode* n) { n->SetVarRemap(old_var, new_var); });
});
TESSERA_REGISTER_GLOBAL("relax.PyExprMutatorWithStructInfo").set_body_typed([](ObjectRef self, Var var, StructInfo sinfo) {
  return CallFunctor<PyExprMutatorNode>(self, "relax.PyExprMutatorWithStructInfo",
                                        [&](PyExprMutatorNode* n) { return n->StructInfoVar(var, sinfo); });
});

}  // namespace relax
}  // namespace tessera
