// LowerInitBlock (see lower_init_block.h).
#include "tir/transform/lower_init_block.h"

#include "tir/transform/prim_func_pass.h"

#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

class InitBlockLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const BlockNode* op) override {
    Block block = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    if (!block->init) return block;
    PrimExpr cond = IntImm(DataType::Bool(), 1);
    for (IterVar iv : block->iter_vars) {
      if (iv->iter_type == kCommReduce) cond = logical_and(cond, equal(iv->var, iv->dom->min));
    }
    Stmt init = *block->init;
    Stmt guarded = IsConstInt(cond, 1) ? init : Stmt(IfThenElse(cond, init));
    auto* n = block.CopyOnWrite();
    n->body = SeqStmt::Flatten({guarded, n->body});
    n->init = std::nullopt;
    return block;
  }
};

}  // namespace

PrimFunc LowerInitBlock(PrimFunc func) {
  Stmt body = InitBlockLowerer().VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass LowerInitBlock() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::LowerInitBlock(f); }, 0, "LowerInitBlock");
}
TESSERA_REGISTER_PASS("tir.transform.LowerInitBlock", LowerInitBlock);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
