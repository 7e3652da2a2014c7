// RemovePurityChecking: every pure Relax function (nested ones included)
// gets the attribute "relax.force_pure" = True, and the purity wrappers are
// unwrapped: R.call_pure_packed(f, args...) becomes a plain call f(args...)
// (R.call_packed), R.invoke_pure_closure becomes R.invoke_closure. Runs after
// ToNonDataflow so that the lowering passes after it may emit impure calls.
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/function_pass.h"

namespace tessera {
namespace relax {
namespace {

constexpr const char* kForcePure = "relax.force_pure";

class PurityRemover : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;
  using ExprMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const FunctionNode* op) override {
    Function f = Downcast<Function>(ExprMutator::VisitExpr_(op));
    if (f->is_pure) f = WithAttr(f, kForcePure, Any(true));
    return f;
  }

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr expr = ExprMutator::VisitExpr_(op);
    const auto* call = expr.as<CallNode>();
    static const Op& call_pure_packed = Op::Get("relax.call_pure_packed");
    if (call->op.same_as(call_pure_packed)) {
      TESSERA_CHECK_OR_THROW(!call->args.empty(), ValueError)
          << "RemovePurityChecking: R.call_pure_packed without a callee argument";
      Array<RelaxExpr> args;
      for (size_t i = 1; i < call->args.size(); ++i) args.push_back(call->args[i]);
      return Call(call->args[0], args, call->attrs, call->sinfo_args, call->span);
    }
    if (Op::Exists("relax.invoke_pure_closure") && call->op.same_as(Op::Get("relax.invoke_pure_closure"))) {
      return Call(Op::Get("relax.invoke_closure"), call->args, call->attrs, call->sinfo_args, call->span);
    }
    return expr;
  }
};

}  // namespace

namespace transform {

Pass RemovePurityChecking() {
  return CreateFunctionPass(
      [](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(PurityRemover(mod).VisitExpr(func));
      },
      0,
      "RemovePurityChecking");
}
TESSERA_REGISTER_PASS("relax.transform.RemovePurityChecking", RemovePurityChecking);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
