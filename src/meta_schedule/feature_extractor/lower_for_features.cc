// LowerForFeatureExtraction (see lower_for_features.h).
#include "meta_schedule/feature_extractor/lower_for_features.h"

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
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
    auto it = same_thread_.find(op);
    if (it != same_thread_.end()) return it->second;
    return StmtExprMutator::VisitExpr_(op);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    if (IsConstInt(op->extent, 0)) return Evaluate(IntImm(DataType::Int(32), 0));
    if (IsConstInt(op->min, 0) && IsConstInt(op->extent, 1) && op->kind == ForKind::kSerial &&
        op->annotations.empty()) {
      unit_vars_.insert(op->loop_var.get());
      return VisitStmt(op->body);
    }
    // A loop bound to a thread already launched by an enclosing loop of the same
    // extent is that thread (TVM unifies thread bindings before extracting).
    std::string tag = op->kind == ForKind::kThreadBinding && op->thread_binding ? (*op->thread_binding)->thread_tag : "";
    if (!tag.empty()) {
      auto outer = threads_.find(tag);
      if (outer != threads_.end() && IsConstInt(outer->second->extent, AsConstInt(op->extent) ? *AsConstInt(op->extent) : -1) &&
          IsConstInt(op->min, 0) && IsConstInt(outer->second->min, 0)) {
        same_thread_[op->loop_var.get()] = outer->second->loop_var;
        return VisitStmt(op->body);
      }
      if (outer == threads_.end()) {
        threads_[tag] = op;
        Stmt out = StmtExprMutator::VisitStmt_(op);
        threads_.erase(tag);
        return out;
      }
    }
    return StmtExprMutator::VisitStmt_(op);
  }
  std::unordered_set<const Object*> unit_vars_;
  std::unordered_map<std::string, const ForNode*> threads_;          // launched thread tag -> its loop
  std::unordered_map<const Object*, PrimExpr> same_thread_;          // re-bound loop var -> launched var
};

// Simplifies buffer indices and conditions under the ranges of the loops around
// them (TVM runs its Simplify pass here): split/fuse index arithmetic collapses,
// so group 1's integer counts and group 2's strides see what the code computes.
class IndexSimplifier : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt;

 private:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    analyzer_.Bind(op->loop_var, Range::FromMinExtent(op->min, op->extent), true);
    return StmtExprMutator::VisitStmt_(op);
  }
  Array<PrimExpr> SimplifyAll(const Array<PrimExpr>& exprs, bool* changed) {
    Array<PrimExpr> out;
    for (const PrimExpr& e : exprs) {
      PrimExpr s = analyzer_.Simplify(VisitExpr(e));
      *changed = *changed || !s.same_as(e);
      out.push_back(s);
    }
    return out;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    bool changed = false;
    Array<PrimExpr> indices = SimplifyAll(op->indices, &changed);
    if (!changed) return GetRef<PrimExpr>(op);
    return BufferLoad(op->buffer, indices, op->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    bool changed = false;
    Array<PrimExpr> indices = SimplifyAll(op->indices, &changed);
    PrimExpr value = VisitExpr(op->value);
    if (!changed && value.same_as(op->value)) return GetRef<Stmt>(op);
    return BufferStore(op->buffer, value, indices, op->span);
  }
  arith::Analyzer analyzer_;
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
    IndexSimplifier simplifier;
    Stmt body = simplifier.VisitStmt(f->body);
    if (!body.same_as(f->body)) f.CopyOnWrite()->body = body;
    funcs.Set(gv, f);
  }
  return IRModule(funcs, mod->attrs);
}

TESSERA_REGISTER_GLOBAL("meta_schedule.LowerForPerStoreFeature").set_body_typed([](IRModule mod) {
  return LowerForFeatureExtraction(mod);
});

}  // namespace meta_schedule
}  // namespace tessera
