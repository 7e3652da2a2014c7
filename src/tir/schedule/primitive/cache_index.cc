// cache_index (TVM's): precomputes index expressions of a block into
// buffers. The candidates are the largest pure sub-expressions of the
// block's stores (no loads, only math intrinsics, more than one node) that
// depend on the block's iteration variables only; with a threshold, a
// candidate seen fewer times gives its count to its own largest pure parts
// (TVM's common sub-expression rule). Each chosen expression gets a buffer
// "index_var_<k>" over the iteration variables it uses and a block
// "index_<k>" filling it, placed before the block; the block then loads it.
// Followed by the instruction kind, Schedule method and FFI entry.
#include <algorithm>
#include <unordered_set>

#include "arith/analyzer.h"
#include "ir/structural_equal.h"
#include "tir/op.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
namespace {

// Number of expression nodes (TVM's expression complexity).
size_t Complexity(const PrimExpr& e) {
  size_t n = 0;
  PostOrderVisit(e, [&](const ObjectRef& x) { n += x.as<PrimExprNode>() != nullptr; });
  return n;
}

// Math intrinsics without side effects or memory reads.
bool PureCall(const CallNode* call) {
  static const std::unordered_set<std::string> kPure = {
      "tir.floor", "tir.ceil",  "tir.round", "tir.nearbyint", "tir.trunc", "tir.exp",   "tir.exp2",
      "tir.log",   "tir.log2",  "tir.sqrt",  "tir.rsqrt",     "tir.fabs",  "tir.pow",   "tir.sin",
      "tir.cos",   "tir.tanh",  "tir.sigmoid", "tir.erf",     "tir.if_then_else", "tir.shift_left",
      "tir.shift_right", "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor", "tir.bitwise_not"};
  const auto* op = call->op.as<OpNode>();
  return op != nullptr && kPure.count(op->name) > 0;
}

class Candidates {
 public:
  explicit Candidates(const std::unordered_set<const VarNode*>& iter_vars) : iter_vars_(iter_vars) {}

  bool Eligible(const PrimExpr& e) const {
    if (e.as<RampNode>() || e.as<BroadcastNode>() || Complexity(e) <= 1) return false;
    bool ok = true, uses_iter_var = false;
    PostOrderVisit(e, [&](const ObjectRef& x) {
      if (const auto* v = x.as<VarNode>(); v && iter_vars_.count(v)) uses_iter_var = true;
      if (x.as<BufferLoadNode>()) ok = false;
      if (const auto* call = x.as<CallNode>(); call && !PureCall(call)) ok = false;
      if (const auto* v = x.as<VarNode>(); v && !iter_vars_.count(v)) ok = false;
      if (x.as<LetNode>()) ok = false;
    });
    return ok && uses_iter_var;
  }

  // The largest eligible sub-expressions of `e` (itself when eligible), in
  // visiting order, with repetitions.
  void Maximal(const PrimExpr& e, std::vector<PrimExpr>* out) const {
    if (e.as<IntImmNode>() || e.as<FloatImmNode>() || e.as<StringImmNode>() || e.as<VarNode>()) return;
    if (Eligible(e)) {
      out->push_back(e);
      return;
    }
    for (const PrimExpr& c : Children(e)) Maximal(c, out);
  }

  // The direct sub-expressions of `e`.
  static std::vector<PrimExpr> Children(const PrimExpr& e) {
    struct Direct : ExprVisitor {
      int depth = 0;
      std::vector<PrimExpr> out;
      using ExprVisitor::VisitExpr;
      void VisitExpr(const PrimExpr& x) override {
        if (depth == 1) {
          out.push_back(x);
          return;
        }
        ++depth;
        ExprVisitor::VisitExpr(x);
        --depth;
      }
    } d;
    d.VisitExpr(e);
    return d.out;
  }

