// CollectPointAccess / RewritePointAccess (point_access.h): a visitor
// recording a buffer's loads and stores in a block, and a mutator moving
// them to another buffer. TIR schedule layer (primitives).
#include "tir/schedule/primitive/point_access.h"

#include "arith/expr_deep_equal.h"

namespace tessera {
namespace tir {

namespace {

class PointCollector : public StmtExprVisitor {
 public:
  explicit PointCollector(const Buffer& buf) : buf_(buf) {}
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitExpr_(const BufferLoadNode* op) override {
    if (op->buffer.same_as(buf_)) {
      out.loaded = true;
      Note(op->indices);
    }
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    if (op->buffer.same_as(buf_)) {
      out.stored = true;
      Note(op->indices);
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockRealizeNode* op) override {
    if (out.nested == nullptr) out.nested = op->block.get();
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const VarNode* op) override {
    if (op == buf_->data.get()) out.opaque = true;
  }
  PointAccess out;

 private:
  void Note(const Array<PrimExpr>& idx) {
    if (!out.indices) {
      out.indices = idx;
      return;
    }
    bool same = idx.size() == out.indices->size();
    for (size_t i = 0; same && i < idx.size(); ++i) same = arith::ExprDeepEqual(idx[i], (*out.indices)[i]);
    out.single = out.single && same;
  }
  Buffer buf_;
};

class PointRewriter : public StmtExprMutator {
 public:
  PointRewriter(Buffer from, Buffer to, Array<PrimExpr> to_idx)
      : from_(std::move(from)), to_(std::move(to)), idx_(std::move(to_idx)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    if (!op->buffer.same_as(from_)) return StmtExprMutator::VisitExpr_(op);
    return BufferLoad(to_, idx_, op->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    if (!op->buffer.same_as(from_)) return StmtExprMutator::VisitStmt_(op);
    return BufferStore(to_, VisitExpr(op->value), idx_, op->span);
  }

 private:
  Buffer from_, to_;
  Array<PrimExpr> idx_;
};

}  // namespace

PointAccess CollectPointAccess(const BlockNode* block, const Buffer& buf) {
  PointCollector collector(buf);
  collector.VisitStmt(block->body);
  if (block->init) collector.VisitStmt(*block->init);
  return collector.out;
}

Stmt RewritePointAccess(const Stmt& stmt, const Buffer& from, const Buffer& to, const Array<PrimExpr>& to_indices) {
  return PointRewriter(from, to, to_indices).VisitStmt(stmt);
}

}  // namespace tir
}  // namespace tessera
