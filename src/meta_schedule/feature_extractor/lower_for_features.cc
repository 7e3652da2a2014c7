// LowerForFeatureExtraction (see lower_for_features.h).
#include "meta_schedule/feature_extractor/lower_for_features.h"

#include <unordered_set>

#include "runtime/registry.h"
#include "tir/functor.h"
#include "tir/transform/compact_buffer_allocation.h"
#include "tir/transform/convert_blocks_to_opaque.h"
#include "tir/transform/lower_init_block.h"
#include "tir/transform/lower_opaque_block.h"

namespace tessera {
namespace meta_schedule {
namespace {

using namespace tir;

class FeatureSimplifier : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt;

 private:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  static bool HasLoad(const PrimExpr& e) {
    bool found = false;
    PostOrderVisit(e, [&found](const ObjectRef& n) { found = found || n.as<BufferLoadNode>() != nullptr; });
    return found;
  }
  // A select on indices only (boundary guards) is not computation: it becomes 1.
  PrimExpr VisitExpr_(const SelectNode* op) override {
    if (HasLoad(op->condition) || HasLoad(op->true_value) || HasLoad(op->false_value)) {
      return StmtExprMutator::VisitExpr_(op);
    }
    if (op->dtype.is_float() || op->dtype.is_bfloat16()) return FloatImm(op->dtype, 1.0);
    return IntImm(op->dtype, 1);
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (unit_vars_.count(op)) return IntImm(op->dtype, 0);
    return StmtExprMutator::VisitExpr_(op);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    if (IsConstInt(op->extent, 0)) return Evaluate(IntImm(DataType::Int(32), 0));
    if (IsConstInt(op->min, 0) && IsConstInt(op->extent, 1) && op->kind == ForKind::kSerial &&
        op->annotations.empty()) {
      unit_vars_.insert(op->loop_var.get());
      return VisitStmt(op->body);
    }
    return StmtExprMutator::VisitStmt_(op);
  }
  std::unordered_set<const Object*> unit_vars_;
};

}  // namespace

PrimFunc SimplifyForFeatureExtraction(PrimFunc func) {
  FeatureSimplifier simplifier;
  Stmt body = simplifier.VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

IRModule LowerForFeatureExtraction(const IRModule& mod) {
  TESSERA_CHECK_OR_THROW(mod.defined(), ValueError) << "per-store features: the module is None";
  Map<GlobalVar, BaseFunc> funcs;
  for (const auto& [gv, base] : mod->functions.items()) {
    auto func = base.as<PrimFuncNode>() ? std::optional<PrimFunc>(Downcast<PrimFunc>(base)) : std::nullopt;
    if (!func) continue;
    PrimFunc f = SimplifyForFeatureExtraction(*func);
    f = LowerInitBlock(f);
    f = ConvertBlocksToOpaque(f);
    f = LowerOpaqueBlock(f);
    f = CompactBufferAllocation(f);
    funcs.Set(gv, f);
  }
  return IRModule(funcs, mod->attrs);
}

TESSERA_REGISTER_GLOBAL("meta_schedule.LowerForPerStoreFeature").set_body_typed([](IRModule mod) {
  return LowerForFeatureExtraction(mod);
});

}  // namespace meta_schedule
}  // namespace tessera
