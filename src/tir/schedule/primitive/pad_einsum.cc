// pad_einsum (TVM's): pads the iteration space of an einsum block (every
// buffer accessed once, at iteration variables) to multiples of `padding`:
// each input indexed by a padded variable is first copied into a zero-padded
// buffer "<name>_pad", the block computes into a padded output "<name>_pad",
// and a block after it copies the valid part back. Its instruction kind
// ("PadEinsum"), the Schedule method and the FFI entry. TIR schedule layer.
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "tir/op.h"
#include "tir/schedule/analysis.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"

namespace tessera {
namespace tir {
using namespace inst_args;

namespace {

const char* kPrim = "pad_einsum";

// Loads and stores of the padded buffers go to their padded copies.
class PaddedBufferSwapper : public StmtExprMutator {
 public:
  explicit PaddedBufferSwapper(const std::unordered_map<const BufferNode*, Buffer>& m) : m_(m) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    auto it = m_.find(load->buffer.get());
    return it == m_.end() ? e : BufferLoad(it->second, load->indices, load->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    auto it = m_.find(store->buffer.get());
    return it == m_.end() ? s : BufferStore(it->second, store->value, store->indices, store->span);
  }

 private:
  const std::unordered_map<const BufferNode*, Buffer>& m_;
};

// The factors of a product tree.
void Factors(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (const auto* mul = e.as<MulNode>()) {
    Factors(mul->a, out);
    Factors(mul->b, out);
  } else {
    out->push_back(e);
  }
}

PrimExpr Zero(DataType t) {
  if (t.is_float()) return FloatImm(t, 0.0);
  return IntImm(t, 0);
}

// A loop nest copying between `buf` and `padded` (over the padded shape
// when reading, filling zeros where `valid` is exceeded; over the original
// shape when writing back).
Stmt CopyNest(const Buffer& buf, const Buffer& padded, const std::vector<PrimExpr>& valid, bool is_read) {
  std::vector<Var> loops;
  std::vector<IterVar> iters;
  std::vector<PrimExpr> idx, values;
  std::vector<Range> point;
  PrimExpr pred;
  for (size_t d = 0; d < buf->shape.size(); ++d) {
    PrimExpr extent = is_read ? padded->shape[d] : buf->shape[d];
    DataType t = extent.dtype();
    Var ax("i" + std::to_string(d), t), v("v" + std::to_string(d), t);
    loops.push_back(ax);
    iters.push_back(IterVar(Range::FromMinExtent(IntImm(t, 0), extent), v, kDataPar));
    idx.push_back(v);
    values.push_back(ax);
    point.push_back(Range::FromMinExtent(v, IntImm(t, 1)));
    if (is_read && valid[d].defined()) pred = pred.defined() ? (pred && (v < valid[d])) : (v < valid[d]);
  }
  Array<PrimExpr> at(idx);
  Stmt body;
  if (is_read) {
    PrimExpr load = BufferLoad(buf, at);
    PrimExpr value = pred.defined() ? if_then_else(pred, load, Zero(buf->dtype)) : load;
    body = BufferStore(padded, value, at);
  } else {
    body = BufferStore(buf, BufferLoad(padded, at), at);
  }
  BufferRegion src(is_read ? buf : padded, Array<Range>(point)), dst(is_read ? padded : buf, Array<Range>(point));
  Block block(Array<IterVar>(iters), {src}, {dst}, padded->name, body);
  Stmt nest = BlockRealize(Array<PrimExpr>(values), IntImm(DataType::Bool(), 1), block);
  for (size_t d = loops.size(); d-- > 0;) nest = For(loops[d], IntImm(loops[d].dtype(), 0), iters[d]->dom->extent, ForKind::kSerial, nest);
  return nest;
}

// Extends the loops whose variables bind padded iteration variables.
class LoopExtender : public StmtExprMutator {
 public:
  explicit LoopExtender(const std::unordered_map<const VarNode*, PrimExpr>& m) : m_(m) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto it = m_.find(op->loop_var.get());
    if (it == m_.end()) return s;
    For loop = Downcast<For>(s);
    loop.CopyOnWrite()->extent = it->second;
    return loop;
  }

