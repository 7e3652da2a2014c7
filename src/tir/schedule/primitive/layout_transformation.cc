// transform_layout: change how an intermediate buffer is laid out by an
// index map, and storage_align (see primitives.h), followed by their
// schedule instruction kinds, Schedule methods (resolve the handles,
// commit, record) and tir.schedule.* FFI entries.
#include <optional>

#include "ir/int_value.h"
#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/iter_map.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/primitive/layout_padding.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

class LayoutRewriter : public StmtExprMutator {
 public:
  LayoutRewriter(const Buffer& from, const Buffer& to, const Array<Var>& initial, const Array<PrimExpr>& final_indices)
      : from_(from), to_(to), initial_(initial), final_(final_indices) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!load->buffer.same_as(from_)) return e;
    return BufferLoad(to_, Map(load->indices), load->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (!store->buffer.same_as(from_)) return s;
    return BufferStore(to_, store->value, Map(store->indices), store->span);
  }
  // Index maps are simplified knowing the loop and block variables' ranges
  // (as TVM's rewrite with its iterator context): (vo * 16 + vi) // 16 under
  // vi < 16 becomes vo. Unit-extent variables are not bound: they stay
  // variables (not 0), as in TVM.
  Stmt VisitStmt_(const ForNode* op) override {
    BindRange(op->loop_var, Range::FromMinExtent(op->min, op->extent));
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) BindRange(iv->var, iv->dom);
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    // A T.match_buffer view of the buffer keeps viewing the same elements:
    // its source region is re-pointed at the new buffer (only an identity
    // map, checked by TransformLayout, keeps the region's meaning).
    bool views = false;
    for (const MatchBufferRegion& m : b->match_buffers) views = views || m->source->buffer.same_as(from_);
    if (views) {
      std::vector<MatchBufferRegion> matches;
      for (const MatchBufferRegion& m : b->match_buffers) {
        matches.push_back(m->source->buffer.same_as(from_)
                              ? MatchBufferRegion(m->buffer, BufferRegion(to_, m->source->region))
                              : m);
      }
      b.CopyOnWrite()->match_buffers = Array<MatchBufferRegion>(matches);
    }
    bool touches = false, allocs = false;
    for (BufferRegion r : b->reads) touches = touches || r->buffer.same_as(from_);
    for (BufferRegion r : b->writes) touches = touches || r->buffer.same_as(from_);
    for (Buffer x : b->alloc_buffers) allocs = allocs || x.same_as(from_);
    if (!touches && !allocs) return b;
    auto* n = b.CopyOnWrite();
    if (allocs) {
      std::vector<Buffer> bufs;
      for (Buffer x : n->alloc_buffers) bufs.push_back(x.same_as(from_) ? to_ : x);
      n->alloc_buffers = Array<Buffer>(bufs);
    }
    if (touches) {
      auto [reads, writes] = InferBlockAccessRegions(b);
      n->reads = reads;
      n->writes = writes;
    }
    return b;
  }

 private:
  Array<PrimExpr> Map(const Array<PrimExpr>& idx) {
    std::unordered_map<const VarNode*, PrimExpr> m;
    for (size_t i = 0; i < initial_.size(); ++i) m[initial_[i].get()] = idx[i];
    std::vector<PrimExpr> out;
    for (PrimExpr f : final_) {
      out.push_back(ana_.Simplify(Substitute(f, [&](const Var& v) -> std::optional<PrimExpr> {
        auto it = m.find(v.get());
        if (it == m.end()) return std::nullopt;
        return it->second;
      })));
    }
    return Array<PrimExpr>(out);
  }
  void BindRange(const Var& v, const Range& r) {
    if (!IsConstInt(r->extent, 1)) ana_.Bind(v, r, /*allow_override=*/true);
  }
  Buffer from_, to_;
  Array<Var> initial_;
  Array<PrimExpr> final_;
  arith::Analyzer ana_;
};

}  // namespace