 private:
  const std::unordered_set<const VarNode*>& iter_vars_;
};

struct Counted {
  PrimExpr expr;
  size_t count;
};

// Adds `e` to the table (decreasing complexity, first come first), or raises its count.
void AddCount(std::vector<Counted>* table, const PrimExpr& e, size_t n) {
  for (Counted& c : *table) {
    if (StructuralEqual(c.expr, e)) {
      c.count += n;
      return;
    }
  }
  size_t size = Complexity(e);
  auto at = std::find_if(table->begin(), table->end(), [&](const Counted& c) { return Complexity(c.expr) < size; });
  table->insert(at, Counted{e, n});
}

// Replaces the sub-expressions equal to `target` by `by` (outermost first).
class ReplaceExpr : public StmtExprMutator {
 public:
  ReplaceExpr(PrimExpr target, PrimExpr by) : target_(std::move(target)), by_(std::move(by)) {}
  using StmtExprMutator::VisitExpr;
  PrimExpr VisitExpr(const PrimExpr& e) override {
    if (e.dtype() == target_.dtype() && StructuralEqual(e, target_)) return by_;
    return StmtExprMutator::VisitExpr(e);
  }

 private:
  PrimExpr target_, by_;
};

std::string UniqueName(const std::unordered_set<std::string>& taken, const std::string& name) {
  std::string out = name;
  for (int k = 1; taken.count(out); ++k) out = name + "_" + std::to_string(k);
  return out;
}

}  // namespace

