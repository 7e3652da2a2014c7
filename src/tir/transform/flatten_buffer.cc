// FlattenBuffer (see flatten_buffer.h).
#include "tir/transform/flatten_buffer.h"

#include "tir/transform/prim_func_pass.h"

#include <unordered_map>

#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {

PrimExpr FlatIndex(const Buffer& buffer, const Array<PrimExpr>& indices) {
  const size_t n = indices.size();
  if (n == 0) return IntImm(DataType::Int(32), 0);
  // Use the widest index dtype so large buffers do not overflow.
  DataType t = indices[0].dtype().element_of();
  for (PrimExpr i : indices) {
    if (i.dtype().bits() > t.bits()) t = i.dtype().element_of();
  }
  for (PrimExpr s : buffer->shape) {
    if (s.dtype().bits() > t.bits()) t = s.dtype();
  }
  PrimExpr flat;
  if (!buffer->strides.empty()) {
    for (size_t i = 0; i < n; ++i) {
      PrimExpr term = mul(indices[i], cast(t, buffer->strides[i]));
      flat = flat.defined() ? add(flat, term) : term;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      flat = flat.defined() ? add(mul(flat, cast(t, buffer->shape[i])), indices[i]) : indices[i];
    }
  }
  if (!IsConstInt(buffer->elem_offset, 0)) flat = add(flat, cast(t, buffer->elem_offset));
  if (flat.dtype().element_of() != t) flat = cast(t.with_lanes(flat.dtype().lanes()), flat);
  return flat;
}

namespace {

class BufferFlattener : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
    return BufferLoad(Flat(op->buffer), {FlatIndex(op->buffer, idx)}, op->span);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
    return BufferStore(Flat(op->buffer), VisitExpr(op->value), {FlatIndex(op->buffer, idx)}, op->span);
  }

  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt body = VisitStmt(op->body);
    PrimExpr total = IntImm(DataType::Int(64), 1);
    for (PrimExpr e : op->extents) total = mul(total, cast(DataType::Int(64), e));
    return Allocate(op->buffer_var, op->dtype, {total}, op->condition, body, op->annotations, op->span);
  }

  Stmt VisitStmt_(const DeclBufferNode* op) override { return VisitStmt(op->body); }

 private:
  Buffer Flat(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    // Elements the flat view spans: the product of the shape, or with explicit
    // (padded) strides the outermost extent times its stride.
    PrimExpr total = IntImm(DataType::Int(64), 1);
    if (!b->strides.empty() && !b->shape.empty()) {
      total = mul(cast(DataType::Int(64), b->shape[0]), cast(DataType::Int(64), b->strides[0]));
    } else {
      for (PrimExpr e : b->shape) total = mul(total, cast(DataType::Int(64), e));
    }
    Buffer flat(b->data, b->dtype, {total}, {}, IntImm(DataType::Int(32), 0), b->name, b->scope, b->data_alignment,
                b->offset_factor, b->span);
    flat_.emplace(b.get(), flat);
    return flat;
  }
  std::unordered_map<const BufferNode*, Buffer> flat_;
};

}  // namespace

PrimFunc FlattenBuffer(PrimFunc func) {
  Stmt body = BufferFlattener().VisitStmt(func->body);
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass FlattenBuffer() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::FlattenBuffer(f); }, 0, "FlattenBuffer");
}
TESSERA_REGISTER_PASS("tir.transform.FlattenBuffer", FlattenBuffer);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