PrimFunc TransformLayout(const PrimFunc& func, const BlockLocation& loc, bool is_write, int buffer_index,
                         const IndexMap& index_map, const IndexMap& pad_value, bool assume_injective) {
  const Array<Var>& initial = index_map->initial_indices;
  const Array<PrimExpr>& final_indices = index_map->final_indices;
  const std::string prim = "transform_layout";
  const Array<BufferRegion>& regions = is_write ? loc.block->writes : loc.block->reads;
  if (buffer_index < 0 || buffer_index >= static_cast<int>(regions.size())) {
    ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" has " + std::to_string(regions.size()) + " " +
                                 (is_write ? "written" : "read") + " buffers; index " + std::to_string(buffer_index) +
                                 " is out of range",
                       func, {loc.block});
  }
  Buffer buf = regions[buffer_index]->buffer;
  if (initial.size() != buf->shape.size()) {
    ThrowScheduleError(prim, "the index map takes " + std::to_string(initial.size()) + " indices but buffer " +
                                 buf->name + " has " + std::to_string(buf->shape.size()) + " dimensions",
                       func);
  }
  if (pad_value.defined()) {
    if (pad_value->final_indices.size() != 1) {
      ThrowScheduleError(prim, "pad_value must give one value, got " + std::to_string(pad_value->final_indices.size()),
                         func);
    }
    if (pad_value->final_indices[0].dtype() != buf->dtype) {
      ThrowScheduleError(prim, "pad_value has dtype " + pad_value->final_indices[0].dtype().str() + " but buffer " +
                                   buf->name + " has dtype " + buf->dtype.str(),
                         func);
    }
    std::string other;
    PostOrderVisit(pad_value->final_indices[0], [&](const ObjectRef& obj) {
      if (const auto* load = obj.as<BufferLoadNode>()) {
        if (!load->buffer.same_as(buf)) other = load->buffer->name;
      }
    });
    if (!other.empty()) {
      ThrowScheduleError(prim, "pad_value may read only " + buf->name + " itself, but it reads " + other, func);
    }
  }
  // A buffer viewed through T.match_buffer keeps its views only under an
  // identity map (axis separators aside): the view's region is in the old
  // layout's coordinates.
  bool identity = final_indices.size() == initial.size();
  for (size_t i = 0; identity && i < initial.size(); ++i) identity = final_indices[i].same_as(initial[i]);
  if (!identity) {
    std::string viewer;
    PostOrderVisit(func->body, [&](const ObjectRef& obj) {
      if (const auto* b = obj.as<BlockNode>()) {
        for (const MatchBufferRegion& m : b->match_buffers) {
          if (viewer.empty() && m->source->buffer.same_as(buf)) viewer = b->name_hint;
        }
      }
    });
    if (!viewer.empty()) {
      ThrowScheduleError(prim, "buffer " + buf->name + " is viewed through T.match_buffer in block \"" + viewer +
                                   "\"; only an identity layout map keeps that view's region valid",
                         func);
    }
  }
  arith::Analyzer ana;
  Map<Var, Range> iters;
  for (size_t i = 0; i < initial.size(); ++i) {
    Range r = Range::FromMinExtent(IntImm(buf->shape[i].dtype(), 0), buf->shape[i]);
    iters.Set(initial[i], r);
    ana.Bind(initial[i], r);
  }
  auto detected = arith::DetectIterMap(final_indices, iters, IntImm(DataType::Bool(), 1), arith::IterMapLevel::kBijective, &ana);
  std::optional<LayoutPadding> padding;
  if (detected->indices.empty() && !assume_injective) {
    // As TVM: a map that pads the buffer needs pad_value (unless the caller
    // asserts injectivity, then the padding is left unwritten).
    std::string why = detected->errors.empty() ? "not an affine map" : detected->errors[0].str();
    std::string pad_why;
    padding = AnalyzeLayoutPadding(buf, index_map, &pad_why);
    if (!padding) {
      ThrowScheduleError(prim, "the index map is not a bijective affine map of " + buf->name + "'s indices: " + why,
                         func);
    }
    if (!pad_value.defined()) {
      ThrowScheduleError(prim, "the index map pads " + buf->name + " (" + std::to_string(buf->shape.size()) +
                                   "-d shape to a padded " + std::to_string(padding->new_shape.size()) +
                                   "-d shape); pass pad_value to say what the padding holds",
                         func);
    }
  }
  Array<PrimExpr> shape;
  if (padding) {
    shape = padding->new_shape;
  } else {
    try {
      shape = index_map.MapShape(buf->shape);
    } catch (const Error&) {
      ThrowScheduleError(prim, "cannot derive a constant extent for the transformed layout of " + buf->name, func);
    }
  }
  Buffer to(buf->data, buf->dtype, shape, {}, buf->elem_offset, buf->name, buf->scope,
            buf->data_alignment, buf->offset_factor, buf->span);
  PrimFunc out = func;
  Stmt body = func->body;
  if (padding) {
    try {
      body = ApplyLayoutPadding(body, buf, to, *padding, pad_value);
    } catch (const ValueError& err) {
      ThrowScheduleError(prim, err.what(), func);
    }
  }
  out.CopyOnWrite()->body = LayoutRewriter(buf, to, initial, final_indices).VisitStmt(body);
  // A parameter's buffer changes in the signature too (as in TVM): callers
  // pass arrays in the new layout.
  for (const auto& kv : func->buffer_map.raw()) {
    if (kv.second.raw_object().same_as(buf)) out.CopyOnWrite()->buffer_map.Set(kv.first.cast<Var>(), to);
  }
  return out;
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

