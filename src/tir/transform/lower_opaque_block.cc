// LowerOpaqueBlock (see lower_opaque_block.h).
#include "ir/int_value.h"
#include "tir/transform/lower_opaque_block.h"

#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/flatten_buffer.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

struct MatchInfo {
  Buffer source;
  Array<Range> region;
};

class BlockLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    const Block& block = op->block;
    if (block->init) {
      TESSERA_THROW(ValueError) << "LowerOpaqueBlock: block " << block->name_hint
                                << " still has an init statement; run LowerInitBlock first";
    }
    // Bind iteration variables to their values (in the body and in match regions).
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      var_map_[block->iter_vars[i]->var.get()] = VisitExpr(op->iter_values[i]);
    }
    for (MatchBufferRegion m : block->match_buffers) {
      const Buffer& target = m->buffer;
      const BufferRegion& src = m->source;
      std::vector<Range> region;
      for (Range r : src->region) region.push_back(Range::FromMinExtent(VisitExpr(r->min), VisitExpr(r->extent)));
      // A buffer of lower rank matches the trailing dimensions of a region
      // whose leading ones have extent 1 (what tensorize makes).
      size_t lead = src->region.size() - std::min(src->region.size(), target->shape.size());
      bool unit_lead = target->shape.size() <= src->region.size();
      for (size_t d = 0; d < lead && unit_lead; ++d) unit_lead = IsConstInt(region[d]->extent, 1);
      if (!unit_lead) {
        TESSERA_THROW(NotImplementedError)
            << "block " << block->name_hint << ": match_buffer " << target->name << " has " << target->shape.size()
            << " dimensions but matches a " << src->region.size() << "-dimensional region; code generation supports "
            << "a match_buffer of lower rank only when the region's leading dimensions have extent 1";
      }
      Buffer source = VisitBufferUse(src->buffer);
      matches_[target.get()] = MatchInfo{source, Array<Range>(region)};
      // The matched buffer's data, element offset and symbolic strides are
      // those of the source region (used by access_ptr in external calls).
      // They stay accesses at the region's corners (tir.tessera_region_offset / _data) until FlattenBuffer, so
      // that CompactBufferAllocation sees the region and rewrites them with the buffer it compacts.
      std::vector<PrimExpr> mins, maxs;
      for (const Range& r : region) {
        mins.push_back(r->min);
        maxs.push_back(add(r->min, sub(r->extent, IntImm(r->extent.dtype(), 1))));
      }
      PrimExpr hi = BufferLoad(source, Array<PrimExpr>(maxs));
      auto offset_of = [&](const std::vector<PrimExpr>& at, DataType t) {
        return Call(t, Op::Get("tir.tessera_region_offset"), {BufferLoad(source, Array<PrimExpr>(at)), hi});
      };
      var_map_[target->data.get()] =
          Call(DataType::Handle(), Op::Get("tir.tessera_region_data"), {BufferLoad(source, Array<PrimExpr>(mins)), hi});
      if (const auto* off = target->elem_offset.as<VarNode>()) var_map_[off] = offset_of(mins, off->dtype);
      for (size_t d = 0; d < target->strides.size(); ++d) {
        const auto* sv = target->strides[d].as<VarNode>();
        if (sv == nullptr) continue;
        std::vector<PrimExpr> next = mins;
        next[d + lead] = add(next[d + lead], IntImm(next[d + lead].dtype(), 1));
        var_map_[sv] = sub(offset_of(next, sv->dtype), offset_of(mins, sv->dtype));
      }
    }
    Stmt body = VisitStmt(block->body);
    PrimExpr pred = VisitExpr(op->predicate);
    if (!IsConstInt(pred, 1)) body = IfThenElse(pred, body);
    for (size_t i = block->alloc_buffers.size(); i-- > 0;) {
      Buffer buf = block->alloc_buffers[i];
      auto padded = padded_.find(buf.get());
      if (padded != padded_.end()) {
        Buffer p = padded->second;
        body = DeclBuffer(p, body);
        body = Allocate(p->data, p->dtype, {mul(p->shape[0], p->strides[0])}, IntImm(DataType::Bool(), 1), body);
        continue;
      }
      body = DeclBuffer(buf, body);
      body = Allocate(buf->data, buf->dtype, buf->shape, IntImm(DataType::Bool(), 1), body);
    }
    return body;
  }

  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = var_map_.find(op);
    return it == var_map_.end() ? GetRef<PrimExpr>(op) : it->second;
  }

  // Buffers padded by storage_align get explicit strides.
  Buffer VisitBufferUse(const Buffer& b) override {
    auto a = aligned_.find(b.get());
    if (a == aligned_.end()) return b;
    auto p = padded_.find(b.get());
    if (p != padded_.end()) return p->second;
    std::vector<PrimExpr> strides(b->shape.size());
    PrimExpr stride = IntImm(DataType::Int(32), 1);
    for (size_t d = b->shape.size(); d-- > 0;) {
      for (const auto& [axis, factor, offset] : a->second) {
        if (static_cast<size_t>(axis) != d) continue;
        // new = stride + ((factor + offset) - stride % factor) % factor
        stride = add(stride, floormod(sub(IntImm(DataType::Int(32), factor + offset), floormod(stride, IntImm(DataType::Int(32), factor))),
                                      IntImm(DataType::Int(32), factor)));
      }
      strides[d] = stride;
      stride = mul(stride, b->shape[d]);
    }
    Buffer out = CopyAxisSeparators(b, Buffer(b->data, b->dtype, b->shape, Array<PrimExpr>(strides), b->elem_offset,
                                              b->name, b->scope, b->data_alignment, b->offset_factor, b->span));
    padded_.emplace(b.get(), out);
    return out;
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    auto it = matches_.find(op->buffer.get());
    if (it == matches_.end()) return StmtExprMutator::VisitExpr_(op);
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
    return BufferLoad(it->second.source, Offset(it->second, idx), op->span);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    auto it = matches_.find(op->buffer.get());
    if (it == matches_.end()) return StmtExprMutator::VisitStmt_(op);
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(op->indices, &changed);
    return BufferStore(it->second.source, VisitExpr(op->value), Offset(it->second, idx), op->span);
  }

 private:
  static Array<PrimExpr> Offset(const MatchInfo& m, const Array<PrimExpr>& idx) {
    std::vector<PrimExpr> out;
    const size_t lead = m.region.size() - idx.size();  // leading dimensions of extent 1
    for (size_t i = 0; i < lead; ++i) out.push_back(m.region[i]->min);
    for (size_t i = 0; i < idx.size(); ++i) out.push_back(add(m.region[lead + i]->min, idx[i]));
    return Array<PrimExpr>(out);
  }

  std::unordered_map<const VarNode*, PrimExpr> var_map_;
  std::unordered_map<const BufferNode*, MatchInfo> matches_;
  std::unordered_map<const BufferNode*, std::vector<std::tuple<int, int64_t, int64_t>>> aligned_;
  std::unordered_map<const BufferNode*, Buffer> padded_;

 public:
  std::unordered_set<const BufferNode*> allocated_;  // buffers in some block's alloc_buffers

  // storage_align: remembers the padded strides of buffers `block` writes,
  // before any block is lowered (every access of the buffer, in any block,
  // uses them). Only buffers the function allocates can be padded
  // (parameters keep their layout).
  void CollectAlignment(const BlockNode* block) {
    auto align = block->annotations.Get("buffer_dim_align");
    if (!align) return;
    for (const Any& entry : align->cast<Array<Any>>().to_vector()) {
      auto e = entry.cast<Array<Any>>();
      // Entries are [buffer_index, axis, factor, offset]: Python ints from
      // storage_align, IntImms once printed and parsed back (as TVM's Integer).
      int64_t v[4];
      for (size_t k = 0; k < 4; ++k) {
        std::optional<int64_t> x;
        if (k < e.size()) x = IntValue(e.at_any(k));
        if (!x || (k != 1 && *x < 0) || (k == 2 && *x == 0)) {
          TESSERA_THROW(ValueError) << "block " << block->name_hint << ": annotation buffer_dim_align expects "
                                    << "entries [buffer_index, axis, factor, offset] of integers (factor > 0)";
        }
        v[k] = *x;
      }
      size_t index = static_cast<size_t>(v[0]);
      if (index >= block->writes.size()) continue;
      Buffer buf = block->writes[index]->buffer;
      if (!allocated_.count(buf.get())) continue;
      aligned_[buf.get()].push_back({static_cast<int>(v[1]), v[2], v[3]});
    }
  }
};

}  // namespace

PrimFunc LowerOpaqueBlock(PrimFunc func) {
  BlockLowerer lowerer;
  PostOrderVisit(func->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<BlockNode>())
      for (Buffer buf : b->alloc_buffers) lowerer.allocated_.insert(buf.get());
  });
  PostOrderVisit(func->body, [&](const ObjectRef& n) {
    if (const auto* b = n.as<BlockNode>()) lowerer.CollectAlignment(b);
  });
  Stmt body = lowerer.VisitStmt(func->body);
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass LowerOpaqueBlock() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::LowerOpaqueBlock(f); }, 0,
                            "LowerOpaqueBlock");
}
TESSERA_REGISTER_PASS("tir.transform.LowerOpaqueBlock", LowerOpaqueBlock);

}  // namespace transform
}  // namespace tir
}  // namespace tessera
