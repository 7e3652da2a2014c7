// reindex (TVM's): stages one buffer a leaf block reads or writes through a
// new buffer "<name>_reindex" indexed by the block's own iteration variables
// (those the access uses, in block order), so that the block's access becomes
// the identity; a copy block before (read) or after (write) the block's loop
// nest moves the data. Its instruction kind ("ReIndex"), the Schedule method
// and the tir.schedule.ReIndex FFI entry. TIR schedule layer.
#include <string>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "arith/expr_string.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/primitive/point_access.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "reindex";

Array<BufferRegion> SwapRegion(const Array<BufferRegion>& regions, const Buffer& from, const BufferRegion& to) {
  std::vector<BufferRegion> out;
  for (const BufferRegion& r : regions) out.push_back(r->buffer.same_as(from) ? to : r);
  return Array<BufferRegion>(out);
}

// The top-level statement of the scope body holding the block: its loops must
// form a single chain (each loop's body the next loop, the last the block).
const Object* CheckLoopChain(const PrimFunc& f, const BlockLocation& loc) {
  for (size_t i = 0; i < loc.loops.size(); ++i) {
    const Object* inner = i + 1 < loc.loops.size() ? static_cast<const Object*>(loc.loops[i + 1])
                                                    : static_cast<const Object*>(loc.realize);
    if (loc.loops[i]->body.get() != inner) {
      ThrowScheduleError(kPrim, "the loops above block \"" + loc.block->name_hint +
                                    "\" do not form a single chain: loop " + loc.loops[i]->loop_var->name_hint +
                                    " holds other statements",
                         f, {loc.loops[i]});
    }
  }
  // The copy nest covers the block's whole iteration domain once per
  // instance of its scope: a binding to a loop outside the scope (the block
  // sits in an opaque block inside a loop, e.g. after loop_partition) would
  // copy the whole domain at each iteration of that loop.
  std::unordered_set<const VarNode*> inner, all_loops;
  for (const ForNode* l : loc.loops) inner.insert(l->loop_var.get());
  PostOrderVisit(f->body, [&](const ObjectRef& n) {
    if (const auto* l = n.as<ForNode>()) all_loops.insert(l->loop_var.get());
  });
  for (const PrimExpr& v : loc.realize->iter_values) {
    PostOrderVisit(v, [&](const ObjectRef& n) {
      const auto* var = n.as<VarNode>();
      if (var != nullptr && all_loops.count(var) && !inner.count(var)) {
        ThrowScheduleError(kPrim, "block \"" + loc.block->name_hint + "\" is bound to loop " + var->name_hint +
                                      " outside its scope block; reindex needs the block's loops inside its scope",
                           f, {loc.realize});
      }
    });
  }
  return loc.loops.empty() ? static_cast<const Object*>(loc.realize) : static_cast<const Object*>(loc.loops[0]);
}

Stmt InsertAt(const BlockNode* scope, const Object* top, const Stmt& stmt, bool after) {
  std::vector<Stmt> items, out;
  if (const auto* seq = scope->body.as<SeqStmtNode>()) {
    for (const Stmt& s : seq->seq) items.push_back(s);
  } else {
    items.push_back(scope->body);
  }
  for (const Stmt& s : items) {
    if (s.get() == top && !after) out.push_back(stmt);
    out.push_back(s);
    if (s.get() == top && after) out.push_back(stmt);
  }
  return SeqStmt::Flatten(out);
}

