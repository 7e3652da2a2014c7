// cache_read, cache_write and set_scope: stage a buffer through a copy in
// another storage scope (see primitives.h), followed by their schedule
// instruction kinds, Schedule methods (resolve the handles, commit,
// record) and tir.schedule.* FFI entries.
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "arith/region_bound.h"
#include "ir/structural_equal.h"
#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

// "A" cached in "shared" is "A_shared"; in "global.A_reg" it is "A_global.A_reg", as TVM names it.
std::string CacheName(const Buffer& buf, const std::string& scope) { return buf->name + "_" + scope; }

Buffer WithScope(const Buffer& buf, const std::string& name, const std::string& scope) {
  return Buffer(Var(name, DataType::Handle()), buf->dtype, buf->shape, buf->strides, buf->elem_offset, name, scope,
                buf->data_alignment, buf->offset_factor);
}

// Where the copy stage goes (TVM's rule): the lowest statement sequence
// holding both the single writer of the buffer and one of the related
// blocks (the consumers for cache_read, the other readers for cache_write),
// right before the first child holding a related block. `loc` is the loop
// whose body is that sequence, or the scope block; `pos` is -1 when no
// such place exists.
class CacheLocDetector {
 public:
  CacheLocDetector(const BlockNode* scope, const BlockNode* writer, std::unordered_set<const BlockNode*> related)
      : scope_(scope), writer_(writer), related_(std::move(related)) {}
  void Run() {
    Visit(scope_->body);
    if (visited_related_ && !loc_) {
      loc_ = scope_;
      if (!visited_block_ && pos_ == -1) pos_ = 0;
    }
  }
  const Object* loc() const { return loc_; }
  int pos() const { return pos_; }

 private:
  void Visit(const Stmt& s) {
    if (const auto* seq = s.as<SeqStmtNode>()) {
      bool previous = visited_block_;
      visited_block_ = false;
      for (size_t i = 0; i < seq->seq.size(); ++i) {
        if (pos_ != -1) break;
        Visit(seq->seq[i]);
        if (visited_block_ && visited_related_ && pos_ == -1) {
          pos_ = static_cast<int>(i);
          break;
        } else if (visited_related_) {
          break;
        }
      }
      visited_block_ = visited_block_ || previous;
    } else if (const auto* realize = s.as<BlockRealizeNode>()) {
      const BlockNode* b = realize->block.get();
      if (b == writer_) {
        visited_block_ = true;
      } else if (related_.count(b)) {
        visited_related_ = true;
      }
    } else if (const auto* loop = s.as<ForNode>()) {
      Visit(loop->body);
      if (visited_block_ && visited_related_ && !loc_ && pos_ != -1) loc_ = loop;
    } else if (const auto* branch = s.as<IfThenElseNode>()) {
      Visit(branch->then_case);
      if (branch->else_case) Visit(*branch->else_case);
    } else if (const auto* let = s.as<LetStmtNode>()) {
      Visit(let->body);
    } else if (const auto* attr = s.as<AttrStmtNode>()) {
      Visit(attr->body);
    } else if (const auto* decl = s.as<DeclBufferNode>()) {
      Visit(decl->body);
    } else if (const auto* alloc = s.as<AllocateNode>()) {
      Visit(alloc->body);
    }
  }

  const BlockNode* scope_;
  const BlockNode* writer_;
  std::unordered_set<const BlockNode*> related_;
  bool visited_block_ = false, visited_related_ = false;
  const Object* loc_ = nullptr;
  int pos_ = -1;
};

// The region of `access` (a region of `loc.block`) that the block touches
// while the loops strictly inside `at` run (`at` a loop of loc.loops, or the
// scope block: every loop), as TVM's RelaxBufferRegion: bounded under the
// block predicate (EstimateRegionUpperBound), so the tail of a non-divisible
// split is not copied. Ends known to be constant are also clipped to the
// buffer's shape.
Array<Range> RelaxRegion(const BlockLocation& loc, const BufferRegion& access, const Object* at,
                         arith::Analyzer* ana) {
  size_t first = 0;
  for (size_t i = 0; i < loc.loops.size(); ++i)
    if (loc.loops[i] == at) first = i + 1;
  Map<Var, Range> dom;
  for (size_t i = first; i < loc.loops.size(); ++i) {
    dom.Set(loc.loops[i]->loop_var, Range::FromMinExtent(loc.loops[i]->min, loc.loops[i]->extent));
  }
  Map<Var, PrimExpr> bind;
  for (size_t k = 0; k < loc.block->iter_vars.size(); ++k)
    bind.Set(loc.block->iter_vars[k]->var, loc.realize->iter_values[k]);
  std::vector<Range> bound;
  for (const Range& r : access->region)
    bound.push_back(Range::FromMinExtent(Substitute(r->min, bind), Substitute(r->extent, bind)));
  std::vector<arith::IntSet> sets =
      arith::EstimateRegionUpperBound(Array<Range>(bound), dom, loc.realize->predicate, ana);
  std::vector<Range> out;
  const Buffer& buf = access->buffer;
  for (size_t d = 0; d < access->region.size(); ++d) {
    const arith::IntSet& set = sets[d];
    Range full = Range::FromMinExtent(IntImm(buf->shape[d].dtype(), 0), buf->shape[d]);
    if (!set.HasLowerBound() || !set.HasUpperBound()) {
      out.push_back(full);
      continue;
    }
    PrimExpr lo = ana->Simplify(set.min()), hi = ana->Simplify(set.max());
    auto clo = ConstIntValue(lo), chi = ConstIntValue(hi), cshape = ConstIntValue(buf->shape[d]);
    if (clo && *clo < 0) lo = IntImm(lo.dtype(), 0);
    if (chi && cshape && *chi >= *cshape) hi = IntImm(hi.dtype(), *cshape - 1);
    bool clipped = chi && cshape && *chi >= *cshape;
    if (set.IsSinglePoint() && !clipped) {
      out.push_back(Range::FromMinExtent(lo, IntImm(lo.dtype(), 1)));
    } else {
      out.push_back(Range::FromMinExtent(lo, ana->Simplify(sub(add(hi, IntImm(hi.dtype(), 1)), lo))));
    }
  }
  return Array<Range>(out);
}

