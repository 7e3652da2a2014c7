// cache_read, cache_write and set_scope: stage a buffer through a copy in
// another storage scope (see primitives.h), followed by their schedule
// instruction kinds, Schedule methods (resolve the handles, commit,
// record) and tir.schedule.* FFI entries.
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

// A loop nest copying dst[v] = src[v] over the whole shape, in block `name`.
Stmt CopyNest(const Buffer& src, const Buffer& dst, const std::string& name) {
  std::vector<Var> loops, iters;
  std::vector<IterVar> ivs;
  std::vector<PrimExpr> idx, values;
  std::vector<Range> point;
  for (size_t d = 0; d < src->shape.size(); ++d) {
    DataType t = src->shape[d].dtype();
    Var ax("ax" + std::to_string(d), t), v("v" + std::to_string(d), t);
    loops.push_back(ax);
    ivs.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), src->shape[d]), v, kDataPar));
    idx.push_back(v);
    values.push_back(ax);
    point.push_back(Range::FromMinExtent(v, IntImm(t, 1)));
  }
  Block block(Array<IterVar>(ivs), {BufferRegion(src, Array<Range>(point))}, {BufferRegion(dst, Array<Range>(point))},
              name, BufferStore(dst, BufferLoad(src, Array<PrimExpr>(idx)), Array<PrimExpr>(idx)));
  Stmt body = BlockRealize(Array<PrimExpr>(values), IntImm(DataType::Bool(), 1), block);
  for (size_t d = loops.size(); d-- > 0;) {
    body = For(loops[d], IntImm(loops[d].dtype(), 0), src->shape[d], ForKind::kSerial, body);
  }
  return body;
}

// Replaces buffer `from` by `to` in loads, stores and regions of one block.
class BufferSwapper : public StmtExprMutator {
 public:
  BufferSwapper(const Buffer& from, const Buffer& to, bool reads, bool writes)
      : from_(from), to_(to), reads_(reads), writes_(writes) {}
  Buffer VisitBufferUse(const Buffer& b) override { return b; }
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (reads_ && load->buffer.same_as(from_)) return BufferLoad(to_, load->indices, load->span);
    return e;
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (writes_ && store->buffer.same_as(from_)) return BufferStore(to_, store->value, store->indices, store->span);
    return s;
  }
  // Nested blocks' declared regions follow their bodies.
  Stmt VisitStmt_(const BlockNode* op) override {
    Block b = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    auto* n = b.CopyOnWrite();
    if (reads_) n->reads = Swap(n->reads);
    if (writes_) n->writes = Swap(n->writes);
    return b;
  }
  Array<BufferRegion> Swap(const Array<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (BufferRegion r : regions) out.push_back(r->buffer.same_as(from_) ? BufferRegion(to_, r->region) : r);
    return Array<BufferRegion>(out);
  }

 private:
  Buffer from_, to_;
  bool reads_, writes_;
};

// Inserts `stmt` before (or after) the top-level statement of `scope`'s body that contains `target`.
Stmt InsertBeside(const BlockNode* scope, const Object* target, const Stmt& stmt, bool after) {
  std::vector<Stmt> items;
  if (const auto* seq = scope->body.as<SeqStmtNode>()) {
    for (Stmt s : seq->seq) items.push_back(s);
  } else {
    items.push_back(scope->body);
  }
  std::vector<Stmt> out;
  bool placed = false;
  for (const Stmt& s : items) {
    bool contains = s.get() == target;
    if (!contains) contains = ContainsStmt(s, target);
    if (contains && !placed && !after) out.push_back(stmt);
    out.push_back(s);
    if (contains && !placed && after) out.push_back(stmt);
    placed = placed || contains;
  }
  return SeqStmt::Flatten(out);
}

// Index of the top-level statement of `scope` that contains `node`.
size_t TopLevelPosition(const BlockNode* scope, const Object* node) {
  std::vector<Stmt> top;
  if (const auto* seq = scope->body.as<SeqStmtNode>()) {
    for (Stmt s : seq->seq) top.push_back(s);
  } else {
    top.push_back(scope->body);
  }
  for (size_t i = 0; i < top.size(); ++i) {
    bool found = top[i].get() == node;
    if (!found) found = ContainsStmt(top[i], node);
    if (found) return i;
  }
  return top.size();
}

PrimFunc AddAllocAndPlace(const PrimFunc& func, const BlockLocation& loc, const Buffer& cache, const Stmt& nest,
                          bool after, const Block& new_block) {
  PrimFunc out = ReplaceInFunc(func, loc.block, new_block);
  auto updated = FindBlock(out, new_block->name_hint);
  const BlockNode* scope = updated->scope;
  Block s = GetRef<Block>(scope);
  auto* n = s.CopyOnWrite();
  n->body = InsertBeside(scope, updated->realize, nest, after);
  n->alloc_buffers.push_back(cache);
  return ReplaceInFunc(out, scope, s);
}

