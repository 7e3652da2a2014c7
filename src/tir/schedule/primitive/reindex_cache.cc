// reindex_cache_read / reindex_cache_write (TVM's): cache a buffer that a
// block reads (writes) at one point into a new buffer "<name>_<scope>"
// indexed by `index_map` of the block's iteration variables; a copy block of
// that name, in a copy of the block's loops below the lowest loop holding the
// block and the buffer's producers (consumers), runs just before (after) the
// block's subtree there. Instruction kinds, Schedule methods and FFI entries.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "arith/iter_map.h"
#include "tir/analysis/block_access_region.h"
#include "tir/index_map.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/primitive/point_access.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

Block WithRegions(Block blk) {
  auto regions = InferBlockAccessRegions(blk);
  auto* n = blk.CopyOnWrite();
  n->reads = regions.first;
  n->writes = regions.second;
  return blk;
}

BlockRV ReindexCache(const Schedule& sch, const BlockRV& block_rv, int64_t buffer_index, const std::string& scope,
                     const IndexMap& index_map, bool is_write) {
  const char* prim = is_write ? "reindex_cache_write" : "reindex_cache_read";
  BlockLocation loc = sch.LocateBlock(block_rv, prim);
  const std::string func = sch->blocks.at(block_rv.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  const std::string bname = "block \"" + b->name_hint + "\"";
  const Array<BufferRegion>& regions = is_write ? b->writes : b->reads;
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(regions.size())) {
    ThrowScheduleError(prim, bname + " has " + std::to_string(regions.size()) + (is_write ? " written" : " read") +
                                 " buffers; index " + std::to_string(buffer_index) + " is out of range",
                       f, {b});
  }
  if (loc.scope == nullptr) ThrowScheduleError(prim, bname + " has no enclosing scope block", f, {b});
  const Buffer buf = regions[buffer_index]->buffer;
  if (!b->match_buffers.empty()) ThrowScheduleError(prim, bname + " matches buffers; not supported", f, {b});

  // ---- the block accesses the buffer at one point.
  const PointAccess acc = CollectPointAccess(b, buf);
  if (!acc.indices) ThrowScheduleError(prim, bname + " does not load or store buffer " + buf->name, f, {b});
  if (!acc.single) {
    ThrowScheduleError(prim, bname + " accesses buffer " + buf->name + " at more than one point", f, {b});
  }
  if (!is_write && acc.stored) {
    ThrowScheduleError(prim, bname + " also writes buffer " + buf->name + "; use reindex_cache_write", f, {b});
  }
  if (is_write && acc.loaded && !b->init) {
    ThrowScheduleError(prim, bname + " reads buffer " + buf->name + " before writing it and has no init", f, {b});
  }

  // ---- the index map: a bijective affine map of the iteration variables
  // that the access uses (and maybe others).
  const size_t n = b->iter_vars.size();
  if (index_map->initial_indices.size() != n) {
    ThrowScheduleError(prim, "index_map takes " + std::to_string(index_map->initial_indices.size()) +
                                 " indices but " + bname + " has " + std::to_string(n) + " iteration variables",
                       f, {b});
  }
  Map<Var, PrimExpr> to_block;
  for (size_t k = 0; k < n; ++k) to_block.Set(index_map->initial_indices[k], b->iter_vars[k]->var);
  std::vector<PrimExpr> cache_idx;
  for (const PrimExpr& e : index_map->final_indices) cache_idx.push_back(Substitute(e, to_block));
  std::vector<size_t> used;  // iteration variables of the copy block, in block order
  for (size_t k = 0; k < n; ++k) {
    bool in_map = false;
    for (const PrimExpr& e : cache_idx) in_map = in_map || UsesVar(e, b->iter_vars[k]->var.get());
    bool in_access = false;
    for (const PrimExpr& e : *acc.indices) in_access = in_access || UsesVar(e, b->iter_vars[k]->var.get());
    if (in_access && !in_map) {
      ThrowScheduleError(prim, "index_map does not use iteration variable " + b->iter_vars[k]->var->name_hint +
                                   ", which indexes buffer " + buf->name + " in " + bname,
                         f, {b});
    }
    if (in_map && !in_access && is_write) {
      // Several iterations would write one element into distinct cache
      // elements, and the copy back would pick one of them.
      ThrowScheduleError(prim, "index_map uses iteration variable " + b->iter_vars[k]->var->name_hint +
                                   ", which does not index buffer " + buf->name + " in " + bname,
                         f, {b});
    }
    if (in_map) used.push_back(k);
  }
  arith::Analyzer ana;
  Map<Var, Range> doms;
  for (size_t k : used) {
    doms.Set(b->iter_vars[k]->var, b->iter_vars[k]->dom);
    ana.Bind(b->iter_vars[k]->var, b->iter_vars[k]->dom);
  }
  for (const PrimExpr& e : *acc.indices) {
    PostOrderVisit(e, [&](const ObjectRef& node) {
      const auto* v = node.as<VarNode>();
      if (v == nullptr) return;
      for (const IterVar& iv : b->iter_vars) {
        if (iv->var.get() == v) return;
      }
      ThrowScheduleError(prim, "buffer " + buf->name + " is indexed by " + v->name_hint +
                                   ", not only by iteration variables of " + bname,
                         f, {b});
    });
  }
  // The copy runs over the iteration domain without the conditions that may
  // guard the access (padding): the access must stay in bounds there.
  for (size_t d = 0; d < acc.indices->size() && d < buf->shape.size(); ++d) {
    const PrimExpr& e = (*acc.indices)[d];
    for (const IterVar& iv : b->iter_vars) ana.Bind(iv->var, iv->dom, true);
    if (!ana.CanProve(GE(e, IntImm(e.dtype(), 0))) || !ana.CanProve(LT(e, cast(e.dtype(), buf->shape[d])))) {
      ThrowScheduleError(prim, bname + " accesses buffer " + buf->name + " out of its bounds in dimension " +
                                   std::to_string(d) + " over its iteration domain (the access is guarded); "
                                   "the copy block would not be",
                         f, {b});
    }
  }
  arith::IterMapResult iter_map = arith::DetectIterMap(Array<PrimExpr>(cache_idx), doms, IntImm(DataType::Bool(), 1),
                                                       arith::IterMapLevel::kBijective, &ana);
  if (iter_map->indices.empty()) {
    ThrowScheduleError(prim, "index_map is not a bijective affine map of the iteration variables it uses", f, {b});
  }
  std::vector<PrimExpr> shape;
  for (const PrimExpr& e : cache_idx) {
    bool constant = true;
    for (size_t k : used) {
      const IterVar& iv = b->iter_vars[k];
      if (UsesVar(e, iv->var.get())) constant = constant && AsConstInt(iv->dom->min) && AsConstInt(iv->dom->extent);
    }
    if (!constant) {
      // A symbolic extent: only an output that is one iteration variable starting at 0.
      size_t k = 0;
      while (k < n && !e.same_as(b->iter_vars[k]->var)) ++k;
      if (k == n || !IsConstInt(b->iter_vars[k]->dom->min, 0)) {
        ThrowScheduleError(prim, "index_map output " + arith::ExprToString(e) +
                                     " spans a symbolic range; with symbolic extents each output must be an iteration "
                                     "variable",
                           f, {b});
      }
      shape.push_back(b->iter_vars[k]->dom->extent);
      continue;
    }
    arith::ConstIntBound bound = ana.const_int_bound(e);
    if (bound->min_value < 0 || bound->max_value >= (int64_t{1} << 40)) {
      ThrowScheduleError(prim, "index_map output " + arith::ExprToString(e) + " has no constant non-negative bound", f, {b});
    }
    shape.push_back(IntImm(e.dtype(), bound->max_value + 1));
  }
  const std::string name = buf->name + "_" + scope;
  int taken = 0;
  sch.IndexOf(func)->FindBlock(name, &taken);
  if (taken > 0) ThrowScheduleError(prim, "the block name \"" + name + "\" is taken", f, {b});
  Buffer cache(Var(name, DataType::Handle()), buf->dtype, Array<PrimExpr>(shape), {}, IntImm(DataType::Int(32), 0),
               name, scope, buf->data_alignment, buf->offset_factor);

  // ---- where: below the lowest loop holding the block and the buffer's
  // producers (read) or other readers (write) in the scope.
  // A block's accesses include those of blocks nested in it (opaque blocks
  // such as loop_partition's may declare none).
  auto touches = [&](const BlockNode* x, bool reads) {
    bool hit = false;
    auto declares = [&](const BlockNode* y) {
      for (const BufferRegion& r : reads ? y->reads : y->writes) hit = hit || r->buffer.same_as(buf);
    };
    declares(x);
    PostOrderVisitBlockRealizes(x->body, [&](const BlockRealizeNode* r) { declares(r->block.get()); });
    return hit;
  };
  std::vector<BlockLocation> related;
  for (const BlockLocation& other : CollectBlocks(f)) {
    if (other.block == b || other.scope != loc.scope) continue;
    // The copy back writes the whole cached region after the block: another
    // writer of the buffer (before or after) would be overwritten or reordered.
    if (is_write && touches(other.block, /*reads=*/false)) {
      ThrowScheduleError(prim, std::string("block \"") + other.block->name_hint + "\" also writes buffer " +
                                   buf->name + "; " + bname + " must be its only writer",
                         f, {other.block});
    }
    if (touches(other.block, /*reads=*/is_write)) related.push_back(other);
  }
  // Without producers (consumers) the copy goes at the scope's top level.
  size_t depth = related.empty() ? 0 : loc.loops.size();
  for (const BlockLocation& other : related) {
    size_t common = 0;
    while (common < depth && common < other.loops.size() && other.loops[common] == loc.loops[common]) ++common;
    depth = common;
  }
  // The statement holding the block at that level, and its siblings.
  const Object* child = depth < loc.loops.size() ? static_cast<const Object*>(loc.loops[depth])
                                                 : static_cast<const Object*>(loc.realize);
  for (const BlockLocation& other : related) {
    if (ContainsStmt(GetRef<Stmt>(static_cast<const StmtNode*>(child)), other.realize)) {
      ThrowScheduleError(prim, std::string("block \"") + other.block->name_hint + "\" " +
                                   (is_write ? "reads" : "writes") + " buffer " + buf->name + " inside the loops of " +
                                   bname + "; the copy has no place between them",
                         f, {other.block});
    }
  }
  const Stmt parent_body = depth == 0 ? loc.scope->body : loc.loops[depth - 1]->body;
  std::vector<Stmt> siblings;
  if (const auto* seq = parent_body.as<SeqStmtNode>()) {
    for (const Stmt& s : seq->seq) siblings.push_back(s);
  } else {
    siblings.push_back(parent_body);
  }
  size_t pos = 0;
  while (pos < siblings.size() && siblings[pos].get() != child) ++pos;
  TESSERA_ICHECK(pos < siblings.size()) << "reindex_cache: the block's subtree is not a child of its loop";
  for (size_t s = 0; s < siblings.size(); ++s) {
    for (const BlockLocation& other : related) {
      if (!ContainsStmt(siblings[s], other.realize)) continue;
      if ((!is_write && s > pos) || (is_write && s < pos)) {
        ThrowScheduleError(prim, std::string("block \"") + other.block->name_hint + "\" " +
                                     (is_write ? "reads buffer " + buf->name + " before " : "writes buffer " + buf->name +
                                                                                                " after ") +
                                     bname,
                           f, {other.block});
      }
    }
  }

  // ---- the copy block, in a copy of the block's loops below that level
  // that feed its iteration variables.
  std::vector<const ForNode*> kept;
  for (size_t i = depth; i < loc.loops.size(); ++i) {
    bool feeds = false;
    for (size_t k : used) feeds = feeds || UsesVar(loc.realize->iter_values[k], loc.loops[i]->loop_var.get());
    if (feeds) kept.push_back(loc.loops[i]);
  }
  std::unordered_map<const VarNode*, PrimExpr> loop_copy;
  std::vector<Var> new_loop_vars;
  for (const ForNode* l : kept) {
    Var v(l->loop_var->name_hint, l->loop_var->dtype);
    loop_copy[l->loop_var.get()] = v;
    new_loop_vars.push_back(v);
  }
  for (size_t i = depth; i < loc.loops.size(); ++i) {
    const VarNode* v = loc.loops[i]->loop_var.get();
    if (loop_copy.count(v)) continue;
    for (size_t k : used) {
      if (UsesVar(loc.realize->iter_values[k], v)) ThrowScheduleError(prim, "internal: loop not kept", f, {b});
    }
    if (UsesVar(loc.realize->predicate, v)) {
      ThrowScheduleError(prim, "the predicate of " + bname + " uses loop " + v->name_hint +
                                   ", which feeds no iteration variable the copy needs",
                         f, {loc.realize});
    }
  }
  auto subst_loops = [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = loop_copy.find(v.get());
    return it == loop_copy.end() ? std::nullopt : std::optional<PrimExpr>(it->second);
  };
  std::vector<IterVar> ivs;
  std::vector<PrimExpr> values;
  Map<Var, PrimExpr> to_copy;
  for (size_t k : used) {
    const IterVar& iv = b->iter_vars[k];
    Var v(iv->var->name_hint, iv->var->dtype);
    to_copy.Set(iv->var, v);
    ivs.push_back(IterVar(iv->dom, v, kDataPar, iv->thread_tag));
    values.push_back(Substitute(loc.realize->iter_values[k], subst_loops));
  }
  Array<PrimExpr> buf_idx, cch_idx;
  for (const PrimExpr& e : *acc.indices) buf_idx.push_back(Substitute(e, to_copy));
  for (const PrimExpr& e : cache_idx) cch_idx.push_back(Substitute(e, to_copy));
  Stmt copy_body = is_write ? BufferStore(buf, BufferLoad(cache, cch_idx), buf_idx)
                            : BufferStore(cache, BufferLoad(buf, buf_idx), cch_idx);
  Block copy_block = WithRegions(Block(Array<IterVar>(ivs), {}, {}, name, copy_body));
  Stmt nest = BlockRealize(Array<PrimExpr>(values), Substitute(loc.realize->predicate, subst_loops), copy_block);
  for (size_t i = kept.size(); i-- > 0;) {
    For l = GetRef<For>(kept[i]);
    auto* ln = l.CopyOnWrite();
    ln->loop_var = new_loop_vars[i];
    ln->body = nest;
    ln->annotations = {};
    nest = l;
  }

  // ---- the block uses the cache.
  Block nb = GetRef<Block>(b);
  {
    const Array<PrimExpr> idx(cache_idx);
    auto* bn = nb.CopyOnWrite();
    bn->body = RewritePointAccess(b->body, buf, cache, idx);
    if (b->init) bn->init = RewritePointAccess(*b->init, buf, cache, idx);
  }
  nb = WithRegions(nb);
  Stmt body = ReplaceStmt(loc.scope->body, loc.realize,
                          BlockRealize(loc.realize->iter_values, loc.realize->predicate, nb, loc.realize->span));
  // Insert the copy beside the (rewritten) child at `pos` of the parent.
  class Inserter : public StmtExprMutator {
   public:
    Inserter(const Object* parent, size_t pos, Stmt nest, bool after)
        : parent_(parent), pos_(pos), nest_(std::move(nest)), after_(after) {}
    using StmtExprMutator::VisitStmt_;
    Stmt VisitStmt_(const ForNode* op) override {
      Stmt s = StmtExprMutator::VisitStmt_(op);
      if (op != parent_) return s;
      For l = Downcast<For>(s);
      l.CopyOnWrite()->body = Insert(l->body);
      return l;
    }
    Stmt Insert(const Stmt& b) const {
      std::vector<Stmt> items, out;
      if (const auto* seq = b.as<SeqStmtNode>()) {
        for (const Stmt& s : seq->seq) items.push_back(s);
      } else {
        items.push_back(b);
      }
      for (size_t i = 0; i < items.size(); ++i) {
        if (i == pos_ && !after_) out.push_back(nest_);
        out.push_back(items[i]);
        if (i == pos_ && after_) out.push_back(nest_);
      }
      return SeqStmt::Flatten(out);
    }

   private:
    const Object* parent_;
    size_t pos_;
    Stmt nest_;
    bool after_;
  };
  // Positions are unchanged by the rewrite (one statement replaced by one).
  // ReplaceStmt rebuilt the path; the parent loop is found again by its loop variable.
  if (depth == 0) {
    body = Inserter(nullptr, pos, nest, is_write).Insert(body);
  } else {
    const VarNode* pv = loc.loops[depth - 1]->loop_var.get();
    const ForNode* now = nullptr;
    PostOrderVisit(body, [&](const ObjectRef& node) {
      if (const auto* l = node.as<ForNode>(); l != nullptr && l->loop_var.get() == pv) now = l;
    });
    TESSERA_ICHECK(now != nullptr) << "reindex_cache: parent loop lost";
    body = Inserter(now, pos, nest, is_write).VisitStmt(body);
  }
  Block scope_block = GetRef<Block>(loc.scope);
  {
    auto* sn = scope_block.CopyOnWrite();
    sn->body = body;
    sn->alloc_buffers.push_back(cache);
  }
  sch.Commit(func, ReplaceInFunc(f, loc.scope, scope_block));
  BlockRV rv = BlockRV::Make();
  sch.self()->blocks[rv.get()] = {func, name};
  sch.Record(is_write ? "ReindexCacheWrite" : "ReindexCacheRead", {block_rv}, {buffer_index, scope, index_map},
             {rv});
  return rv;
}

}  // namespace