PrimFunc CacheIndex(const PrimFunc& func, const BlockLocation& loc, const std::string& scope, int cse_thresh,
                    std::vector<const BlockNode*>* new_blocks) {
  const char* prim = "cache_index";
  if (cse_thresh < 0) {
    ThrowScheduleError(prim, "cse_thresh must not be negative, got " + std::to_string(cse_thresh), func, {loc.block});
  }
  const BlockNode* block = loc.block;
  std::unordered_set<const VarNode*> iter_vars;
  for (const IterVar& iv : block->iter_vars) iter_vars.insert(iv->var.get());
  Candidates cands(iter_vars);
  // The stores of the block itself (not of blocks nested in it).
  std::vector<const BufferStoreNode*> stores;
  std::function<void(const Stmt&)> collect = [&](const Stmt& s) {
    PostOrderVisit(s, [&](const ObjectRef& x) {
      if (const auto* st = x.as<BufferStoreNode>()) stores.push_back(st);
    });
  };
  bool nested = false;
  PostOrderVisitBlockRealizes(block->body, [&](const BlockRealizeNode*) { nested = true; });
  if (nested) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" holds nested blocks; cache_index needs a leaf block",
                       func, {block});
  }
  collect(block->body);
  if (block->init) collect(*block->init);
  std::vector<PrimExpr> chosen;
  for (const BufferStoreNode* st : stores) {
    std::vector<PrimExpr> found;
    cands.Maximal(st->value, &found);
    for (const PrimExpr& i : st->indices) cands.Maximal(i, &found);
    std::vector<Counted> table;
    for (const PrimExpr& e : found) AddCount(&table, e, 1);
    // A candidate seen fewer than cse_thresh times passes its count to its
    // largest eligible parts (which come later: the table is sorted by size).
    for (size_t i = 0; i < table.size(); ++i) {
      if (table[i].count >= static_cast<size_t>(cse_thresh)) continue;
      std::vector<PrimExpr> parts;
      for (const PrimExpr& c : Candidates::Children(table[i].expr)) cands.Maximal(c, &parts);
      std::vector<PrimExpr> distinct;
      for (const PrimExpr& p : parts) {
        bool seen = false;
        for (const PrimExpr& d : distinct) seen = seen || StructuralEqual(d, p);
        if (!seen) distinct.push_back(p);
      }
      size_t n = table[i].count;
      for (const PrimExpr& p : distinct) AddCount(&table, p, n);
    }
    // In the order they occur in the stored value (children first), then by size.
    PostOrderVisit(st->value, [&](const ObjectRef& x) {
      const auto* node = x.as<PrimExprNode>();
      if (!node) return;
      PrimExpr e = GetRef<PrimExpr>(node);
      for (const Counted& c : table) {
        if (c.count < static_cast<size_t>(cse_thresh) || !StructuralEqual(c.expr, e)) continue;
        bool have = false;
        for (const PrimExpr& x2 : chosen) have = have || StructuralEqual(x2, c.expr);
        if (!have) chosen.push_back(c.expr);
      }
    });
  }
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const PrimExpr& a, const PrimExpr& b) { return Complexity(a) > Complexity(b); });
  if (chosen.empty()) {
    ThrowScheduleError(prim, "block \"" + block->name_hint + "\" has no index expression to precompute (a pure "
                             "expression of its iteration variables with more than one node" +
                                 (cse_thresh > 1 ? " that occurs at least " + std::to_string(cse_thresh) + " times"
                                                 : std::string()) +
                                 ")",
                       func, {block});
  }
  // Names: buffers of the function and blocks stay distinct from existing ones.
  std::unordered_set<std::string> buffer_names, block_names;
  for (const auto& kv : func->buffer_map.raw()) buffer_names.insert(kv.second.cast<Buffer>()->name);
  PostOrderVisit(func->body, [&](const ObjectRef& x) {
    if (const auto* b = x.as<BlockNode>()) {
      block_names.insert(b->name_hint);
      for (const Buffer& a : b->alloc_buffers) buffer_names.insert(a->name);
      for (const MatchBufferRegion& m : b->match_buffers) buffer_names.insert(m->buffer->name);
    }
  });
  std::vector<Stmt> stages;
  std::vector<Buffer> buffers;
  std::vector<Array<PrimExpr>> loads;
  for (size_t k = 0; k < chosen.size(); ++k) {
    const PrimExpr& e = chosen[k];
    // The block's iteration variables it uses, in the order they occur.
    std::vector<IterVar> used;
    PostOrderVisit(e, [&](const ObjectRef& x) {
      const auto* v = x.as<VarNode>();
      if (!v) return;
      for (const IterVar& iv : block->iter_vars) {
        if (iv->var.get() != v) continue;
        bool have = false;
        for (const IterVar& u : used) have = have || u.get() == iv.get();
        if (!have) used.push_back(iv);
      }
    });
    std::string buf_name = UniqueName(buffer_names, "index_var_" + std::to_string(k));
    buffer_names.insert(buf_name);
    std::string blk_name = UniqueName(block_names, "index_" + std::to_string(k));
    block_names.insert(blk_name);
    arith::Analyzer ana;
    std::vector<PrimExpr> shape, cache_idx, values;
    std::vector<IterVar> ivs;
    std::vector<Range> region;
    std::vector<Var> loops;
    Map<Var, PrimExpr> rename;
    for (size_t d = 0; d < used.size(); ++d) {
      const IterVar& iv = used[d];
      const Range& dom = iv->dom;
      DataType t = iv->var.dtype();
      shape.push_back(ana.Simplify(add(dom->min, dom->extent)));
      Var ax("ax" + std::to_string(d), t);
      Var v("v" + std::to_string(d), t);
      loops.push_back(ax);
      auto min = AsConstInt(dom->min);
      values.push_back(min && *min == 0 ? PrimExpr(ax) : add(dom->min, ax));
      ivs.push_back(IterVar(dom, v, kDataPar));
      cache_idx.push_back(v);
      region.push_back(Range::FromMinExtent(v, IntImm(t, 1)));
      rename.Set(iv->var, v);
    }
    std::vector<PrimExpr> load_idx;
    for (const IterVar& u : used) load_idx.push_back(u->var);
    loads.push_back(Array<PrimExpr>(load_idx));
    // As TVM: a compact buffer at offset 0, strides [1] when it has one
    // dimension (TVM gives [1] to every rank, which Tessera's buffers refuse:
    // several dimensions get the default compact strides).
    Array<PrimExpr> strides;
    if (shape.size() == 1) strides = Array<PrimExpr>{IntImm(DataType::Int(32), 1)};
    Buffer buf(Var(buf_name, DataType::Handle()), e.dtype(), Array<PrimExpr>(shape), strides,
               IntImm(DataType::Int(32), 0), buf_name, scope);
    buffers.push_back(buf);
    Block b(Array<IterVar>(ivs), {}, {BufferRegion(buf, Array<Range>(region))}, blk_name,
            BufferStore(buf, Substitute(e, rename), Array<PrimExpr>(cache_idx)));
    Stmt body = BlockRealize(Array<PrimExpr>(values), IntImm(DataType::Bool(), 1), b);
    for (size_t d = loops.size(); d-- > 0;) {
      body = For(loops[d], IntImm(loops[d].dtype(), 0), used[d]->dom->extent, ForKind::kSerial, body);
    }
    stages.push_back(body);
  }
  // The block loads the buffers instead, and declares reading them (TVM
  // leaves its reads as they were, so later primitives took it for no
  // reader of them: a cache_write of an index block put its write-back
  // after the block).
  Stmt new_body = block->body;
  std::optional<Stmt> new_init = block->init;
  for (size_t k = 0; k < chosen.size(); ++k) {
    ReplaceExpr replace(chosen[k], BufferLoad(buffers[k], loads[k]));
    new_body = replace.VisitStmt(new_body);
    if (new_init) new_init = replace.VisitStmt(*new_init);
  }
  Block target = GetRef<Block>(block);
  {
    auto* n = target.CopyOnWrite();
    n->body = new_body;
    n->init = new_init;
    std::vector<BufferRegion> reads(block->reads.begin(), block->reads.end());
    for (size_t k = 0; k < buffers.size(); ++k) {
      std::vector<Range> point;
      for (const PrimExpr& i : loads[k]) point.push_back(Range::FromMinExtent(i, IntImm(i.dtype(), 1)));
      reads.push_back(BufferRegion(buffers[k], Array<Range>(point)));
    }
    n->reads = Array<BufferRegion>(reads);
  }
  PrimFunc out = ReplaceInFunc(func, block, target);
  // The stages go before the statement of the scope that holds the block.
  Block scope_new;
  for (const BlockLocation& b : CollectBlocks(out)) {
    if (b.block == target.get()) scope_new = GetRef<Block>(b.scope);
  }
  if (!scope_new.defined()) {  // the scope is the root block
    const auto* root = out->body.as<BlockRealizeNode>();
    scope_new = root->block;
  }
  const Stmt& sbody = scope_new->body;
  std::vector<Stmt> items;
  if (const auto* seq = sbody.as<SeqStmtNode>()) {
    for (Stmt s : seq->seq) items.push_back(s);
  } else {
    items.push_back(sbody);
  }
  size_t pos = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    bool holds = false;
    PostOrderVisitBlockRealizes(items[i], [&](const BlockRealizeNode* r) { holds = holds || r->block.get() == target.get(); });
    if (holds) pos = i;
  }
  items.insert(items.begin() + pos, stages.begin(), stages.end());
  Block scope_out = scope_new;
  {
    auto* n = scope_out.CopyOnWrite();
    n->body = SeqStmt::Flatten(items);
    for (const Buffer& b : buffers) n->alloc_buffers.push_back(b);
  }
  out = ReplaceInFunc(out, scope_new.get(), scope_out);
  new_blocks->clear();
  for (const Stmt& s : stages) {
    PostOrderVisitBlockRealizes(s, [&](const BlockRealizeNode* r) { new_blocks->push_back(r->block.get()); });
  }
  return out;
}