 private:
  const std::unordered_map<const VarNode*, PrimExpr>& m_;
};

void PadEinsum(const Schedule& sch, const BlockRV& block_rv, const std::vector<int64_t>& padding) {
  BlockLocation loc = sch.LocateBlock(block_rv, kPrim);
  const std::string func = sch->blocks.at(block_rv.get()).func;
  PrimFunc f = sch.FuncOf(func);
  const BlockNode* b = loc.block;
  const std::string bname = "block \"" + b->name_hint + "\"";
  if (padding.size() != b->iter_vars.size()) {
    ThrowScheduleError(kPrim, "padding has " + std::to_string(padding.size()) + " entries but " + bname + " has " +
                                  std::to_string(b->iter_vars.size()) + " iteration variables",
                       f, {b});
  }
  for (int64_t p : padding) {
    if (p <= 0) ThrowScheduleError(kPrim, "padding entries must be positive, got " + std::to_string(p), f, {b});
  }
  // The einsum pattern: each buffer accessed once, at single points given
  // by iteration variables or constants.
  std::unordered_map<const VarNode*, size_t> iter_pos;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) iter_pos[b->iter_vars[i]->var.get()] = i;
  std::unordered_map<const BufferNode*, int> seen;
  auto check_einsum = [&](const Array<BufferRegion>& regions) {
    for (const BufferRegion& r : regions) {
      if (seen[r->buffer.get()]++) {
        ThrowScheduleError(kPrim, bname + " is not an einsum: it accesses buffer " + r->buffer->name + " twice", f, {b});
      }
      for (const Range& x : r->region) {
        const int64_t* one = AsConstInt(x->extent);
        const auto* v = x->min.as<VarNode>();
        if (one == nullptr || *one != 1 || (!x->min.as<IntImmNode>() && (v == nullptr || !iter_pos.count(v)))) {
          ThrowScheduleError(kPrim, bname + " is not an einsum: its access of " + r->buffer->name +
                                        " is not at iteration variables",
                             f, {b});
        }
      }
    }
  };
  check_einsum(b->reads);
  check_einsum(b->writes);
  // The block's loop nest holds only it (its loops may be extended, and the
  // padded output is copied back after the nest).
  const Object* top = loc.loops.empty() ? static_cast<const Object*>(loc.realize) : loc.loops[0];
  int blocks_in_nest = 0;
  PostOrderVisitBlockRealizes(GetRef<Stmt>(static_cast<const StmtNode*>(top)),
                              [&](const BlockRealizeNode*) { ++blocks_in_nest; });
  if (blocks_in_nest != 1) {
    ThrowScheduleError(kPrim, "the loop nest of " + bname + " holds other blocks", f, {top});
  }

  arith::Analyzer ana;
  std::unordered_map<const VarNode*, PrimExpr> padded_extent, loop_extent;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    PrimExpr ext = iv->dom->extent;
    PrimExpr p = IntImm(ext.dtype(), padding[i]);
    PrimExpr padded = ana.Simplify(floordiv(ext + p - IntImm(ext.dtype(), 1), p) * p);
    if (ana.CanProveEqual(padded, ext)) continue;
    const int64_t* m = AsConstInt(iv->dom->min);
    if (m == nullptr || *m != 0) {
      ThrowScheduleError(kPrim, "iteration variable " + iv->var->name_hint + " of " + bname + " does not start at 0",
                         f, {b});
    }
    padded_extent[iv->var.get()] = padded;
    const auto* lv = loc.realize->iter_values[i].as<VarNode>();
    const ForNode* loop = nullptr;
    for (const ForNode* l : loc.loops) loop = l->loop_var.get() == lv ? l : loop;
    if (loop == nullptr) continue;  // bound to an expression: the loops stay, the block runs its original range
    bool shared = UsesVar(loc.realize->predicate, lv);
    for (size_t k = 0; k < loc.realize->iter_values.size(); ++k) {
      shared = shared || (k != i && UsesVar(loc.realize->iter_values[k], lv));
    }
    const int64_t* lm = AsConstInt(loop->min);
    if (shared || lm == nullptr || *lm != 0 || !ana.CanProveEqual(loop->extent, ext)) {
      ThrowScheduleError(kPrim, "loop " + loop->loop_var->name_hint + " binding iteration variable " +
                                    iv->var->name_hint + " of " + bname +
                                    " cannot be extended: it must run from 0 over exactly that variable's range "
                                    "and bind nothing else",
                         f, {loop});
    }
    loop_extent[lv] = padded;
  }
  std::vector<Any> attr(padding.begin(), padding.end());
  if (padded_extent.empty()) {  // nothing to pad: the module stays (as in TVM), the step is recorded
    sch.Record("PadEinsum", {block_rv}, {Array<Any>(attr)}, {});
    return;
  }