// attrs as TVM: buffer index, storage scope, the IndexMap (JSON: its ToJSON text).
#define TESSERA_REINDEX_CACHE_KIND(KIND, METHOD, IS_WRITE)                                                        \
  TESSERA_REGISTER_INST_KIND(KIND)                                                                               \
      .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {                \
        return Array<Any>{ReindexCache(sch, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int64_t>(),       \
                                       attrs.at_any(1).cast<std::string>(), attrs.at_any(2).cast<IndexMap>(),    \
                                       IS_WRITE)};                                                               \
      })                                                                                                         \
      .set_as_python([](const std::vector<std::string>& in, const Attrs& attrs, const std::optional<std::string>&, \
                        const std::vector<std::string>& out) {                                                   \
        return out.at(0) + " = sch." METHOD "(block=" + in.at(0) + ", " +                                         \
               (IS_WRITE ? "write_buffer_index=" : "read_buffer_index=") +                                        \
               std::to_string(attrs.at_any(0).cast<int64_t>()) + ", storage_scope=" +                             \
               PythonLiteral(attrs.at_any(1)) + ", index_map=" + attrs.at_any(2).cast<IndexMap>().AsLambda() +   \
               ")";                                                                                              \
      })                                                                                                         \
      .set_attrs_as_json([](const Attrs& attrs) {                                                                \
        return Array<Any>{attrs.at_any(0), attrs.at_any(1), attrs.at_any(2).cast<IndexMap>().ToJSON()};          \
      })                                                                                                         \
      .set_attrs_from_json([](const Attrs& attrs) {                                                              \
        TESSERA_CHECK_OR_THROW(attrs.size() == 3, ValueError) << KIND " needs 3 attributes, got " << attrs.size(); \
        return Array<Any>{attrs.at_any(0), attrs.at_any(1), IndexMap::FromJSON(attrs.at_any(2).cast<std::string>())}; \
      })

TESSERA_REINDEX_CACHE_KIND("ReindexCacheRead", "reindex_cache_read", false);
TESSERA_REINDEX_CACHE_KIND("ReindexCacheWrite", "reindex_cache_write", true);
#undef TESSERA_REINDEX_CACHE_KIND

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReindexCacheRead")
    .set_body_typed([](Schedule s, BlockRV b, int64_t index, std::string scope, IndexMap m) {
      return ReindexCache(s, b, index, scope, m, false);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReindexCacheWrite")
    .set_body_typed([](Schedule s, BlockRV b, int64_t index, std::string scope, IndexMap m) {
      return ReindexCache(s, b, index, scope, m, true);
    });

}  // namespace tir
}  // namespace tessera
