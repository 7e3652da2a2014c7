// ToNonDataflow: every DataflowBlock becomes a BindingBlock and every
// DataflowVar a Var of the same name and struct info (their uses follow), in
// every Relax function including nested ones and If branches. First
// lowering pass of relax.build, so that later passes may emit impure calls.
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/function_pass.h"

namespace tessera {
namespace relax {
namespace {

class DataflowRemover : public ExprMutator {
 public:
  using ExprMutator::ExprMutator;

  Var VisitVarDef_(const DataflowVarNode* var) override {
    Var plain(var->name_hint, GetStructInfo(GetRef<Var>(var)), var->span);
    var_remap_[var] = plain;
    return plain;
  }

  BindingBlock VisitBindingBlock_(const DataflowBlockNode* block) override {
    builder_->BeginBindingBlock();
    for (const Binding& b : block->bindings) VisitBinding(b);
    return builder_->EndBlock();
  }
};

}  // namespace

namespace transform {

Pass ToNonDataflow() {
  return CreateFunctionPass(
      [](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(DataflowRemover(mod).VisitExpr(func));
      },
      0,
      "ToNonDataflow");
}
TESSERA_REGISTER_PASS("relax.transform.ToNonDataflow", ToNonDataflow);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