// A block of `consumers` that reads `buf`, in the scope of `loc`; throws otherwise.
void CheckConsumers(const char* prim, const PrimFunc& func, const BlockLocation& loc, const Buffer& buf,
                    const std::vector<BlockLocation>& consumers) {
  for (const BlockLocation& c : consumers) {
    if (c.scope != loc.scope) {
      ThrowScheduleError(prim, "consumer block \"" + c.block->name_hint + "\" is not in the same scope as block \"" +
                                   loc.block->name_hint + "\"", func, {c.block});
    }
    bool reads = false;
    for (BufferRegion r : c.block->reads) reads |= r->buffer.same_as(buf);
    if (!reads) {
      ThrowScheduleError(prim, "consumer block \"" + c.block->name_hint + "\" does not read " + buf->name, func,
                         {c.block});
    }
  }
}

Block SwapReads(const BlockNode* block, const Buffer& from, const Buffer& to) {
  BufferSwapper swap(from, to, /*reads=*/true, /*writes=*/false);
  Block b = GetRef<Block>(block);
  auto* n = b.CopyOnWrite();
  n->body = swap.VisitStmt(block->body);
  if (block->init) n->init = swap.VisitStmt(*block->init);
  n->reads = swap.Swap(block->reads);
  return b;
}

}  // namespace

PrimFunc CacheRead(const PrimFunc& func, const BlockLocation& loc, int read_index, const std::string& scope,
                   std::string* new_block, const std::vector<BlockLocation>& consumer_blocks) {
  if (read_index < 0 || read_index >= static_cast<int>(loc.block->reads.size())) {
    ThrowScheduleError("cache_read", "block \"" + loc.block->name_hint + "\" has " +
                                         std::to_string(loc.block->reads.size()) + " read buffers; index " +
                                         std::to_string(read_index) + " is out of range",
                       func, {loc.block});
  }
  Buffer buf = loc.block->reads[read_index]->buffer;
  // As TVM: the buffer has at most one writer in the scope.
  {
    std::vector<const BlockNode*> writers;
    for (const BlockLocation& other : CollectBlocks(func)) {
      if (other.scope != loc.scope) continue;
      for (BufferRegion w : other.block->writes)
        if (w->buffer.same_as(buf)) writers.push_back(other.block);
    }
    if (writers.size() > 1) {
      ThrowScheduleError("cache_read", "buffer " + buf->name + " has more than one producer in its scope (blocks \"" +
                                           writers[0]->name_hint + "\" and \"" + writers[1]->name_hint +
                                           "\"); cache_read needs at most one",
                         func, {writers[1]});
    }
  }
  CheckConsumers("cache_read", func, loc, buf, consumer_blocks);
  // The blocks reading the copy: the consumers given, or the block itself.
  std::vector<BlockLocation> readers = consumer_blocks.empty() ? std::vector<BlockLocation>{loc} : consumer_blocks;
  // The copy goes right before the first reader's top-level statement: no
  // write of the buffer may happen from there on (nor by a reader itself).
  size_t first = SIZE_MAX;
  const BlockLocation* first_reader = nullptr;
  for (const BlockLocation& r : readers) {
    for (BufferRegion w : r.block->writes) {
      if (w->buffer.same_as(buf)) {
        ThrowScheduleError("cache_read", "block \"" + r.block->name_hint + "\" also writes " + buf->name +
                                             "; a cached copy would go stale",
                           func, {r.block});
      }
    }
    size_t pos = TopLevelPosition(loc.scope, r.realize);
    if (pos < first) {
      first = pos;
      first_reader = &r;
    }
  }
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.scope != loc.scope) continue;
    bool is_reader = false;
    for (const BlockLocation& r : readers) is_reader |= r.block == other.block;
    if (is_reader) continue;
    for (BufferRegion w : other.block->writes) {
      if (w->buffer.same_as(buf) && TopLevelPosition(loc.scope, other.realize) >= first) {
        ThrowScheduleError("cache_read", "buffer " + buf->name + " is written by block \"" + other.block->name_hint +
                                             "\" at or after block \"" + first_reader->block->name_hint +
                                             "\"; a cached copy would go stale",
                           func, {other.block});
      }
    }
  }
  std::string name = CacheName(buf, scope);
  if (FindBlock(func, name)) ThrowScheduleError("cache_read", "a block named \"" + name + "\" already exists", func);
  Buffer cache = WithScope(buf, name, scope);
  PrimFunc out = func;
  std::string anchor = first_reader->block->name_hint;
  for (const BlockLocation& r : readers) {
    auto now = FindBlock(out, r.block->name_hint);
    out = ReplaceInFunc(out, now->block, SwapReads(now->block, buf, cache));
  }
  auto placed = FindBlock(out, anchor);
  *new_block = name;
  return AddAllocAndPlace(out, *placed, cache, CopyNest(buf, cache, name), /*after=*/false, GetRef<Block>(placed->block));
}