  // A padded reduction variable adds products with a zero factor only when
  // the update is out += (product of loads, one of an input indexed by it).
  std::unordered_map<const BufferNode*, const BufferRegion*> read_of;
  for (const BufferRegion& r : b->reads) read_of[r->buffer.get()] = &r;
  for (const IterVar& iv : b->iter_vars) {
    if (iv->iter_type != kCommReduce || !padded_extent.count(iv->var.get())) continue;
    const auto* store = b->body.as<BufferStoreNode>();
    const auto* add = store ? store->value.as<AddNode>() : nullptr;
    bool ok = false;
    if (add != nullptr) {
      for (const PrimExpr& term : {add->a, add->b}) {
        std::vector<PrimExpr> factors;
        Factors(term, &factors);
        for (PrimExpr x : factors) {
          while (const auto* cast = x.as<CastNode>()) x = cast->value;  // a numeric cast of zero is zero
          const auto* load = x.as<BufferLoadNode>();
          if (load && read_of.count(load->buffer.get())) {
            for (const PrimExpr& i : load->indices) ok = ok || i.get() == iv->var.get();
          }
        }
      }
    }
    if (!ok) {
      ThrowScheduleError(kPrim, "padding reduction variable " + iv->var->name_hint + " of " + bname +
                                    " would change the result: the update must add a product with a factor loaded "
                                    "from an input indexed by it (zero-padded), as in C = C + A * B",
                         f, {b});
    }
  }

  // Padded copies of the buffers indexed by a padded variable.
  std::unordered_map<const BufferNode*, Buffer> swap;
  std::vector<Stmt> before, after;
  std::vector<Buffer> allocs;
  auto pad_buffer = [&](const BufferRegion& r, bool is_read) {
    bool needs = false;
    for (const Range& x : r->region) needs = needs || (x->min.as<VarNode>() && padded_extent.count(x->min.as<VarNode>()));
    if (!needs) return;
    const Buffer& buf = r->buffer;
    std::vector<PrimExpr> shape, valid;
    for (size_t d = 0; d < r->region.size(); ++d) {
      const auto* v = r->region[d]->min.as<VarNode>();
      if (v == nullptr) {
        ThrowScheduleError(kPrim, "buffer " + buf->name + " of " + bname + " is accessed at a constant index in dimension " +
                                      std::to_string(d) + "; it cannot be padded",
                           f, {b});
      }
      const IterVar& iv = b->iter_vars[iter_pos.at(v)];
      if (!is_read && !(ana.CanProveEqual(iv->dom->min, IntImm(iv->dom->min.dtype(), 0)) &&
                        ana.CanProveEqual(iv->dom->extent, buf->shape[d]))) {
        ThrowScheduleError(kPrim, bname + " writes only part of dimension " + std::to_string(d) + " of buffer " +
                                      buf->name + "; the padded result could not be copied back whole",
                           f, {b});
      }
      auto it = padded_extent.find(v);
      shape.push_back(it != padded_extent.end() ? it->second : buf->shape[d]);
      valid.push_back(it != padded_extent.end() ? iv->dom->extent : PrimExpr());
    }
    const std::string name = buf->name + "_pad";
    Buffer padded(Var(name, DataType::Handle()), buf->dtype, Array<PrimExpr>(shape), {}, IntImm(DataType::Int(32), 0),
                  name, buf->scope, buf->data_alignment, buf->offset_factor);
    int taken = 0;
    sch.IndexOf(func)->FindBlock(name, &taken);
    if (taken > 0) ThrowScheduleError(kPrim, "the copy block's name \"" + name + "\" is taken", f, {b});
    swap[buf.get()] = padded;
    allocs.push_back(padded);
    (is_read ? before : after).push_back(CopyNest(buf, padded, valid, is_read));
  };
  for (const BufferRegion& r : b->reads) pad_buffer(r, true);
  for (const BufferRegion& r : b->writes) pad_buffer(r, false);

