// FlattenBuffer (see flatten_buffer.h).
#include "tir/transform/flatten_buffer.h"

#include "tir/transform/prim_func_pass.h"

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {

namespace {
// The largest flat offset of an element of `buffer` (elem_offset included)
// when its shape, strides and offset are constants (INT64_MAX when that
// overflows); 0 when one is symbolic: its range is unknown here, so the
// index dtype the program chose is kept (as TVM does).
int64_t MaxFlatOffset(const Buffer& buffer) {
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max();
  __int128 total = 0;
  __int128 stride = 1;
  for (size_t k = buffer->shape.size(); k-- > 0;) {
    std::optional<int64_t> extent = ConstIntValue(buffer->shape[k]);
    if (!extent) return 0;
    if (!buffer->strides.empty()) {
      std::optional<int64_t> s = ConstIntValue(buffer->strides[k]);
      if (!s) return 0;
      stride = *s;
    }
    if (*extent > 0) total += static_cast<__int128>(*extent - 1) * (stride < 0 ? -stride : stride);
    if (buffer->strides.empty()) stride *= *extent;
    if (total > kHuge || stride > kHuge || stride < -kHuge) return kHuge;
  }
  if (const int64_t* off = AsConstInt(buffer->elem_offset)) {
    total += *off < 0 ? -static_cast<__int128>(*off) : *off;
  } else {
    return 0;
  }
  return total > kHuge ? kHuge : static_cast<int64_t>(total);
}
}  // namespace

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
  // An offset that can exceed the index dtype's range (a 65536 x 65536
  // buffer indexed in int32) is computed in int64 from the start.
  if (t.bits() < 64 && MaxFlatOffset(buffer) > (int64_t{1} << (t.bits() - 1)) - 1) t = DataType::Int(64);
  auto widen = [&](const PrimExpr& i) {
    return i.dtype().element_of() == t ? i : cast(t.with_lanes(i.dtype().lanes()), i);
  };
  PrimExpr flat;
  if (!buffer->strides.empty()) {
    for (size_t i = 0; i < n; ++i) {
      PrimExpr term = mul(widen(indices[i]), cast(t, buffer->strides[i]));
      flat = flat.defined() ? add(flat, term) : term;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      flat = flat.defined() ? add(mul(flat, cast(t, buffer->shape[i])), widen(indices[i])) : widen(indices[i]);
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
    return BufferLoad(Flat(op->buffer), FlatIndices(op->buffer, idx), op->span);
  }

  // LowerOpaqueBlock's matched-region markers: the flat offset or the data of the (flattened) corner access.
  PrimExpr VisitExpr_(const CallNode* op) override {
    static const Op& offset = Op::Get("tir.tessera_region_offset");
    static const Op& data = Op::Get("tir.tessera_region_data");
    if (!op->op.same_as(offset) && !op->op.same_as(data)) return StmtExprMutator::VisitExpr_(op);
    const auto* at = op->args[0].as<BufferLoadNode>();
    TESSERA_CHECK_OR_THROW(at != nullptr, ValueError) << op->op.as<OpNode>()->name << " takes a buffer element";
    if (op->op.same_as(data)) return at->buffer->data;
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(at->indices, &changed);
    PrimExpr flat = FlatIndices(at->buffer, idx)[0];
    return flat.dtype() == op->dtype ? flat : cast(op->dtype, flat);
  }

  // A matched region's stride (LowerOpaqueBlock: the offset of the next row minus the region's): a constant once
  // both are flat.
  PrimExpr VisitExpr_(const SubNode* op) override {
    static const Op& offset = Op::Get("tir.tessera_region_offset");
    const auto* a = op->a.as<CallNode>();
    const auto* b = op->b.as<CallNode>();
    PrimExpr out = StmtExprMutator::VisitExpr_(op);
    if (a && b && a->op.same_as(offset) && b->op.same_as(offset)) return arith::Analyzer().Simplify(out);
    return out;
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
    return BufferStore(Flat(op->buffer), VisitExpr(op->value), FlatIndices(op->buffer, idx), op->span);
  }

  Stmt VisitStmt_(const AllocateNode* op) override {
    // An allocation of a buffer with axis_separators keeps one extent per
    // group of axes (the flattened buffer's shape), as TVM's.
    if (const auto* decl = op->body.as<DeclBufferNode>()) {
      if (decl->buffer->data.same_as(op->buffer_var) && !decl->buffer->axis_separators.empty()) {
        Buffer flat = Flat(decl->buffer);
        Stmt body = VisitStmt(op->body);
        return Allocate(op->buffer_var, op->dtype, flat->shape, op->condition, body, op->annotations, op->span);
      }
    }
    Stmt body = VisitStmt(op->body);
    PrimExpr total = IntImm(DataType::Int(64), 1);
    for (PrimExpr e : op->extents) total = mul(total, cast(DataType::Int(64), e));
    // A "warp" buffer is only reached through pointers (tensor intrinsics): keep a declaration of it so that code
    // generation still knows its scope.
    if (const auto* decl = op->body.as<DeclBufferNode>()) {
      if (decl->buffer->data.same_as(op->buffer_var) && decl->buffer->scope == "warp") body = DeclBuffer(Flat(decl->buffer), body);
    }
    return Allocate(op->buffer_var, op->dtype, {total}, op->condition, body, op->annotations, op->span);
  }

  Stmt VisitStmt_(const DeclBufferNode* op) override { return VisitStmt(op->body); }

 private:
  // The axis groups of `b`: [begin, end) per flattened axis.
  static std::vector<std::pair<size_t, size_t>> Groups(const Buffer& b) {
    std::vector<std::pair<size_t, size_t>> groups;
    size_t begin = 0;
    for (const IntImm& sep : b->axis_separators) {
      groups.emplace_back(begin, static_cast<size_t>(sep->value));
      begin = static_cast<size_t>(sep->value);
    }
    groups.emplace_back(begin, b->shape.size());
    return groups;
  }

  // The indices into the flattened buffer: one, or one per axis group.
  Array<PrimExpr> FlatIndices(const Buffer& b, const Array<PrimExpr>& idx) {
    if (b->axis_separators.empty()) return {FlatIndex(b, idx)};
    Flat(b);  // validates the separators
    Array<PrimExpr> out;
    std::vector<std::pair<size_t, size_t>> groups = Groups(b);
    for (size_t g = 0; g < groups.size(); ++g) {
      Array<PrimExpr> shape, strides, sub;
      for (size_t k = groups[g].first; k < groups[g].second; ++k) {
        shape.push_back(b->shape[k]);
        if (!b->strides.empty()) strides.push_back(b->strides[k]);
        sub.push_back(idx[k]);
      }
      PrimExpr offset = g + 1 == groups.size() ? b->elem_offset : PrimExpr(IntImm(DataType::Int(32), 0));
      Buffer part(b->data, b->dtype, shape, strides, offset, b->name);
      out.push_back(FlatIndex(part, sub));
    }
    return out;
  }

  Buffer Flat(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    if (!b->axis_separators.empty()) {
      int64_t last = 0;
      for (const IntImm& sep : b->axis_separators) {
        if (sep->value < last || sep->value > static_cast<int64_t>(b->shape.size())) {
          TESSERA_THROW(ValueError) << "FlattenBuffer: buffer " << b->name << " has axis separator " << sep->value
                                    << ", not non-decreasing positions in [0, " << b->shape.size() << "]";
        }
        last = sep->value;
      }
      Array<PrimExpr> shape;
      Array<IntImm> seps;
      std::vector<std::pair<size_t, size_t>> groups = Groups(b);
      for (size_t g = 0; g < groups.size(); ++g) {
        // With explicit strides (storage_align), a group spans its first
        // axis's extent times stride (as TVM's flattened shape).
        PrimExpr total = IntImm(DataType::Int(64), 1);
        if (!b->strides.empty() && groups[g].first < groups[g].second) {
          total = mul(cast(DataType::Int(64), b->shape[groups[g].first]),
                      cast(DataType::Int(64), b->strides[groups[g].first]));
        } else {
          for (size_t k = groups[g].first; k < groups[g].second; ++k) {
            total = mul(total, cast(DataType::Int(64), b->shape[k]));
          }
        }
        shape.push_back(total);
        if (g > 0) seps.push_back(IntImm(DataType::Int(32), static_cast<int64_t>(g)));
      }
      Buffer flat(b->data, b->dtype, shape, {}, IntImm(DataType::Int(32), 0), b->name, b->scope, b->data_alignment,
                  b->offset_factor, b->span);
      flat.CopyOnWrite()->axis_separators = seps;
      flat_.emplace(b.get(), flat);
      return flat;
    }
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
