// ConvertBlocksToOpaque (see convert_blocks_to_opaque.h).
#include "tir/transform/convert_blocks_to_opaque.h"

#include <unordered_map>

#include "tir/functor.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

class OpaqueBlockConverter : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = var_map_.find(op);
    return it == var_map_.end() ? GetRef<PrimExpr>(op) : it->second;
  }

  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    const Block& block = op->block;
    if (block->init) {
      TESSERA_THROW(ValueError) << "ConvertBlocksToOpaque: block " << block->name_hint
                                << " still has an init statement; run LowerInitBlock first";
    }
    bool changed = false;
    Array<PrimExpr> values = VisitExprs(op->iter_values, &changed);
    PrimExpr pred = VisitExpr(op->predicate);
    for (size_t i = 0; i < block->iter_vars.size(); ++i) var_map_[block->iter_vars[i]->var.get()] = values[i];
    Stmt visited = VisitStmt(block);
    for (const IterVar& iv : block->iter_vars) var_map_.erase(iv->var.get());
    if (block->iter_vars.empty() && !changed && pred.same_as(op->predicate) && visited.same_as(block)) {
      return GetRef<Stmt>(op);
    }
    Block opaque = Downcast<Block>(visited);
    opaque.CopyOnWrite()->iter_vars = Array<IterVar>();
    return BlockRealize(Array<PrimExpr>(), pred, opaque, op->span);
  }

 private:
  std::unordered_map<const VarNode*, PrimExpr> var_map_;
};

}  // namespace

PrimFunc ConvertBlocksToOpaque(PrimFunc func) {
  Stmt body = OpaqueBlockConverter().VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass ConvertBlocksToOpaque() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::ConvertBlocksToOpaque(f); }, 0,
                            "ConvertBlocksToOpaque");
}
TESSERA_REGISTER_PASS("tir.transform.ConvertBlocksToOpaque", ConvertBlocksToOpaque);

}  // namespace transform
}  // namespace tir
}  // namespace tessera