  PaddedBufferSwapper swapper(swap);
  auto swap_regions = [&](const Array<BufferRegion>& regions) {
    std::vector<BufferRegion> out;
    for (const BufferRegion& r : regions) {
      auto it = swap.find(r->buffer.get());
      out.push_back(it == swap.end() ? r : BufferRegion(it->second, r->region));
    }
    return Array<BufferRegion>(out);
  };
  Block nb = GetRef<Block>(b);
  {
    auto* n = nb.CopyOnWrite();
    std::vector<IterVar> ivs;
    for (const IterVar& iv : b->iter_vars) {
      auto it = padded_extent.find(iv->var.get());
      ivs.push_back(it == padded_extent.end()
                        ? iv
                        : IterVar(Range::FromMinExtent(iv->dom->min, it->second), iv->var, iv->iter_type, iv->thread_tag));
    }
    n->iter_vars = Array<IterVar>(ivs);
    n->reads = swap_regions(b->reads);
    n->writes = swap_regions(b->writes);
    n->body = swapper.VisitStmt(b->body);
    if (b->init) n->init = swapper.VisitStmt(*b->init);
  }
  Stmt nest = ReplaceStmt(GetRef<Stmt>(static_cast<const StmtNode*>(top)), loc.realize,
                          BlockRealize(loc.realize->iter_values, loc.realize->predicate, nb, loc.realize->span));
  nest = LoopExtender(loop_extent).VisitStmt(nest);

  std::vector<Stmt> items, out;
  if (const auto* seq = loc.scope->body.as<SeqStmtNode>()) {
    for (const Stmt& s : seq->seq) items.push_back(s);
  } else {
    items.push_back(loc.scope->body);
  }
  for (const Stmt& s : items) {
    if (s.get() != top) {
      out.push_back(s);
      continue;
    }
    out.insert(out.end(), before.begin(), before.end());
    out.push_back(nest);
    out.insert(out.end(), after.begin(), after.end());
  }
  Block scope = GetRef<Block>(loc.scope);
  {
    auto* n = scope.CopyOnWrite();
    n->body = SeqStmt::Flatten(out);
    for (const Buffer& x : allocs) n->alloc_buffers.push_back(x);
  }
  sch.Commit(func, ReplaceInFunc(f, loc.scope, scope));
  sch.Record("PadEinsum", {block_rv}, {Array<Any>(attr)}, {});
}

std::vector<int64_t> AsInts(const Any& list) {
  std::vector<int64_t> out;
  for (const Any& x : list.cast<Array<Any>>().to_vector()) {
    const auto* imm = x.as<IntImmNode>();
    out.push_back(imm ? imm->value : x.cast<int64_t>());
  }
  return out;
}

}  // namespace

TESSERA_REGISTER_INST_KIND("PadEinsum")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      PadEinsum(sch, in.at_any(0).cast<BlockRV>(), AsInts(attrs.at_any(0)));
      return Array<Any>();
    })
    .set_as_python(PythonCall("pad_einsum", {"block"}, {"padding"}));

TESSERA_REGISTER_SCHEDULE_API("tir.schedule.PadEinsum").set_body_typed([](Schedule s, BlockRV b, Array<Any> padding) {
  PadEinsum(s, b, AsInts(Any(padding)));
});

}  // namespace tir
}  // namespace tessera
