// relax.analysis.computable_at_compile_time: the vars of a Relax function
// whose values depend only on what is known before run time (constants, the
// parameters past the function's "num_input" attribute and the symbolic dims
// those define), in binding order, as TVM's analysis of that name. Relax
// analysis layer (used to decide what LiftTransformParams-like passes may hoist).
#include <unordered_set>

#include "relax/analysis/vars.h"
#include "relax/expr_functor.h"
#include "relax/struct_info.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {
namespace {

// The symbolic (tir) vars in the PrimExprs of an expression.
class SymbolicVarCollector : public ExprVisitor {
 public:
  std::vector<tir::Var> vars;
  void VisitPrimExpr(const PrimExpr& e) override {
    tir::PostOrderVisit(e, [&](const ObjectRef& n) {
      if (const auto* v = n.as<tir::VarNode>()) vars.push_back(GetRef<tir::Var>(v));
    });
  }
};

class CompileTimeCollector : public ExprVisitor {
 public:
  std::vector<Var> known;

  void VisitExpr_(const FunctionNode* f) override {
    if (auto n = GetRef<Function>(f).GetAttr("num_input")) {
      TESSERA_CHECK_OR_THROW(n->kind() == Any::Kind::kInt || n->as<IntImmNode>(), TypeError)
          << "computable_at_compile_time: the function attribute num_input must be an integer, got "
          << n->type_name();
      int64_t num_input = n->kind() == Any::Kind::kInt ? n->raw_int() : n->as<IntImmNode>()->value;
      for (size_t i = static_cast<size_t>(std::max<int64_t>(num_input, 0)); i < f->params.size(); ++i) {
        MarkKnown(f->params[i]);
      }
    }
    ExprVisitor::VisitExpr_(f);
  }

  void VisitBinding(const Binding& b) override {
    RelaxExpr value;
    if (const auto* vb = b.as<VarBindingNode>()) value = vb->value;
    if (const auto* mc = b.as<MatchCastNode>()) value = mc->value;
    bool computable = value.defined();
    if (computable) {
      for (const Var& v : FreeVars(value)) computable &= known_vars_.count(v.get()) != 0;
      SymbolicVarCollector sym;
      sym.VisitExpr(value);
      for (const tir::Var& v : sym.vars) computable &= known_tir_.count(v.get()) != 0;
    }
    if (computable) MarkKnown(b->var);
    ExprVisitor::VisitBinding(b);
  }

 private:
  void MarkKnown(const Var& var) {
    if (!known_vars_.insert(var.get()).second) return;
    known.push_back(var);
    if (var->struct_info_.defined()) {
      for (const tir::Var& v : TIRVarsInStructInfo(GetStructInfo(var))) known_tir_.insert(v.get());
    }
  }
  std::unordered_set<const Object*> known_vars_;
  std::unordered_set<const Object*> known_tir_;
};

}  // namespace

TESSERA_REGISTER_GLOBAL("relax.analysis.computable_at_compile_time").set_body_typed([](Function f) {
  CompileTimeCollector c;
  c.VisitExpr(f);
  return Array<Var>(c.known);
});

}  // namespace relax
}  // namespace tessera