// The conjuncts of `loc`'s predicate that only use loops at or outside
// `at` (fixed while the copy stage placed at `at` runs): when one is false
// the block touches nothing in that iteration, so the copy stage, whose
// region was relaxed from the block's access, must not run either (its
// region may then be out of bounds: a non-divisible split of an outer
// loop). True when there are none.
PrimExpr OuterPredicate(const BlockLocation& loc, const Object* at) {
  size_t first = 0;
  for (size_t i = 0; i < loc.loops.size(); ++i)
    if (loc.loops[i] == at) first = i + 1;
  std::unordered_set<const VarNode*> inner;
  for (size_t i = first; i < loc.loops.size(); ++i) inner.insert(loc.loops[i]->loop_var.get());
  for (const IterVar& iv : loc.block->iter_vars) inner.insert(iv->var.get());
  PrimExpr out = IntImm(DataType::Bool(), 1);
  if (IsConstInt(loc.realize->predicate, 1)) return out;
  for (const PrimExpr& c : SplitConjuncts(loc.realize->predicate)) {
    bool outer = true;
    PostOrderVisit(c, [&](const ObjectRef& x) {
      if (const auto* v = x.as<VarNode>()) outer = outer && !inner.count(v);
    });
    if (outer) out = IsConstInt(out, 1) ? c : logical_and(out, c);
  }
  return out;
}

// `stage` with its copy block guarded by `pred` (unless it is true).
Stmt GuardStage(const Stmt& stage, const PrimExpr& pred) {
  if (IsConstInt(pred, 1)) return stage;
  struct Guard : StmtExprMutator {
    PrimExpr pred;
    using StmtExprMutator::VisitStmt_;
    Stmt VisitStmt_(const BlockRealizeNode* op) override {
      BlockRealize r = GetRef<BlockRealize>(op);
      r.CopyOnWrite()->predicate = IsConstInt(op->predicate, 1) ? pred : logical_and(pred, op->predicate);
      return r;
    }
  } g;
  g.pred = pred;
  return g.VisitStmt(stage);
}

// The copy stage `dst[...] = src[...]` over `region` of the original buffer
// (TVM's MakeCacheStage): with `full` the cache has the buffer's shape and
// the loops walk the region in place; otherwise the cache is compact (the
// region's extents) and indexes from 0. `original_is_src`: cache_read.
Stmt MakeCacheStage(const Array<Range>& region, const Buffer& original, const Buffer& cache, bool original_is_src,
                    bool full, const std::string& name) {
  std::vector<Var> loops;
  std::vector<PrimExpr> values, src_idx, dst_idx;
  std::vector<IterVar> ivs;
  std::vector<Range> src_region, dst_region;
  for (size_t d = 0; d < region.size(); ++d) {
    const Range& r = region[d];
    DataType t = r->extent.dtype();
    Var ax("ax" + std::to_string(d), t);
    loops.push_back(ax);
    values.push_back(full ? add(r->min, ax) : PrimExpr(ax));
  }
  for (size_t d = 0; d < region.size(); ++d) {
    const Range& r = region[d];
    DataType t = r->extent.dtype();
    Var v("v" + std::to_string(d), t);
    PrimExpr orig_index = v, cache_index = v;
    if (full) {
      PrimExpr dim = original->shape[d];
      ivs.push_back(IterVar(Range::FromMinExtent(IntImm(dim.dtype(), 0), dim), v, kDataPar));
    } else {
      ivs.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), r->extent), v, kDataPar));
      orig_index = add(r->min, v);
    }
    PrimExpr si = original_is_src ? orig_index : cache_index, di = original_is_src ? cache_index : orig_index;
    src_idx.push_back(si);
    dst_idx.push_back(di);
    src_region.push_back(Range::FromMinExtent(si, IntImm(t, 1)));
    dst_region.push_back(Range::FromMinExtent(di, IntImm(t, 1)));
  }
  const Buffer& src = original_is_src ? original : cache;
  const Buffer& dst = original_is_src ? cache : original;
  Block block(Array<IterVar>(ivs), {BufferRegion(src, Array<Range>(src_region))},
              {BufferRegion(dst, Array<Range>(dst_region))}, name,
              BufferStore(dst, BufferLoad(src, Array<PrimExpr>(src_idx)), Array<PrimExpr>(dst_idx)));
  Stmt body = BlockRealize(Array<PrimExpr>(values), IntImm(DataType::Bool(), 1), block);
  for (size_t d = loops.size(); d-- > 0;) {
    body = For(loops[d], IntImm(loops[d].dtype(), 0), region[d]->extent, ForKind::kSerial, body);
  }
  return body;
}

// The block of a copy stage made by MakeCacheStage.
const BlockNode* StageBlock(const Stmt& stage) {
  const BlockNode* out = nullptr;
  PostOrderVisitBlockRealizes(stage, [&](const BlockRealizeNode* r) { out = r->block.get(); });
  return out;
}

// `name`, or `name`_1, _2, ... when a buffer of `func` already has it.
std::string UniqueBufferName(const PrimFunc& func, const std::string& name) {
  std::unordered_set<std::string> taken;
  for (const auto& kv : func->buffer_map.raw()) taken.insert(kv.second.cast<Buffer>()->name);
  PostOrderVisit(func->body, [&](const ObjectRef& obj) {
    if (const auto* block = obj.as<BlockNode>()) {
      for (const Buffer& b : block->alloc_buffers) taken.insert(b->name);
      for (const MatchBufferRegion& m : block->match_buffers) taken.insert(m->buffer->name);
    }
  });
  std::string out = name;
  for (int k = 1; taken.count(out); ++k) out = name + "_" + std::to_string(k);
  return out;
}

// Inserts `stage` at `pos` of `body` (a sequence, or one statement: 0 before, 1 after).
Stmt InsertStage(const Stmt& body, int pos, const Stmt& stage) {
  std::vector<Stmt> items;
  if (const auto* seq = body.as<SeqStmtNode>()) {
    for (Stmt s : seq->seq) items.push_back(s);
  } else {
    items.push_back(body);
  }
  size_t at = std::min(static_cast<size_t>(std::max(pos, 0)), items.size());
  items.insert(items.begin() + at, stage);
  return SeqStmt::Flatten(items);
}

