// relax.analysis.get_var2val: each var bound by a VarBinding anywhere in a
// function (nested functions and If branches included) -> its value. The
// dataflow pattern matcher sees through vars with it (pattern.match(e, var2val)).
#include "relax/expr_functor.h"
#include "runtime/registry.h"

namespace tessera {
namespace relax {

namespace {
class Var2ValCollector : public ExprVisitor {
 public:
  Map<Var, RelaxExpr> var2val;
  using ExprVisitor::VisitBinding_;
  void VisitBinding_(const VarBindingNode* b) override {
    var2val.Set(b->var, b->value);
    ExprVisitor::VisitBinding_(b);
  }
};
}  // namespace

TESSERA_REGISTER_GLOBAL("relax.analysis.get_var2val").set_body_typed([](RelaxExpr f) {
  Var2ValCollector c;
  c.VisitExpr(f);
  return c.var2val;
});

}  // namespace relax
}  // namespace tessera