namespace {
// An index map may use sampled integers (`lambda i, j: (i, j // (v1 * v2),
// j % (v1 * v2))`, as TVM allows). The trace records the map with those
// variables renamed "_rv0", "_rv1", ... in order of first use, and the
// sampled variables themselves as the instruction's inputs after the
// block, so a replay (new handles, perhaps new decisions) and the JSON
// form rebind them by position.
std::string SampledSlotName(size_t k) { return "_rv" + std::to_string(k); }

IndexMap RebindSampled(const IndexMap& map, const std::function<std::optional<PrimExpr>(const Var&)>& f) {
  std::vector<PrimExpr> finals;
  for (const PrimExpr& e : map->final_indices) finals.push_back(Substitute(e, f));
  return IndexMap(map->initial_indices, Array<PrimExpr>(finals));
}

// The map with its slot variables replaced: slot k -> vars[k], or a
// variable named names[k] of the slot's dtype (for printing).
IndexMap BindSlots(const IndexMap& map, const std::vector<Var>& vars, const std::vector<std::string>& names = {}) {
  return RebindSampled(map, [&](const Var& v) -> std::optional<PrimExpr> {
    for (size_t k = 0; k < std::max(vars.size(), names.size()); ++k) {
      if (v->name_hint != SampledSlotName(k)) continue;
      return k < vars.size() ? PrimExpr(vars[k]) : PrimExpr(Var(names[k], v->dtype));
    }
    return std::nullopt;
  });
}
}  // namespace