// Rewrites the scope of a cache stage: `from` becomes `to` (shifted by the
// region's mins when the cache is compact) in the blocks `rewrites` selects,
// the stage is inserted at `loc`/`pos` and the cache allocated in the scope.
class CacheRewriter : public StmtExprMutator {
 public:
  CacheRewriter(const BlockNode* scope, const Object* loc, int pos, Stmt stage, Buffer from, Buffer to,
                const Array<Range>& region, bool full, std::function<int(const BlockNode*)> rewrites)
      : scope_(scope), loc_(loc), pos_(pos), stage_(std::move(stage)), from_(std::move(from)), to_(std::move(to)),
        region_(region), full_(full), rewrites_(std::move(rewrites)) {}

  // What `rewrites` answers for a block: skip it (and what is inside) unchanged,
  // rewrite only the loads inside and the read regions (cache_read's
  // consumers), or every access (cache_write's writer).
  enum { kKeep = 0, kVisitOnly = 1, kReads = 2, kAll = 3 };

  // The node a block of the scope became (itself when left unchanged).
  const BlockNode* Rewritten(const BlockNode* b) const {
    auto it = rewritten_.find(b);
    return it == rewritten_.end() ? b : it->second;
  }

  Stmt Run() {
    Block b = GetRef<Block>(scope_);
    Stmt body = VisitStmt(scope_->body);
    if (loc_ == scope_) body = InsertStage(body, pos_, stage_);
    auto* n = b.CopyOnWrite();
    n->body = body;
    n->alloc_buffers.push_back(to_);
    return b;
  }

 private:
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  Buffer VisitBufferUse(const Buffer& b) override { return b; }

  // index - min (an index is kept as written when the region starts at 0).
  PrimExpr Offset(const PrimExpr& index, const PrimExpr& min) {
    if (auto c = AsConstInt(min); c && *c == 0) return index;
    return ana_.Simplify(sub(index, min));
  }
  Array<PrimExpr> Shift(const Array<PrimExpr>& idx) {
    if (full_) return idx;
    std::vector<PrimExpr> out;
    for (size_t i = 0; i < idx.size(); ++i) out.push_back(Offset(idx[i], region_[i]->min));
    return Array<PrimExpr>(out);
  }
  BufferRegion ShiftRegion(const BufferRegion& r) {
    if (!r->buffer.same_as(from_)) return r;
    if (full_) return BufferRegion(to_, r->region);
    std::vector<Range> out;
    for (size_t i = 0; i < r->region.size(); ++i)
      out.push_back(Range::FromMinExtent(Offset(r->region[i]->min, region_[i]->min), r->region[i]->extent));
    return BufferRegion(to_, Array<Range>(out));
  }
  Array<BufferRegion> ShiftRegions(const Array<BufferRegion>& rs) {
    std::vector<BufferRegion> out;
    for (BufferRegion r : rs) out.push_back(ShiftRegion(r));
    return Array<BufferRegion>(out);
  }

  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (mode_ >= kReads && load->buffer.same_as(from_)) return BufferLoad(to_, Shift(load->indices), load->span);
    return e;
  }
  PrimExpr VisitExpr_(const VarNode* op) override {
    if (mode_ >= kReads && op == from_->data.get()) return to_->data;
    return GetRef<PrimExpr>(op);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (mode_ == kAll && store->buffer.same_as(from_)) {
      return BufferStore(to_, store->value, Shift(store->indices), store->span);
    }
    return s;
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    if (op == loc_) {
      For f = Downcast<For>(s);
      f.CopyOnWrite()->body = InsertStage(f->body, pos_, stage_);
      return f;
    }
    return s;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    int mode = rewrites_(op);
    if (mode == kKeep) return GetRef<Stmt>(op);
    int saved = mode_;
    mode_ = mode;
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    mode_ = saved;
    if (mode >= kReads) {
      auto* n = b.CopyOnWrite();
      n->reads = ShiftRegions(b->reads);
      if (mode == kAll) n->writes = ShiftRegions(b->writes);
      std::vector<MatchBufferRegion> matches;
      for (MatchBufferRegion m : b->match_buffers) matches.push_back(MatchBufferRegion(m->buffer, ShiftRegion(m->source)));
      n->match_buffers = Array<MatchBufferRegion>(matches);
    }
    rewritten_[op] = b.get();
    return b;
  }

  std::unordered_map<const BlockNode*, const BlockNode*> rewritten_;
  const BlockNode* scope_;
  const Object* loc_;
  int pos_;
  Stmt stage_;
  Buffer from_, to_;
  Array<Range> region_;
  bool full_;
  std::function<int(const BlockNode*)> rewrites_;
  int mode_ = kVisitOnly;
  arith::Analyzer ana_;
};

bool ReadsBuffer(const BlockNode* b, const Buffer& buf) {
  for (BufferRegion r : b->reads)
    if (r->buffer.same_as(buf)) return true;
  return false;
}
bool WritesBuffer(const BlockNode* b, const Buffer& buf) {
  for (BufferRegion r : b->writes)
    if (r->buffer.same_as(buf)) return true;
  return false;
}

// Blocks of the scope of `loc` (direct children), in program order.
std::vector<BlockLocation> ScopeChildren(const PrimFunc& func, const BlockNode* scope) {
  std::vector<BlockLocation> out;
  for (const BlockLocation& b : CollectBlocks(func))
    if (b.scope == scope) out.push_back(b);
  return out;
}

// Every block under `scope` that writes `buf` is `writer` or inside it: a
// write hidden in a block that declares none would go unnoticed by the copy.
void CheckHiddenWriters(const char* prim, const PrimFunc& func, const BlockNode* scope, const BlockLocation* writer,
                        const Buffer& buf) {
  std::unordered_set<const BlockNode*> inside;
  if (writer) {
    PostOrderVisitBlockRealizes(GetRef<Stmt>(writer->realize),
                                [&](const BlockRealizeNode* r) { inside.insert(r->block.get()); });
  }
  const BlockNode* hidden = nullptr;
  PostOrderVisitBlockRealizes(scope->body, [&](const BlockRealizeNode* r) {
    if (!hidden && WritesBuffer(r->block.get(), buf) && !inside.count(r->block.get())) hidden = r->block.get();
  });
  if (hidden) {
    ThrowScheduleError(prim, "block \"" + hidden->name_hint + "\" writes " + buf->name + " inside a block of scope \"" +
                                 scope->name_hint + "\" that does not declare the write; the copy cannot be placed",
                       func, {hidden});
  }
}

