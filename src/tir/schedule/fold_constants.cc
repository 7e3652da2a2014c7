// Integer constant folding after substitution (see fold_constants.h).
#include "tir/schedule/fold_constants.h"

#include "tir/functor.h"
#include "tir/op.h"

#include <type_traits>

namespace tessera {
namespace tir {
namespace {

// Folds integer arithmetic in expressions; in statements, only in block
// bindings and predicates (bindings_only) or everywhere.
class ConstantFolder : public StmtExprMutator {
 public:
  explicit ConstantFolder(bool bindings_only) : active_(!bindings_only), bindings_only_(bindings_only) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    if (!bindings_only_) return StmtExprMutator::VisitStmt_(op);
    Stmt inner = StmtExprMutator::VisitStmt_(op);  // nested blocks
    const auto* realize = inner.as<BlockRealizeNode>();
    active_ = true;
    std::vector<PrimExpr> values;
    bool changed = false;
    for (const PrimExpr& v : realize->iter_values) {
      values.push_back(VisitExpr(v));
      changed = changed || !values.back().same_as(v);
    }
    PrimExpr pred = VisitExpr(realize->predicate);
    active_ = false;
    if (!changed && pred.same_as(realize->predicate)) return inner;
    return BlockRealize(Array<PrimExpr>(values), pred, realize->block, realize->span);
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return active_ ? StmtExprMutator::VisitExpr(e) : e; }
  PrimExpr VisitExpr_(const AddNode* op) override { return Fold(op, add, [](auto a, auto b, auto sp) { return Add(a, b, sp); }); }
  PrimExpr VisitExpr_(const SubNode* op) override { return Fold(op, sub, [](auto a, auto b, auto sp) { return Sub(a, b, sp); }); }
  PrimExpr VisitExpr_(const MulNode* op) override { return Fold(op, mul, [](auto a, auto b, auto sp) { return Mul(a, b, sp); }); }
  PrimExpr VisitExpr_(const FloorDivNode* op) override {
    return Fold(op, floordiv, [](auto a, auto b, auto sp) { return FloorDiv(a, b, sp); });
  }
  PrimExpr VisitExpr_(const FloorModNode* op) override {
    return Fold(op, floormod, [](auto a, auto b, auto sp) { return FloorMod(a, b, sp); });
  }

 private:
  // `make` is the folding constructor of tir/op.h, `rebuild` the plain one:
  // non-integer arithmetic and a division by a constant 0 (left for the
  // checks that name it) are only rebuilt.
  template <typename Node, typename Make, typename Rebuild>
  PrimExpr Fold(const Node* op, Make make, Rebuild rebuild) {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    bool same = a.same_as(op->a) && b.same_as(op->b);
    bool division = std::is_same_v<Node, FloorDivNode> || std::is_same_v<Node, FloorModNode>;
    if ((!op->dtype.is_int() && !op->dtype.is_uint()) || (division && IsConstInt(b, 0))) {
      return same ? GetRef<PrimExpr>(op) : PrimExpr(rebuild(a, b, op->span));
    }
    PrimExpr folded = make(a, b, op->span);
    if (same && folded.as<Node>()) return GetRef<PrimExpr>(op);
    return folded;
  }
  bool active_;
  bool bindings_only_;
};

}  // namespace

PrimExpr FoldIntConstants(const PrimExpr& e) { return ConstantFolder(false).VisitExpr(e); }

Stmt FoldBindingConstants(const Stmt& s) { return ConstantFolder(true).VisitStmt(s); }

}  // namespace tir
}  // namespace tessera
