// NarrowIndexType (see narrow_index_type.h): first a check of the whole
// function (every int64 node a loop or let variable's arithmetic whose bound
// fits in int32), then a rewrite of every int64 node to int32.
#include "tir/transform/narrow_index_type.h"

#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "runtime/registry.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

bool IsInt64(DataType t) { return (t.is_int() || t.is_uint()) && t.bits() == 64; }

DataType Narrowed(DataType t) { return DataType::Int(32).with_lanes(t.lanes()); }

// Whether every int64 value of a function is index arithmetic within int32.
class NarrowCheck : public StmtExprVisitor {
 public:
  bool ok = true;

  using StmtExprVisitor::VisitExpr;
  using StmtExprVisitor::VisitStmt;

  void VisitExpr(const PrimExpr& e) override {
    if (!ok) return;
    if (IsInt64(e.dtype()) && !Fits(e)) {
      ok = false;
      return;
    }
    StmtExprVisitor::VisitExpr(e);
  }

  void VisitExpr_(const VarNode* op) override {
    if (IsInt64(op->dtype) && !defined_.count(op)) ok = false;  // a scalar parameter (a symbolic shape)
  }
  void VisitExpr_(const CastNode* op) override {
    if (IsInt64(op->dtype) && !(op->value.dtype().is_int() || op->value.dtype().is_uint() || op->value.dtype().is_bool())) {
      ok = false;  // a float made an integer: not an index
    }
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const CallNode* op) override {
    if (IsInt64(op->dtype)) ok = false;
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    if (IsInt64(op->buffer->dtype)) ok = false;
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const LetNode* op) override {
    VisitExpr(op->value);
    Define(op->var, op->value);
    VisitExpr(op->body);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (IsInt64(op->buffer->dtype)) ok = false;
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode* op) override {
    if (IsInt64(op->dtype)) ok = false;
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode* op) override {
    VisitExpr(op->value);
    Define(op->var, op->value);
    VisitStmt(op->body);
  }
  void VisitStmt_(const ForNode* op) override {
    if (!AsConstInt(op->min) || !AsConstInt(op->extent)) {
      ok = false;
      return;
    }
    VisitExpr(op->min);
    VisitExpr(op->extent);
    defined_.insert(op->loop_var.get());
    analyzer_.Bind(op->loop_var, Range::FromMinExtent(op->min, op->extent), true);
    VisitStmt(op->body);
  }

 private:
  void Define(const Var& var, const PrimExpr& value) {
    defined_.insert(var.get());
    if (!value.dtype().is_scalar() || !(value.dtype().is_int() || value.dtype().is_uint())) return;
    analyzer_.const_int_bound.Update(var, analyzer_.const_int_bound(value), true);
  }

  bool Fits(const PrimExpr& e) {
    auto within = [&](const PrimExpr& x) {
      if (!x.dtype().is_scalar()) return false;
      arith::ConstIntBound b = analyzer_.const_int_bound(x);
      return b->min_value >= std::numeric_limits<int32_t>::min() && b->max_value <= std::numeric_limits<int32_t>::max();
    };
    if (const auto* ramp = e.as<RampNode>()) {
      return within(ramp->base) && within(ramp->stride) &&
             within(ramp->base + ramp->stride * IntImm(ramp->stride.dtype(), ramp->lanes - 1));
    }
    if (const auto* bcast = e.as<BroadcastNode>()) return within(bcast->value);
    if (!e.dtype().is_scalar()) return false;  // other vector index arithmetic: left alone
    return within(e);
  }

  arith::Analyzer analyzer_;
  std::unordered_set<const VarNode*> defined_;
};

// Every int64 node rewritten to int32 (variables renamed once, at their definition).
class Narrower : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const IntImmNode* op) override {
    return IsInt64(op->dtype) ? IntImm(DataType::Int(32), op->value) : GetRef<PrimExpr>(op);
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? GetRef<PrimExpr>(op) : PrimExpr(it->second);
  }
  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    DataType to = IsInt64(op->dtype) ? Narrowed(op->dtype) : op->dtype;
    if (v.dtype() == to) return v;
    return Cast(to, v, op->span);
  }
  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    Var var = Rename(op->var);
    return Let(var, value, VisitExpr(op->body), op->span);
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    PrimExpr value = VisitExpr(op->value);
    Var var = Rename(op->var);
    return LetStmt(var, value, VisitStmt(op->body), op->span);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    PrimExpr min = VisitExpr(op->min), extent = VisitExpr(op->extent);
    Var var = Rename(op->loop_var);
    std::optional<IterVar> binding = op->thread_binding;
    if (binding) {
      binding = IterVar(Range::FromMinExtent(min, extent), var, (*binding)->iter_type, (*binding)->thread_tag);
    }
    return For(var, min, extent, op->kind, VisitStmt(op->body), binding, op->annotations, op->span);
  }

 private:
  Var Rename(const Var& var) {
    if (!IsInt64(var.dtype())) return var;
    Var narrow(var->name_hint, Narrowed(var.dtype()));
    vars_[var.get()] = narrow;
    return narrow;
  }

  std::unordered_map<const VarNode*, Var> vars_;
};

}  // namespace

PrimFunc NarrowIndexType(PrimFunc func) {
  NarrowCheck check;
  check.VisitStmt(func->body);
  if (!check.ok) return func;
  func.CopyOnWrite()->body = Narrower().VisitStmt(func->body);
  return func;
}

namespace transform {

tessera::transform::Pass NarrowIndexType() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::NarrowIndexType(f); }, 0,
                            "NarrowIndexType");
}
TESSERA_REGISTER_PASS("tir.transform.NarrowIndexType", NarrowIndexType);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