// In a nested scope the write-back copies the region the writer declares: a
// leaf writer must store exactly that region (one point, its store indices).
void CheckExactWrite(const PrimFunc& func, const BlockLocation& loc, const BufferRegion& declared) {
  const auto* root = func->body.as<BlockRealizeNode>();
  if (root == nullptr || loc.scope == root->block.get()) return;
  bool nested = false, exact = true;
  PostOrderVisitBlockRealizes(loc.block->body, [&](const BlockRealizeNode*) { nested = true; });
  if (nested) return;
  auto check = [&](const ObjectRef& node) {
    const auto* store = node.as<BufferStoreNode>();
    if (!store || !store->buffer.same_as(declared->buffer)) return;
    for (size_t d = 0; d < declared->region.size() && d < store->indices.size(); ++d) {
      auto ext = AsConstInt(declared->region[d]->extent);
      if (!ext || *ext != 1 || !StructuralEqual(declared->region[d]->min, store->indices[d])) exact = false;
    }
  };
  PostOrderVisit(loc.block->body, check);
  if (loc.block->init) PostOrderVisit(*loc.block->init, check);
  if (!exact) {
    ThrowScheduleError("cache_write", "block \"" + loc.block->name_hint + "\" in the nested scope \"" +
                                          loc.scope->name_hint + "\" declares a larger write region of " +
                                          declared->buffer->name + " than it stores; the write-back of that region "
                                          "would copy values it never wrote",
                       func, {loc.block});
  }
}

// A block of `consumers` that reads `buf`, in the scope of `loc`; throws otherwise.
void CheckConsumers(const char* prim, const PrimFunc& func, const BlockLocation& loc, const Buffer& buf,
                    const std::vector<BlockLocation>& consumers) {
  for (const BlockLocation& c : consumers) {
    if (c.scope != loc.scope) {
      ThrowScheduleError(prim, "consumer block \"" + c.block->name_hint + "\" is not in the same scope as block \"" +
                                   loc.block->name_hint + "\"", func, {c.block});
    }
    if (!ReadsBuffer(c.block, buf)) {
      ThrowScheduleError(prim, "consumer block \"" + c.block->name_hint + "\" does not read " + buf->name, func,
                         {c.block});
    }
  }
}

// Whether the cache covers the whole buffer: TVM keeps it full when the
// stage sits in a loop or when some reader of the buffer lies outside the
// stage's scope statement.
bool CacheFullRegion(const Object* loc, const BlockNode* scope) { return loc != scope; }

// Number of statements of the scope block's body (where "at the end" inserts).
int scope_size(const BlockNode* scope) {
  if (const auto* seq = scope->body.as<SeqStmtNode>()) return static_cast<int>(seq->seq.size());
  return 1;
}

// Position of a block in program order among `all` (CollectBlocks order).
size_t OrderOf(const std::vector<BlockLocation>& all, const BlockNode* b) {
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].block == b) return i;
  return all.size();
}

}  // namespace

