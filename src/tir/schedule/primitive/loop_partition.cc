// loop_partition (TVM's): cuts a loop of constant extent into consecutive
// ranges given by `factors` (at most one None, inferred; a remainder gets a
// range of its own), each a copy of the loop and its body. As in TVM, the
// copies sit in opaque blocks "<block>_<var>_common" / "<block>_<var><k>_partition",
// the loops are named "<var><k>", the blocks below are renamed
// "<name>_<var><k>" with their iteration domains narrowed to the range and
// their regions relaxed over those domains; each copy has its own loop and
// iteration variables and its own buffers (allocated or matched inside). Its instruction kind
// ("LoopPartition"), the Schedule method and the FFI entry. TIR schedule layer.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/analysis/block_access_region.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "loop_partition";

// Renames the blocks of one partition, narrows their iteration domains to
// what their bindings reach over the loops (the partition loop over its
// range) and relaxes their regions over the new domains.
class PartitionRewriter : public StmtExprMutator {
 public:
  PartitionRewriter(std::string suffix, Map<Var, arith::IntSet> loop_dom, Var part_var)
      : suffix_(std::move(suffix)), loop_dom_(std::move(loop_dom)), part_var_(std::move(part_var)) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  // Each copy gets its own loop and iteration variables.
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = fresh_.find(op);
    return it == fresh_.end() ? GetRef<PrimExpr>(op) : PrimExpr(it->second);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Var v(op->loop_var->name_hint, op->loop_var.dtype());
    fresh_[op->loop_var.get()] = v;
    PrimExpr lo = VisitExpr(op->min), ext = VisitExpr(op->extent);
    loop_dom_.Set(v, arith::IntSet::FromMinExtent(lo, ext));
    For loop = GetRef<For>(op);
    auto* n = loop.CopyOnWrite();
    n->loop_var = v;
    n->min = lo;
    n->extent = ext;
    n->body = VisitStmt(op->body);
    return loop;
  }
  // ... and its own buffers: a block inside the loop allocating (or
  // matching) a buffer defines it in every copy, so each copy defines a new
  // buffer of the same name, its uses renamed (one buffer defined at two
  // places would not survive printing and parsing, nor passes that key on
  // the buffer: random schedule case 28601, rfactor's C_rf inside a
  // partitioned loop).
  Buffer VisitBufferUse(const Buffer& b) override {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }
  Buffer FreshBuffer(const Buffer& b) {
    Buffer nb = b;
    auto* n = nb.CopyOnWrite();
    n->data = b->data.copy_with_suffix("");
    fresh_[b->data.get()] = n->data;
    std::vector<PrimExpr> shape, strides;
    for (const PrimExpr& e : b->shape) shape.push_back(VisitExpr(e));
    for (const PrimExpr& e : b->strides) strides.push_back(VisitExpr(e));
    n->shape = Array<PrimExpr>(shape);
    n->strides = Array<PrimExpr>(strides);
    if (b->elem_offset.defined()) n->elem_offset = VisitExpr(b->elem_offset);
    buffers_[b.get()] = nb;
    return nb;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    std::vector<Buffer> allocs;
    for (const Buffer& b : op->alloc_buffers) allocs.push_back(FreshBuffer(b));
    std::vector<MatchBufferRegion> matches;
    for (const MatchBufferRegion& m : op->match_buffers) matches.push_back(MatchBufferRegion(FreshBuffer(m->buffer), m->source));
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));  // match sources visited here
    auto* n = b.CopyOnWrite();
    n->alloc_buffers = Array<Buffer>(allocs);
    for (size_t i = 0; i < matches.size(); ++i) matches[i] = MatchBufferRegion(matches[i]->buffer, b->match_buffers[i]->source);
    n->match_buffers = Array<MatchBufferRegion>(matches);
    return b;
  }
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    for (const IterVar& iv : op->block->iter_vars) fresh_[iv->var.get()] = Var(iv->var->name_hint, iv->var.dtype());
    BlockRealize r = Downcast<BlockRealize>(StmtExprMutator::VisitStmt_(op));
    Block b = r->block;
    std::vector<IterVar> ivs;
    Map<Var, arith::IntSet> iter_dom;
    bool drop_init = false;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const IterVar old = b->iter_vars[i];
      const IterVar iv(old->dom, fresh_.at(old->var.get()), old->iter_type, old->thread_tag);
      arith::IntSet reach = arith::EvalSet(r->iter_values[i], loop_dom_, &ana_);
      Range dom = iv->dom;
      // Narrowed only where the binding reaches a constant range through
      // the partition variable (outer loops may be outside the scope).
      if (UsesVar(r->iter_values[i], part_var_.get()) && reach.HasLowerBound() && reach.HasUpperBound()) {
        PrimExpr lo = ana_.Simplify(max(reach.min(), iv->dom->min));
        PrimExpr hi = ana_.Simplify(min(reach.max() + IntImm(reach.max().dtype(), 1), iv->dom->min + iv->dom->extent));
        if (AsConstInt(lo) && AsConstInt(hi)) dom = Range::FromMinExtent(lo, ana_.Simplify(hi - lo));
      }
      // A reduction range that no longer starts where the reduction does
      // continues what an earlier range began: its init must not run again
      // (TVM keeps it and re-initializes; Tessera drops it there).
      if (iv->iter_type == kCommReduce && !ana_.CanProveEqual(dom->min, iv->dom->min)) drop_init = true;
      ivs.push_back(IterVar(dom, iv->var, iv->iter_type, iv->thread_tag));
      iter_dom.Set(iv->var, arith::IntSet::FromRange(dom));
    }
    auto relax = [&](const Array<BufferRegion>& regions) {
      if (ivs.empty()) return regions;
      std::vector<BufferRegion> out;
      for (const BufferRegion& reg : regions) {
        std::vector<Range> rs;
        for (const Range& x : reg->region) {
          arith::IntSet s = arith::EvalSet(x, iter_dom, &ana_);
          if (!s.HasLowerBound() || !s.HasUpperBound()) {
            rs.push_back(x);
            continue;
          }
          PrimExpr lo = ana_.Simplify(s.min());
          rs.push_back(Range::FromMinExtent(lo, ana_.Simplify(s.max() - lo + IntImm(lo.dtype(), 1))));
        }
        out.push_back(BufferRegion(reg->buffer, Array<Range>(rs)));
      }
      return Array<BufferRegion>(out);
    };
    auto* n = b.CopyOnWrite();
    n->name_hint = b->name_hint + suffix_;
    n->iter_vars = Array<IterVar>(ivs);
    if (drop_init) n->init = std::nullopt;
    if (!ivs.empty()) {  // as TVM: regions re-derived from the body, relaxed over the new domains
      auto [reads, writes] = InferBlockAccessRegions(b);
      n->reads = relax(reads);
      n->writes = relax(writes);
    }
    return BlockRealize(r->iter_values, r->predicate, b, r->span);
  }

 private:
  std::string suffix_;
  Map<Var, arith::IntSet> loop_dom_;
  Var part_var_;
  std::unordered_map<const VarNode*, Var> fresh_;
  std::unordered_map<const BufferNode*, Buffer> buffers_;
  arith::Analyzer ana_;
};