PrimFunc CacheWrite(const PrimFunc& func, const BlockLocation& loc, int write_index, const std::string& scope,
                    std::string* new_block, const std::vector<BlockLocation>& consumer_blocks) {
  if (write_index < 0 || write_index >= static_cast<int>(loc.block->writes.size())) {
    ThrowScheduleError("cache_write", "block \"" + loc.block->name_hint + "\" has " +
                                          std::to_string(loc.block->writes.size()) + " written buffers; index " +
                                          std::to_string(write_index) + " is out of range",
                       func, {loc.block});
  }
  Buffer buf = loc.block->writes[write_index]->buffer;
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.block == loc.block || other.scope != loc.scope) continue;
    for (BufferRegion w : other.block->writes) {
      if (w->buffer.same_as(buf)) {
        ThrowScheduleError("cache_write", "buffer " + buf->name + " is also written by block \"" + other.block->name_hint +
                                              "\"; cache_write needs the block to be its only writer",
                           func, {other.block});
      }
    }
  }
  // The write-back copies the whole buffer: inside a nested scope block
  // (a partition, a blockized tile) the block may write only part of it.
  const auto* root = func->body.as<BlockRealizeNode>();
  if (root != nullptr && loc.scope != root->block.get()) {
    ThrowScheduleError("cache_write", "block \"" + loc.block->name_hint + "\" is inside block \"" +
                                          loc.scope->name_hint + "\", not at the function's root; the write-back "
                                          "of the whole buffer " + buf->name + " there is not supported",
                       func, {loc.block});
  }
  // The write-back goes after the block's top-level statement: no block may
  // read the buffer inside that statement.
  size_t writer_pos = TopLevelPosition(loc.scope, loc.realize);
  for (const BlockLocation& other : CollectBlocks(func)) {
    if (other.scope != loc.scope || other.block == loc.block) continue;
    for (BufferRegion r : other.block->reads) {
      if (r->buffer.same_as(buf) && TopLevelPosition(loc.scope, other.realize) == writer_pos) {
        ThrowScheduleError("cache_write", "block \"" + other.block->name_hint + "\" reads " + buf->name +
                                              " inside the loop nest of block \"" + loc.block->name_hint +
                                              "\", before a write-back could happen",
                           func, {other.block});
      }
    }
  }
  CheckConsumers("cache_write", func, loc, buf, consumer_blocks);
  for (const BlockLocation& c : consumer_blocks) {
    if (c.block == loc.block || TopLevelPosition(loc.scope, c.realize) <= writer_pos) {
      ThrowScheduleError("cache_write", "consumer block \"" + c.block->name_hint + "\" does not come after block \"" +
                                            loc.block->name_hint + "\"; it cannot read the cache",
                         func, {c.block});
    }
  }
  std::string name = CacheName(buf, scope);
  if (FindBlock(func, name)) ThrowScheduleError("cache_write", "a block named \"" + name + "\" already exists", func);
  Buffer cache = WithScope(buf, name, scope);
  PrimFunc with_consumers = func;
  for (const BlockLocation& c : consumer_blocks) {
    auto now = FindBlock(with_consumers, c.block->name_hint);
    with_consumers = ReplaceInFunc(with_consumers, now->block, SwapReads(now->block, buf, cache));
  }
  BufferSwapper swap(buf, cache, /*reads=*/true, /*writes=*/true);
  Block b = GetRef<Block>(loc.block);
  {
    auto* n = b.CopyOnWrite();
    n->body = swap.VisitStmt(loc.block->body);
    if (loc.block->init) n->init = swap.VisitStmt(*loc.block->init);
    n->reads = swap.Swap(loc.block->reads);
    n->writes = swap.Swap(loc.block->writes);
  }
  *new_block = name;
  auto writer = FindBlock(with_consumers, loc.block->name_hint);
  return AddAllocAndPlace(with_consumers, *writer, cache, CopyNest(cache, buf, name), /*after=*/true, b);
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
  PrimFunc out = read ? tir::CacheRead(f, loc, index, scope, &name, consumer_locs)
                      : tir::CacheWrite(f, loc, index, scope, &name, consumer_locs);
  sch.Commit(func, out);
  BlockRV rv = BlockRV::Make();
  sch.self()->blocks[rv.get()] = {func, name};
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
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.SetScope").set_body_typed([](Schedule s, BlockRV b, int i, std::string scope) {
  s.SetScope(b, i, scope);
});

}  // namespace tir
}  // namespace tessera