PrimFunc CacheRead(const PrimFunc& func, const BlockLocation& loc, int read_index, const std::string& scope,
                   std::string* new_block, const std::vector<BlockLocation>& consumer_blocks,
                   const BlockNode** new_block_node) {
  if (read_index < 0 || read_index >= static_cast<int>(loc.block->reads.size())) {
    ThrowScheduleError("cache_read", "block \"" + loc.block->name_hint + "\" has " +
                                         std::to_string(loc.block->reads.size()) + " read buffers; index " +
                                         std::to_string(read_index) + " is out of range",
                       func, {loc.block});
  }
  Buffer buf = loc.block->reads[read_index]->buffer;
  std::vector<BlockLocation> children = ScopeChildren(func, loc.scope);
  // As TVM: the buffer has at most one writer in the scope.
  const BlockLocation* writer = nullptr;
  for (const BlockLocation& other : children) {
    if (!WritesBuffer(other.block, buf)) continue;
    if (writer) {
      ThrowScheduleError("cache_read", "buffer " + buf->name + " has more than one producer in its scope (blocks \"" +
                                           writer->block->name_hint + "\" and \"" + other.block->name_hint +
                                           "\"); cache_read needs at most one",
                         func, {other.block});
    }
    writer = &other;
  }
  CheckConsumers("cache_read", func, loc, buf, consumer_blocks);
  CheckHiddenWriters("cache_read", func, loc.scope, writer, buf);
  // As TVM, the copy block may share its name with another block (handles
  // tell them apart); its buffer gets a name of its own.
  std::string name = CacheName(buf, scope);
  // The blocks reading the copy: the consumers given (and the blocks inside
  // them), or every block of the scope that reads the buffer.
  std::unordered_set<const BlockNode*> consumers;
  for (const BlockLocation& c : consumer_blocks) {
    consumers.insert(c.block);
    PostOrderVisitBlockRealizes(GetRef<Stmt>(c.realize),
                                [&](const BlockRealizeNode* r) { consumers.insert(r->block.get()); });
  }
  arith::Analyzer ana;
  const Object* at = loc.scope;
  int pos = 0;
  Array<Range> region;
  PrimExpr stage_pred = IntImm(DataType::Bool(), 1);  // the copy runs where the writer writes
  if (writer) {
    std::unordered_set<const BlockNode*> related;
    if (!consumers.empty()) {
      for (const BlockLocation& c : consumer_blocks) related.insert(c.block);
    } else {
      bool after = false;
      for (const BlockLocation& c : children) {
        if (c.block == writer->block) after = true;
        else if (after && ReadsBuffer(c.block, buf)) related.insert(c.block);
      }
    }
    if (related.empty()) {
      pos = scope_size(loc.scope);
    } else {
      CacheLocDetector detector(loc.scope, writer->block, related);
      detector.Run();
      at = detector.loc();
      pos = detector.pos();
      if (at == nullptr || pos < 0) {
        ThrowScheduleError("cache_read", "no place after the producer \"" + writer->block->name_hint + "\" of " +
                                             buf->name + " and before its consumers can hold the copy",
                           func, {loc.block});
      }
    }
    BufferRegion written;
    for (BufferRegion w : writer->block->writes)
      if (w->buffer.same_as(buf)) written = w;
    region = RelaxRegion(*writer, written, at, &ana);
    stage_pred = OuterPredicate(*writer, at);
  } else {
    // An input of the scope: copied at its start, the region the scope block reads.
    region = Array<Range>();
    for (BufferRegion r : loc.scope->reads)
      if (r->buffer.same_as(buf)) region = r->region;
    if (region.empty()) {
      std::vector<Range> full;
      for (PrimExpr d : buf->shape) full.push_back(Range::FromMinExtent(IntImm(d.dtype(), 0), d));
      region = Array<Range>(full);
    }
  }
  bool full = CacheFullRegion(at, loc.scope);
  // Without consumers given, the readers are the blocks of the scope that
  // declare reading the buffer (not its writer), with the blocks inside them;
  // a block nested in one that declares no such read keeps the original.
  if (consumer_blocks.empty()) {
    for (const BlockLocation& c : children) {
      if (!ReadsBuffer(c.block, buf) || WritesBuffer(c.block, buf)) continue;
      PostOrderVisitBlockRealizes(GetRef<Stmt>(c.realize),
                                  [&](const BlockRealizeNode* r) { consumers.insert(r->block.get()); });
    }
  }
  auto is_consumer = [&](const BlockNode* b) { return consumers.count(b) > 0; };
  Buffer cache = WithScope(buf, UniqueBufferName(func, name), scope);
  if (!full) {
    std::vector<PrimExpr> shape;
    for (Range r : region) shape.push_back(r->extent);
    cache.CopyOnWrite()->shape = Array<PrimExpr>(shape);
  }
  Stmt stage = GuardStage(MakeCacheStage(region, buf, cache, /*original_is_src=*/true, full, name), stage_pred);
  CacheRewriter rewriter(loc.scope, at, pos, stage, buf, cache, region, full, [&](const BlockNode* b) {
    if (WritesBuffer(b, buf)) return static_cast<int>(CacheRewriter::kKeep);
    return static_cast<int>(is_consumer(b) ? CacheRewriter::kReads : CacheRewriter::kVisitOnly);
  });
  *new_block = name;
  PrimFunc out = ReplaceInFunc(func, loc.scope, rewriter.Run());
  const BlockNode* stage_block = StageBlock(stage);
  if (new_block_node) *new_block_node = stage_block;
  // Every block now reading the copy runs after it, and no write of the
  // buffer happens in between (the copy would be stale). The writer is
  // left as it was, so it keeps its node.
  std::vector<BlockLocation> all = CollectBlocks(out);
  size_t copy_at = OrderOf(all, stage_block), writer_at = writer ? OrderOf(all, writer->block) : all.size();
  for (const BlockLocation& b : all) {
    if (b.block == stage_block || !ReadsBuffer(b.block, cache)) continue;
    size_t at_b = OrderOf(all, b.block);
    if (at_b < copy_at || (writer && copy_at < writer_at && writer_at < at_b)) {
      auto orig = FindBlock(func, b.block->name_hint);
      ThrowScheduleError("cache_read", "block \"" + b.block->name_hint + "\" would read the copy of " + buf->name +
                                           (at_b < copy_at ? " before it is made" : " after its producer changed it"),
                         func, {orig ? static_cast<const Object*>(orig->block) : loc.block});
    }
  }
  return out;
}