Array<LoopRV> LoopPartition(const Schedule& sch, const LoopRV& loop_rv, const Array<Any>& factors,
                            bool preserve_unit_iters) {
  LoopLocation loc = sch.LocateLoop(loop_rv, kPrim);
  const std::string func = sch->loops.at(loop_rv.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const ForNode* loop = loc.loop;
  const std::string lname = "loop " + loop->loop_var->name_hint;
  const int64_t* extent = AsConstInt(loop->extent);
  const int64_t* start = AsConstInt(loop->min);
  if (extent == nullptr || start == nullptr) {
    ThrowScheduleError(kPrim, lname + " has a symbolic range; only constant extents can be partitioned", f, {loop});
  }
  if (!loop->annotations.empty() || loop->thread_binding) {
    ThrowScheduleError(kPrim, lname + " has annotations or a thread binding", f, {loop});
  }
  if (factors.empty()) ThrowScheduleError(kPrim, "no factors were given", f);
  std::vector<int64_t> sizes;
  int none_at = -1;
  int64_t known = 0;
  for (size_t i = 0; i < factors.size(); ++i) {
    const Any& a = factors.at_any(i);
    int64_t v = 0;
    if (a.is_none()) {
      if (none_at >= 0) ThrowScheduleError(kPrim, "at most one factor may be None", f);
      none_at = static_cast<int>(i);
    } else if (a.kind() == Any::Kind::kInt) {
      v = a.cast<int64_t>();
    } else if (const auto* imm = a.as<IntImmNode>()) {
      v = imm->value;
    } else if (a.is_object() && sch->values.count(a.raw_object().get())) {
      v = sch->values.at(a.raw_object().get());
    } else {
      ThrowScheduleError(kPrim, "factor " + std::to_string(i) + " is a " + a.type_name() +
                                    ", not an integer, None or a sampled value of this schedule",
                         f);
    }
    if (!a.is_none() && v <= 0) ThrowScheduleError(kPrim, "factor " + std::to_string(v) + " is not positive", f);
    known += v;
    sizes.push_back(v);
  }
  if (known > *extent || (none_at >= 0 && known == *extent)) {
    ThrowScheduleError(kPrim, "the factors (" + std::to_string(known) + " iterations) do not fit in the extent " +
                                  std::to_string(*extent) + " of " + lname,
                       f, {loop});
  }
  if (none_at >= 0) {
    sizes[none_at] = *extent - known;
  } else if (known < *extent) {
    sizes.push_back(*extent - known);  // the remainder gets its own range, as in TVM
  }
  // The partitions are named after the first block below the loop.
  std::vector<const BlockRealizeNode*> inner = ChildBlocks(loop->body);
  if (inner.empty()) ThrowScheduleError(kPrim, lname + " holds no block", f, {loop});
  const std::string base = inner[0]->block->name_hint + "_" + loop->loop_var->name_hint;
  std::unordered_set<std::string> taken;
  auto index = sch.IndexOf(func);
  for (const BlockLocation& b : index->blocks()) taken.insert(b.block->name_hint);
  std::vector<std::string> below;
  PostOrderVisitBlockRealizes(loop->body, [&](const BlockRealizeNode* r) { below.push_back(r->block->name_hint); });

  Map<Var, arith::IntSet> outer_dom;
  for (const ForNode* l : loc.ancestors) outer_dom.Set(l->loop_var, arith::IntSet::FromMinExtent(l->min, l->extent));
  std::vector<Stmt> parts;
  std::vector<Var> vars;
  int64_t at = *start;
  DataType t = loop->loop_var.dtype();
  for (size_t k = 0; k < sizes.size(); ++k) {
    const std::string suffix = "_" + loop->loop_var->name_hint + std::to_string(k);
    for (const std::string& name : below) {
      if (taken.count(name + suffix)) {
        ThrowScheduleError(kPrim, "the partition's block name \"" + name + suffix + "\" is taken", f, {loop});
      }
    }
    for (const std::string& name : {base + std::to_string(k) + "_partition", base + "_common"}) {
      if (taken.count(name)) ThrowScheduleError(kPrim, "the block name \"" + name + "\" is taken", f, {loop});
    }
    Var v(loop->loop_var->name_hint + std::to_string(k), t);
    Map<Var, PrimExpr> subst;
    subst.Set(loop->loop_var, !preserve_unit_iters && sizes[k] == 1 ? PrimExpr(IntImm(t, at)) : PrimExpr(v));
    Map<Var, arith::IntSet> dom = outer_dom;
    dom.Set(v, arith::IntSet::FromMinExtent(IntImm(t, at), IntImm(t, sizes[k])));
    Stmt body = PartitionRewriter(suffix, dom, v).VisitStmt(Substitute(loop->body, subst));
    Stmt part = For(v, IntImm(t, at), IntImm(t, sizes[k]), loop->kind, body);
    Block wrapper({}, {}, {}, base + std::to_string(k) + "_partition", part);
    parts.push_back(BlockRealize({}, IntImm(DataType::Bool(), 1), wrapper));
    vars.push_back(v);
    at += sizes[k];
  }
  Block common({}, {}, {}, base + "_common", SeqStmt::Flatten(parts));
  Stmt replacement = BlockRealize({}, IntImm(DataType::Bool(), 1), common);
  sch.Commit(func, ReplaceInFunc(f, loop, replacement));
  std::vector<LoopRV> rvs;
  std::vector<Any> outs;
  for (const Var& v : vars) {
    LoopRV rv = LoopRV::Make();
    sch.self()->loops[rv.get()] = {func, v};
    rvs.push_back(rv);
    outs.push_back(rv);
  }
  sch.Record("LoopPartition", {loop_rv, factors}, {preserve_unit_iters}, Array<Any>(outs));
  return Array<LoopRV>(rvs);
}

}  // namespace

Array<LoopRV> Schedule::LoopPartition(const LoopRV& loop, const Array<Any>& factors, bool preserve_unit_iters) const {
  return tir::LoopPartition(*this, loop, factors, preserve_unit_iters);
}

TESSERA_REGISTER_INST_KIND("LoopPartition")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return AsOutputs(LoopPartition(sch, in.at_any(0).cast<LoopRV>(), in.at_any(1).cast<Array<Any>>(),
                                     attrs.at_any(0).cast<bool>()));
    })
    .set_as_python(PythonCall("loop_partition", {"loop", "factors"}, {"preserve_unit_iters"}, /*returns_list=*/true));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.LoopPartition")
    .set_body_typed([](Schedule s, LoopRV l, Array<Any> factors, bool preserve_unit_iters) {
      return LoopPartition(s, l, factors, preserve_unit_iters);
    });

}  // namespace tir
}  // namespace tessera