BlockRV ReIndex(const Schedule& sch, const BlockRV& block_rv, int64_t buffer_index, bool is_write) {
  BlockLocation loc = sch.LocateBlock(block_rv, kPrim);
  const std::string func = sch->blocks.at(block_rv.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  const std::string bname = "block \"" + b->name_hint + "\"";
  const Array<BufferRegion>& regions = is_write ? b->writes : b->reads;
  if (buffer_index < 0 || buffer_index >= static_cast<int64_t>(regions.size())) {
    ThrowScheduleError(kPrim, bname + " has " + std::to_string(regions.size()) + (is_write ? " written" : " read") +
                                  " buffers; index " + std::to_string(buffer_index) + " is out of range",
                       f, {b});
  }
  const Buffer buf = regions[buffer_index]->buffer;
  if (loc.scope == nullptr) ThrowScheduleError(kPrim, bname + " has no enclosing scope block", f, {b});
  // The data must flow one way through the new buffer: a read-reindexed
  // buffer the block also writes would never reach its real home, and a
  // write-reindexed buffer the block also reads must be produced by the
  // block's own init first.
  bool also_written = false, also_read = false;
  for (const BufferRegion& r : b->writes) also_written = also_written || r->buffer.same_as(buf);
  for (const BufferRegion& r : b->reads) also_read = also_read || r->buffer.same_as(buf);
  if (!is_write && also_written) {
    ThrowScheduleError(kPrim, bname + " also writes buffer " + buf->name +
                                  "; reindex it as a written buffer (\"write\", index) instead",
                       f, {b});
  }
  if (is_write && also_read && !b->init) {
    ThrowScheduleError(kPrim, bname + " reads buffer " + buf->name +
                                  " before writing it and has no init; the new buffer would be read uninitialized",
                       f, {b});
  }
  const Object* top = CheckLoopChain(f, loc);

  const PointAccess access = CollectPointAccess(b, buf);
  if (access.nested != nullptr) {
    ThrowScheduleError(kPrim, bname + " is not a leaf block: it contains block \"" + access.nested->name_hint + "\"",
                       f, {b});
  }
  if (access.opaque) {
    ThrowScheduleError(kPrim, bname + " accesses buffer " + buf->name +
                                  " opaquely (through its data pointer); reindex needs loads and stores",
                       f, {b});
  }
  if (!access.indices) {
    ThrowScheduleError(kPrim, bname + " does not load or store buffer " + buf->name, f, {b});
  }
  if (!access.single) {
    ThrowScheduleError(kPrim, bname + " accesses buffer " + buf->name +
                                  " with different indices; reindex needs a single access pattern",
                       f, {b});
  }
  arith::Analyzer analyzer;
  for (const IterVar& iv : b->iter_vars) analyzer.Bind(iv->var, iv->dom);
  std::vector<PrimExpr> original;
  std::unordered_set<const VarNode*> used;
  for (const PrimExpr& e : *access.indices) {
    // As TVM: simplified, unless that leaves a constant (a unit-extent
    // variable keeps its dimension).
    PrimExpr s = analyzer.Simplify(e);
    if (s.as<IntImmNode>()) s = e;
    original.push_back(s);
    PostOrderVisit(s, [&](const ObjectRef& n) {
      if (const auto* v = n.as<VarNode>()) used.insert(v);
    });
  }
  // A block writing under a predicate leaves points of its domain
  // unwritten; the write-back copy covers the whole domain and would copy
  // those (never written) over the buffer (random schedule case 19171, a
  // padding block; TVM does not check).
  if (is_write && !IsConstInt(loc.realize->predicate, 1)) {
    ThrowScheduleError(kPrim, bname + " writes " + buf->name + " under the predicate " +
                                  arith::ExprToString(loc.realize->predicate) +
                                  "; the write-back copy over its whole iteration domain would copy points it "
                                  "never writes",
                       f, {b});
  }
  // The copy block runs over the whole iteration domain, without the
  // block's predicate or the conditions guarding the access (padding
  // reads, rfactor's split predicate): the access must stay in bounds there.
  for (size_t d = 0; d < original.size() && d < buf->shape.size(); ++d) {
    if (!analyzer.CanProve(GE(original[d], IntImm(original[d].dtype(), 0))) ||
        !analyzer.CanProve(LT(original[d], cast(original[d].dtype(), buf->shape[d])))) {
      ThrowScheduleError(kPrim, bname + " accesses buffer " + buf->name + " out of its bounds in dimension " +
                                    std::to_string(d) + " over its iteration domain (the access is guarded); "
                                    "the copy block would not be",
                         f, {b});
    }
  }

  // The new buffer: one dimension per covered iteration variable.
  std::vector<PrimExpr> shape, block_indices, stage_indices, stage_values;
  std::vector<Range> block_region, stage_region;
  std::vector<IterVar> stage_iters;
  std::vector<Var> stage_loops;
  Map<Var, PrimExpr> to_stage;
  for (const IterVar& iv : b->iter_vars) {
    if (!used.count(iv->var.get())) continue;
    DataType t = iv->var.dtype();
    Var v("v" + std::to_string(stage_iters.size()), t), ax("ax" + std::to_string(stage_loops.size()), t);
    shape.push_back(analyzer.Simplify(iv->dom->min + iv->dom->extent));
    block_indices.push_back(iv->var);
    block_region.push_back(Range::FromMinExtent(iv->var, IntImm(t, 1)));
    stage_iters.push_back(IterVar(iv->dom, v, kDataPar));
    stage_indices.push_back(v);
    stage_region.push_back(Range::FromMinExtent(v, IntImm(t, 1)));
    stage_loops.push_back(ax);
    stage_values.push_back(ax);
    to_stage.Set(iv->var, v);
  }
  const std::string new_name = buf->name + "_reindex";
  Buffer nb(Var(new_name, DataType::Handle()), buf->dtype, Array<PrimExpr>(shape), {}, IntImm(DataType::Int(32), 0),
            new_name, buf->scope, buf->data_alignment, buf->offset_factor);

  // The copy block: target[f(v)] <-> new[v].
  std::vector<PrimExpr> target_indices;
  for (const PrimExpr& e : original) target_indices.push_back(Substitute(e, to_stage));
  Array<PrimExpr> tgt(target_indices), mine(stage_indices);
  const Buffer& src = is_write ? nb : buf;
  const Buffer& dst = is_write ? buf : nb;
  const Array<PrimExpr>& src_idx = is_write ? mine : tgt;
  const Array<PrimExpr>& dst_idx = is_write ? tgt : mine;
  const std::string stage_name = dst->name + "_reindex";
  int taken = 0;
  sch.IndexOf(func)->FindBlock(stage_name, &taken);
  if (taken > 0) {
    ThrowScheduleError(kPrim, "the reindex block's name \"" + stage_name + "\" is taken by another block", f, {b});
  }
  Block stage(Array<IterVar>(stage_iters), {BufferRegion::FromPoint(src, src_idx)},
              {BufferRegion::FromPoint(dst, dst_idx)}, stage_name, BufferStore(dst, BufferLoad(src, src_idx), dst_idx));
  Stmt nest = BlockRealize(Array<PrimExpr>(stage_values), IntImm(DataType::Bool(), 1), stage);
  for (size_t i = stage_loops.size(); i-- > 0;) {
    nest = For(stage_loops[i], stage_iters[i]->dom->min, stage_iters[i]->dom->extent, ForKind::kSerial, nest);
  }

  // The block itself now accesses new[covered vars].
  const Array<PrimExpr> new_indices(block_indices);
  Block nblock = GetRef<Block>(b);
  {
    auto* n = nblock.CopyOnWrite();
    n->body = RewritePointAccess(b->body, buf, nb, new_indices);
    if (b->init) n->init = RewritePointAccess(*b->init, buf, nb, new_indices);
    BufferRegion region(nb, Array<Range>(block_region));
    n->reads = SwapRegion(b->reads, buf, region);
    n->writes = SwapRegion(b->writes, buf, region);
  }
  // Rebuild the scope: the block replaced, the copy nest beside the block's
  // loop chain, the new buffer allocated.
  Block scope = GetRef<Block>(loc.scope);
  Stmt body = InsertAt(loc.scope, top, nest, is_write);
  body = ReplaceStmt(body, loc.realize,
                     BlockRealize(loc.realize->iter_values, loc.realize->predicate, nblock, loc.realize->span));
  {
    auto* n = scope.CopyOnWrite();
    n->body = body;
    n->alloc_buffers.push_back(nb);
  }
  sch.Commit(func, ReplaceInFunc(f, loc.scope, scope));
  BlockRV rv = BlockRV::Make();
  sch.self()->blocks[rv.get()] = {func, stage_name};
  sch.Record("ReIndex", {block_rv}, {buffer_index, static_cast<int64_t>(is_write ? 1 : 0)}, {rv});
  return rv;
}

}  // namespace

// Attributes as TVM records them: buffer_index, buffer_index_type (0 read, 1 write).
TESSERA_REGISTER_INST_KIND("ReIndex")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return Array<Any>{ReIndex(sch, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int64_t>(),
                                attrs.at_any(1).cast<int64_t>() == 1)};
    })
    .set_as_python([](const std::vector<std::string>& inputs, const Array<Any>& attrs,
                      const std::optional<std::string>&, const std::vector<std::string>& outputs) {
      std::string kind = attrs.at_any(1).cast<int64_t>() == 1 ? "write" : "read";
      return outputs.at(0) + " = sch.reindex(block=" + inputs.at(0) + ", buffer=(\"" + kind + "\", " +
             std::to_string(attrs.at_any(0).cast<int64_t>()) + "))";
    });

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.ReIndex")
    .set_body_typed([](Schedule s, BlockRV b, int64_t index, bool is_write) { return ReIndex(s, b, index, is_write); });

}  // namespace tir
}  // namespace tessera