// inputs: the block, then the sampled integers the index map uses (slots
// "_rv<k>" in the recorded map); attrs: is_write, buffer_index, the
// IndexMap (JSON: its ToJSON text), pad_value, assume_injective.
TESSERA_REGISTER_INST_KIND("TransformLayout")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      // Traces written before pad_value was recorded hold 3 attributes.
      IndexMap pad = attrs.size() > 3 && !attrs.at_any(3).is_none() ? attrs.at_any(3).cast<IndexMap>() : IndexMap();
      std::vector<Var> sampled;
      for (size_t k = 1; k < in.size(); ++k) sampled.push_back(in.at_any(k).cast<Var>());
      sch.TransformLayout(in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<bool>(), attrs.at_any(1).cast<int>(),
                          BindSlots(attrs.at_any(2).cast<IndexMap>(), sampled), pad,
                          attrs.size() > 4 && attrs.at_any(4).cast<bool>());
      return Array<Any>();
    })
    .set_as_python([](const std::vector<std::string>& in, const Attrs& attrs, const std::optional<std::string>&,
                      const std::vector<std::string>&) {
      std::vector<std::string> named(in.begin() + 1, in.end());  // slots print as the trace's names
      return "sch.transform_layout(block=" + in.at(0) + ", buffer=(\"" +
             (attrs.at_any(0).cast<bool>() ? "write" : "read") + "\", " +
             std::to_string(attrs.at_any(1).cast<int64_t>()) +
             "), index_map=" + BindSlots(attrs.at_any(2).cast<IndexMap>(), {}, named).AsLambda() +
             (attrs.size() > 3 && !attrs.at_any(3).is_none()
                  ? ", pad_value=" + attrs.at_any(3).cast<IndexMap>().AsLambda()
                  : std::string()) +
             (attrs.size() > 4 && attrs.at_any(4).cast<bool>() ? ", assume_injective_transform=True" : "") + ")";
    })
    .set_attrs_as_json([](const Attrs& attrs) {
      Any pad = attrs.size() > 3 && !attrs.at_any(3).is_none() ? Any(String(attrs.at_any(3).cast<IndexMap>().ToJSON()))
                                                               : Any();
      return Array<Any>{attrs.at_any(0), attrs.at_any(1), attrs.at_any(2).cast<IndexMap>().ToJSON(), pad,
                        attrs.size() > 4 ? attrs.at_any(4) : Any(false)};
    })
    .set_attrs_from_json([](const Attrs& attrs) {
      TESSERA_CHECK_OR_THROW(attrs.size() == 3 || attrs.size() == 5, ValueError)
          << "TransformLayout needs 3 or 5 attributes, got " << attrs.size();
      Any pad = attrs.size() == 5 && !attrs.at_any(3).is_none()
                    ? Any(IndexMap::FromJSON(attrs.at_any(3).cast<std::string>()))
                    : Any();
      return Array<Any>{attrs.at_any(0), attrs.at_any(1), IndexMap::FromJSON(attrs.at_any(2).cast<std::string>()), pad,
                        attrs.size() == 5 ? attrs.at_any(4) : Any(false)};
    });
TESSERA_REGISTER_INST_KIND("StorageAlign")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.StorageAlign(in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int>(), attrs.at_any(1).cast<int>(),
                       attrs.at_any(2).cast<int>(), attrs.at_any(3).cast<int>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("storage_align", {"block"}, {"buffer_index", "axis", "factor", "offset"}));

// ---- Schedule methods ------------------------------------------------------------