PrimFunc CacheWrite(const PrimFunc& func, const BlockLocation& loc, int write_index, const std::string& scope,
                    std::string* new_block, const std::vector<BlockLocation>& consumer_blocks,
                   const BlockNode** new_block_node) {
  if (write_index < 0 || write_index >= static_cast<int>(loc.block->writes.size())) {
    ThrowScheduleError("cache_write", "block \"" + loc.block->name_hint + "\" has " +
                                          std::to_string(loc.block->writes.size()) + " written buffers; index " +
                                          std::to_string(write_index) + " is out of range",
                       func, {loc.block});
  }
  Buffer buf = loc.block->writes[write_index]->buffer;
  std::vector<BlockLocation> children = ScopeChildren(func, loc.scope);
  for (const BlockLocation& other : children) {
    if (other.block == loc.block) continue;
    if (WritesBuffer(other.block, buf)) {
      ThrowScheduleError("cache_write", "buffer " + buf->name + " is also written by block \"" + other.block->name_hint +
                                            "\"; cache_write needs the block to be its only writer",
                         func, {other.block});
    }
  }
  CheckConsumers("cache_write", func, loc, buf, consumer_blocks);
  CheckHiddenWriters("cache_write", func, loc.scope, &loc, buf);
  CheckExactWrite(func, loc, loc.block->writes[write_index]);
  std::vector<BlockLocation> all = CollectBlocks(func);
  size_t writer_order = OrderOf(all, loc.block);
  for (const BlockLocation& c : consumer_blocks) {
    if (c.block == loc.block || OrderOf(all, c.block) <= writer_order) {
      ThrowScheduleError("cache_write", "consumer block \"" + c.block->name_hint + "\" does not come after block \"" +
                                            loc.block->name_hint + "\"; it cannot read the cache",
                         func, {c.block});
    }
  }
  std::string name = CacheName(buf, scope);
  std::unordered_set<const BlockNode*> consumers;
  for (const BlockLocation& c : consumer_blocks) {
    consumers.insert(c.block);
    PostOrderVisitBlockRealizes(GetRef<Stmt>(c.realize),
                                [&](const BlockRealizeNode* r) { consumers.insert(r->block.get()); });
  }
  // The write-back goes before the first later reader that is not a consumer
  // of the cache, or at the end of the scope.
  std::unordered_set<const BlockNode*> related;
  bool after = false;
  for (const BlockLocation& c : children) {
    if (c.block == loc.block) after = true;
    else if (after && ReadsBuffer(c.block, buf) && !consumers.count(c.block)) related.insert(c.block);
  }
  const Object* at = loc.scope;
  int pos = scope_size(loc.scope);
  if (!related.empty()) {
    CacheLocDetector detector(loc.scope, loc.block, related);
    detector.Run();
    at = detector.loc();
    pos = detector.pos();
    if (at == nullptr || pos < 0) {
      ThrowScheduleError("cache_write", "no place after block \"" + loc.block->name_hint +
                                            "\" and before the readers of " + buf->name + " can hold the write-back",
                         func, {loc.block});
    }
  }
  arith::Analyzer ana;
  Array<Range> region = RelaxRegion(loc, loc.block->writes[write_index], at, &ana);
  bool full = CacheFullRegion(at, loc.scope);
  Buffer cache = WithScope(buf, UniqueBufferName(func, name), scope);
  if (!full) {
    std::vector<PrimExpr> shape;
    for (Range r : region) shape.push_back(r->extent);
    cache.CopyOnWrite()->shape = Array<PrimExpr>(shape);
  }
  Stmt stage = GuardStage(MakeCacheStage(region, buf, cache, /*original_is_src=*/false, full, name),
                          OuterPredicate(loc, at));
  const BlockNode* writer = loc.block;
  std::unordered_set<const BlockNode*> under_writer;
  PostOrderVisitBlockRealizes(GetRef<Stmt>(loc.realize),
                              [&](const BlockRealizeNode* r) { under_writer.insert(r->block.get()); });
  CacheRewriter rewriter(loc.scope, at, pos, stage, buf, cache, region, full, [&](const BlockNode* b) {
    if (b == writer || under_writer.count(b)) return static_cast<int>(CacheRewriter::kAll);
    if (consumers.count(b)) return static_cast<int>(CacheRewriter::kAll);
    return static_cast<int>(CacheRewriter::kKeep);
  });
  *new_block = name;
  PrimFunc out = ReplaceInFunc(func, loc.scope, rewriter.Run());
  const BlockNode* stage_block = StageBlock(stage);
  if (new_block_node) *new_block_node = stage_block;
  // Readers of the buffer after the writer run after the write-back.
  std::vector<BlockLocation> now = CollectBlocks(out);
  size_t back_at = OrderOf(now, stage_block), writer_now = OrderOf(now, rewriter.Rewritten(loc.block));
  for (const BlockLocation& b : now) {
    if (b.block == stage_block || !ReadsBuffer(b.block, buf)) continue;
    size_t at_b = OrderOf(now, b.block);
    if (at_b > writer_now && at_b < back_at) {
      auto orig = FindBlock(func, b.block->name_hint);
      ThrowScheduleError("cache_write", "block \"" + b.block->name_hint + "\" reads " + buf->name +
                                            " after block \"" + loc.block->name_hint +
                                            "\" but before the write-back could happen",
                         func, {orig ? static_cast<const Object*>(orig->block) : loc.block});
    }
  }
  return out;
}