// ---- instruction kind ------------------------------------------------------------
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("CacheIndex")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      return AsOutputs(sch.CacheIndex(in.at_any(0).cast<BlockRV>(), attrs.at_any(0).cast<std::string>(),
                                      attrs.at_any(1).cast<int>()));
    })
    .set_as_python(PythonCall("cache_index", {"block"}, {"storage_scope", "cse_thresh"}, /*returns_list=*/true));

// ---- Schedule method ---------------------------------------------------------------
Array<BlockRV> Schedule::CacheIndex(const BlockRV& block, const std::string& scope, int cse_thresh) const {
  BlockLocation loc = LocateBlock(block, "cache_index");
  const std::string func = get()->blocks.at(block.get()).func;
  std::vector<const BlockNode*> made;
  Commit(func, tir::CacheIndex(FuncOf(func), loc, scope, cse_thresh, &made));
  std::vector<BlockRV> out;
  for (const BlockNode* b : made) out.push_back(NewBlockRV(func, b));
  Array<BlockRV> result(out);
  Record("CacheIndex", {block}, {scope, static_cast<int64_t>(cse_thresh)}, AsOutputs(result));
  return result;
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.CacheIndex")
    .set_body_typed([](Schedule s, BlockRV b, std::string scope, int cse_thresh) {
      return s.CacheIndex(b, scope, cse_thresh);
    });

}  // namespace tir
}  // namespace tessera