void Schedule::StorageAlign(const BlockRV& block, int buffer_index, int axis, int factor, int offset) const {
  BlockLocation loc = LocateBlock(block, "storage_align");
  const std::string func = get()->blocks.at(block.get()).func;
  PrimFunc f = FuncOf(func);
  if (buffer_index < 0 || buffer_index >= static_cast<int>(loc.block->writes.size())) {
    ThrowScheduleError("storage_align", "block \"" + loc.block->name_hint + "\" has no written buffer " +
                                            std::to_string(buffer_index), f);
  }
  Buffer buf = loc.block->writes[buffer_index]->buffer;
  int ndim = static_cast<int>(buf->shape.size());
  if (axis < 0) axis += ndim;
  if (axis < 0 || axis >= ndim) {
    ThrowScheduleError("storage_align", "axis " + std::to_string(axis) + " is out of range for " + buf->name, f);
  }
  if (factor <= 0 || offset < 0 || offset >= factor) {
    ThrowScheduleError("storage_align", "need factor > 0 and 0 <= offset < factor", f);
  }
  for (const auto& kv : f->buffer_map.raw()) {
    if (kv.second.raw_object().same_as(buf)) {
      ThrowScheduleError("storage_align", "buffer " + buf->name + " is a function parameter; its strides are fixed", f);
    }
  }
  // The alignment is recorded on this block: other writers would lay the buffer out differently.
  for (const BlockLocation& other : CollectBlocks(f)) {
    if (other.block == loc.block) continue;
    for (const BufferRegion& w : other.block->writes) {
      if (w->buffer.same_as(buf)) {
        ThrowScheduleError("storage_align", "buffer " + buf->name + " is also written by block \"" +
                                                other.block->name_hint + "\"; storage_align needs a single writer",
                           f, {other.block});
      }
    }
  }
  Array<Any> entries;
  if (auto existing = loc.block->annotations.Get("buffer_dim_align")) entries = existing->cast<Array<Any>>();
  // As TVM: a second alignment of the same buffer axis replaces the first.
  Array<Any> entry{static_cast<int64_t>(buffer_index), static_cast<int64_t>(axis), static_cast<int64_t>(factor),
                   static_cast<int64_t>(offset)};
  bool replaced = false;
  std::vector<Any> updated;
  for (const Any& e : entries) {
    auto old = e.cast<Array<Any>>();
    // Python ints from storage_align, IntImms once printed and parsed back.
    if (old.size() == 4 && IntValue(old[0]) == buffer_index && IntValue(old[1]) == axis) {
      updated.push_back(entry);
      replaced = true;
    } else {
      updated.push_back(e);
    }
  }
  if (!replaced) updated.push_back(entry);
  entries = Array<Any>(updated);
  Commit(func, AnnotateBlock(f, loc.block, "buffer_dim_align", entries, false));
  Record("StorageAlign", {block}, {static_cast<int64_t>(buffer_index), static_cast<int64_t>(axis),
                                    static_cast<int64_t>(factor), static_cast<int64_t>(offset)}, {});
}

void Schedule::TransformLayout(const BlockRV& block, bool is_write, int buffer_index, const IndexMap& index_map,
                               const IndexMap& pad_value, bool assume_injective) const {
  BlockLocation loc = LocateBlock(block, "transform_layout");
  const std::string func = get()->blocks.at(block.get()).func;
  // Sampled integers in the map take their values (as TVM); the trace keeps
  // them symbolic, in slots (see RebindSampled above).
  std::vector<Var> sampled;
  std::vector<Var> slots;
  IndexMap concrete = RebindSampled(index_map, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = get()->values.find(v.get());
    if (it == get()->values.end()) return std::nullopt;
    return IntImm(v->dtype, it->second);
  });
  IndexMap recorded = RebindSampled(index_map, [&](const Var& v) -> std::optional<PrimExpr> {
    if (!get()->values.count(v.get())) return std::nullopt;
    for (size_t k = 0; k < sampled.size(); ++k) {
      if (sampled[k].same_as(v)) return slots[k];
    }
    sampled.push_back(v);
    slots.push_back(Var(SampledSlotName(slots.size()), v->dtype));
    return slots.back();
  });
  Commit(func, tir::TransformLayout(FuncOf(func), loc, is_write, buffer_index, concrete, pad_value, assume_injective));
  Array<Any> inputs{block};
  for (const Var& v : sampled) inputs.push_back(v);
  Record("TransformLayout", inputs,
         {is_write, static_cast<int64_t>(buffer_index), sampled.empty() ? index_map : recorded,
          pad_value.defined() ? Any(pad_value) : Any(), assume_injective},
         {});
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.StorageAlign").set_body_typed([](Schedule s, BlockRV b, int i, int axis, int f, int o) {
  s.StorageAlign(b, i, axis, f, o);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.TransformLayout")
    .set_body_typed([](Schedule s, BlockRV b, bool is_write, int idx, IndexMap index_map, Any pad_value,
                       bool assume_injective) {
      s.TransformLayout(b, is_write, idx, index_map, pad_value.is_none() ? IndexMap() : pad_value.cast<IndexMap>(),
                        assume_injective);
    });

}  // namespace tir
}  // namespace tessera