PrimFunc CacheInplace(const PrimFunc& func, const BlockLocation& loc, int read_index, const std::string& scope,
                      const BlockNode** read_stage, const BlockNode** write_stage) {
  const char* prim = "cache_inplace";
  if (read_index < 0 || read_index >= static_cast<int>(loc.block->reads.size())) {
    ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" has " + std::to_string(loc.block->reads.size()) +
                                 " read buffers; index " + std::to_string(read_index) + " is out of range",
                       func, {loc.block});
  }
  BufferRegion read = loc.block->reads[read_index];
  const Buffer& buf = read->buffer;
  BufferRegion write;
  for (BufferRegion w : loc.block->writes)
    if (w->buffer.same_as(buf)) write = w;
  if (!write.defined()) {
    ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" reads buffer " + buf->name +
                                 " but does not write it; cache_inplace needs a block that both reads and writes it",
                       func, {loc.block});
  }
  // The regions in terms of the loops around the block (its bindings substituted).
  Map<Var, PrimExpr> bind;
  for (size_t k = 0; k < loc.block->iter_vars.size(); ++k)
    bind.Set(loc.block->iter_vars[k]->var, loc.realize->iter_values[k]);
  arith::Analyzer ana;
  auto bound = [&](const BufferRegion& r) {
    std::vector<Range> out;
    for (Range x : r->region)
      out.push_back(Range::FromMinExtent(ana.Simplify(Substitute(x->min, bind)), ana.Simplify(Substitute(x->extent, bind))));
    return Array<Range>(out);
  };
  Array<Range> read_region = bound(read), write_region = bound(write);
  // The write-back copies the whole written region from the copy: the part
  // the block does not read would be copied back uninitialized.
  for (size_t d = 0; d < read_region.size(); ++d) {
    const Range& r = read_region[d];
    const Range& w = write_region[d];
    if (!ana.CanProve(greater_equal(w->min, r->min)) || !ana.CanProve(less_equal(add(w->min, w->extent), add(r->min, r->extent)))) {
      ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" declares writing a region of " + buf->name +
                                   " it does not declare reading; the copy written back would hold values it "
                                   "never read",
                         func, {loc.block});
    }
  }
  // Under a parallel (vectorized, thread-bound) loop, iterations would copy
  // the region in and back at once, each over the others' updates.
  {
    std::vector<const ForNode*> path, found;
    std::function<bool(const Stmt&)> walk = [&](const Stmt& st) -> bool {
      if (st.get() == loc.realize) {
        found = path;
        return true;
      }
      bool hit = false;
      if (const auto* f = st.as<ForNode>()) {
        path.push_back(f);
        hit = walk(f->body);
        path.pop_back();
        return hit;
      }
      if (const auto* seq = st.as<SeqStmtNode>()) {
        for (Stmt x : seq->seq) hit = hit || walk(x);
      } else if (const auto* br = st.as<BlockRealizeNode>()) {
        hit = walk(br->block->body);
      } else if (const auto* ite = st.as<IfThenElseNode>()) {
        hit = walk(ite->then_case) || (ite->else_case && walk(*ite->else_case));
      } else if (const auto* let = st.as<LetStmtNode>()) {
        hit = walk(let->body);
      } else if (const auto* attr = st.as<AttrStmtNode>()) {
        hit = walk(attr->body);
      } else if (const auto* decl = st.as<DeclBufferNode>()) {
        hit = walk(decl->body);
      } else if (const auto* alloc = st.as<AllocateNode>()) {
        hit = walk(alloc->body);
      }
      return hit;
    };
    walk(func->body);
    for (const ForNode* f : found) {
      if (f->kind != ForKind::kSerial && f->kind != ForKind::kUnrolled) {
        ThrowScheduleError(prim, "block \"" + loc.block->name_hint + "\" runs under loop " + f->loop_var->name_hint +
                                     " whose iterations run at once; its copies of " + buf->name +
                                     " would overwrite each other",
                           func, {f});
      }
    }
  }
  std::string name = CacheName(buf, scope);
  Buffer cache = WithScope(buf, name, scope);
  // Both stages run in the innermost loop around the block (or the scope),
  // right before and right after the statement holding the block, under
  // the block's predicate.
  Stmt in_stage = GuardStage(MakeCacheStage(read_region, buf, cache, /*original_is_src=*/true, /*full=*/true, name),
                             loc.realize->predicate);
  Stmt out_stage = GuardStage(MakeCacheStage(write_region, buf, cache, /*original_is_src=*/false, /*full=*/true, name),
                              loc.realize->predicate);
  const Object* at = loc.loops.empty() ? static_cast<const Object*>(loc.scope) : loc.loops.back();
  Stmt body = loc.loops.empty() ? loc.scope->body : loc.loops.back()->body;
  int pos = 0;
  if (const auto* seq = body.as<SeqStmtNode>()) {
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      bool holds = false;
      PostOrderVisitBlockRealizes(seq->seq[i], [&](const BlockRealizeNode* r) { holds = holds || r == loc.realize; });
      if (holds) pos = static_cast<int>(i);
    }
  }
  std::unordered_set<const BlockNode*> target;
  PostOrderVisitBlockRealizes(GetRef<Stmt>(loc.realize), [&](const BlockRealizeNode* r) { target.insert(r->block.get()); });
  CacheRewriter rewriter(loc.scope, at, pos, in_stage, buf, cache, read_region, /*full=*/true,
                         [&](const BlockNode* b) {
                           return static_cast<int>(target.count(b) ? CacheRewriter::kAll : CacheRewriter::kKeep);
                         });
  Stmt new_scope = rewriter.Run();
  // The write-back goes after the statement holding the block (now at pos + 1).
  if (at == loc.scope) {
    Block b = Downcast<Block>(new_scope);
    b.CopyOnWrite()->body = InsertStage(b->body, pos + 2, out_stage);
    new_scope = b;
  } else {
    struct After : StmtExprMutator {
      const VarNode* var;
      int pos;
      Stmt stage;
      using StmtExprMutator::VisitStmt_;
      Stmt VisitStmt_(const ForNode* op) override {
        Stmt s = StmtExprMutator::VisitStmt_(op);
        if (op->loop_var.get() != var) return s;
        For f = Downcast<For>(s);
        f.CopyOnWrite()->body = InsertStage(f->body, pos, stage);
        return f;
      }
    } after;
    after.var = loc.loops.back()->loop_var.get();
    after.pos = pos + 2;
    after.stage = out_stage;
    Block b = Downcast<Block>(new_scope);
    b.CopyOnWrite()->body = after.VisitStmt(b->body);
    new_scope = b;
  }
  PrimFunc out = ReplaceInFunc(func, loc.scope, new_scope);
  // The stages' blocks, as they sit in the result.
  *read_stage = *write_stage = nullptr;
  std::vector<const BlockNode*> made;
  PostOrderVisitBlockRealizes(in_stage, [&](const BlockRealizeNode* r) { made.push_back(r->block.get()); });
  PostOrderVisitBlockRealizes(out_stage, [&](const BlockRealizeNode* r) { made.push_back(r->block.get()); });
  for (const BlockLocation& b : CollectBlocks(out)) {
    if (b.block == made[0]) *read_stage = b.block;
    if (b.block == made[1]) *write_stage = b.block;
  }
  TESSERA_ICHECK(*read_stage && *write_stage) << "cache_inplace: a copy stage was rebuilt while being inserted";
  return out;
}

PrimFunc SetScope(const PrimFunc& func, const BlockLocation& loc, int write_index, const std::string& scope) {
  if (write_index < 0 || write_index >= static_cast<int>(loc.block->writes.size())) {
    ThrowScheduleError("set_scope", "write buffer index " + std::to_string(write_index) + " is out of range", func);
  }
  Buffer buf = loc.block->writes[write_index]->buffer;
  for (const auto& kv : func->buffer_map.raw()) {
    if (kv.second.raw_object().same_as(buf)) {
      ThrowScheduleError("set_scope", "buffer " + buf->name + " is a function parameter; its scope is fixed", func);
    }
  }
  Buffer scoped = WithScope(buf, buf->name, scope);
  // As TVM, buffers matched (match_buffer) to a region of it take the scope too.
  struct Swap : StmtExprMutator {
    Buffer from, to;
    std::string scope;
    std::unordered_map<const Object*, Buffer> matched;
    Buffer VisitBufferUse(const Buffer& b) override {
      if (b.same_as(from)) return to;
      auto it = matched.find(b.get());
      return it == matched.end() ? b : it->second;
    }
    using StmtExprMutator::VisitStmt_;
    Stmt VisitStmt_(const BlockNode* op) override {
      for (MatchBufferRegion m : op->match_buffers) {
        if (m->source->buffer.same_as(from)) matched[m->buffer.get()] = WithScope(m->buffer, m->buffer->name, scope);
      }
      Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
      {
        std::vector<MatchBufferRegion> matches;
        bool renamed = false;
        for (MatchBufferRegion m : b->match_buffers) {
          auto it = matched.find(m->buffer.get());
          renamed = renamed || it != matched.end();
          matches.push_back(it == matched.end() ? m : MatchBufferRegion(it->second, m->source));
        }
        if (renamed) b.CopyOnWrite()->match_buffers = Array<MatchBufferRegion>(matches);
      }
      std::vector<Buffer> allocs;
      bool changed = false;
      for (Buffer x : b->alloc_buffers) {
        allocs.push_back(x.same_as(from) ? to : x);
        changed = changed || x.same_as(from);
      }
      if (changed) b.CopyOnWrite()->alloc_buffers = Array<Buffer>(allocs);
      return b;
    }
  } swap;
  swap.from = buf;
  swap.to = scoped;
  swap.scope = scope;
  PrimFunc out = func;
  out.CopyOnWrite()->body = swap.VisitStmt(func->body);
  return out;
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

// Inputs: the block, then (when given) the list of consumer blocks.
std::vector<BlockRV> ConsumersOf(const Inputs& in) {
  std::vector<BlockRV> out;
  if (in.size() > 1) {
    for (const Any& x : in.at_any(1).cast<Array<Any>>().to_vector()) out.push_back(x.cast<BlockRV>());
  }
  return out;
}
BlockRV CacheStage(const Schedule& sch, bool read, const BlockRV& block, int index, const std::string& scope,
                   const std::vector<BlockRV>& consumers);

TESSERA_REGISTER_INST_KIND("CacheRead")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return Array<Any>{CacheStage(sch, true, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int>(),
                                   attrs.at_any(1).cast<std::string>(), ConsumersOf(in))};
    })
    .set_as_python(PythonCall("cache_read", {"block", "consumer_blocks"}, {"read_buffer_index", "storage_scope"}));
TESSERA_REGISTER_INST_KIND("CacheWrite")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return Array<Any>{CacheStage(sch, false, in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int>(),
                                   attrs.at_any(1).cast<std::string>(), ConsumersOf(in))};
    })
    .set_as_python(PythonCall("cache_write", {"block", "consumer_blocks"}, {"write_buffer_index", "storage_scope"}));
TESSERA_REGISTER_INST_KIND("SetScope")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      sch.SetScope(in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int>(), attrs.at_any(1).cast<std::string>());
      return Array<Any>();
    })
    .set_as_python(PythonCall("set_scope", {"block"}, {"buffer_index", "storage_scope"}));

// ---- Schedule methods ------------------------------------------------------------

// cache_read / cache_write with TVM's consumer_blocks (recorded as a second
// input only when given, so traces without it print as before).
BlockRV CacheStage(const Schedule& sch, bool read, const BlockRV& block, int index, const std::string& scope,
                   const std::vector<BlockRV>& consumers) {
  const char* prim = read ? "cache_read" : "cache_write";
  BlockLocation loc = sch.LocateBlock(block, prim);
  const std::string func = sch->blocks.at(block.get()).func;
  std::vector<BlockLocation> consumer_locs;
  for (const BlockRV& c : consumers) {
    if (sch->blocks.at(c.get()).func != func) {
      ThrowScheduleError(prim, "a consumer block is in another function than block \"" + loc.block->name_hint + "\"",
                         sch.FuncOf(func));
    }
    consumer_locs.push_back(sch.LocateBlock(c, prim));
  }
  std::string name;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* stage_block = nullptr;
  PrimFunc out = read ? tir::CacheRead(f, loc, index, scope, &name, consumer_locs, &stage_block)
                      : tir::CacheWrite(f, loc, index, scope, &name, consumer_locs, &stage_block);
  sch.Commit(func, out);
  BlockRV rv = sch.NewBlockRV(func, stage_block);
  Array<Any> inputs{block};
  if (!consumers.empty()) inputs = Array<Any>{block, Array<Any>(std::vector<Any>(consumers.begin(), consumers.end()))};
  sch.Record(read ? "CacheRead" : "CacheWrite", inputs, {static_cast<int64_t>(index), scope}, {rv});
  return rv;
}

BlockRV Schedule::CacheRead(const BlockRV& block, int read_index, const std::string& scope) const {
  return CacheStage(*this, true, block, read_index, scope, {});
}

BlockRV Schedule::CacheWrite(const BlockRV& block, int write_index, const std::string& scope) const {
  return CacheStage(*this, false, block, write_index, scope, {});
}

void Schedule::SetScope(const BlockRV& block, int write_index, const std::string& scope) const {
  BlockLocation loc = LocateBlock(block, "set_scope");
  const std::string func = get()->blocks.at(block.get()).func;
  Commit(func, tir::SetScope(FuncOf(func), loc, write_index, scope));
  Record("SetScope", {block}, {static_cast<int64_t>(write_index), scope}, {});
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CacheRead")
    .set_body_typed([](Schedule s, BlockRV b, int i, std::string scope, Array<BlockRV> consumers) {
      return CacheStage(s, true, b, i, scope, consumers.to_vector());
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CacheWrite")
    .set_body_typed([](Schedule s, BlockRV b, int i, std::string scope, Array<BlockRV> consumers) {
      return CacheStage(s, false, b, i, scope, consumers.to_vector());
    });
// ---- cache_inplace ----------------------------------------------------------------
TESSERA_REGISTER_INST_KIND("CacheInplace")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return AsOutputs(sch.CacheInplace(in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<int>(),
                                        attrs.at_any(1).cast<std::string>()));
    })
    .set_as_python(PythonCall("cache_inplace", {"block"}, {"read_buffer_index", "storage_scope"},
                              /*returns_list=*/true));

Array<BlockRV> Schedule::CacheInplace(const BlockRV& block, int read_index, const std::string& scope) const {
  BlockLocation loc = LocateBlock(block, "cache_inplace");
  const std::string func = get()->blocks.at(block.get()).func;
  const BlockNode *in = nullptr, *out = nullptr;
  Commit(func, tir::CacheInplace(FuncOf(func), loc, read_index, scope, &in, &out));
  Array<BlockRV> result{NewBlockRV(func, in), NewBlockRV(func, out)};
  Record("CacheInplace", {block}, {static_cast<int64_t>(read_index), scope}, AsOutputs(result));
  return result;
}

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CacheInplace")
    .set_body_typed([](Schedule s, BlockRV b, int i, std::string scope) { return s.CacheInplace(b, i, scope); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SetScope").set_body_typed([](Schedule s, BlockRV b, int i, std::string scope) {
  s.SetScope(b, i, scope);
});

}  // namespace tir
}  // namespace tessera
