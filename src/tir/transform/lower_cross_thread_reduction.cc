// LowerCrossThreadReduction (see lower_cross_thread_reduction.h).
#include "tir/transform/lower_cross_thread_reduction.h"

#include <cmath>
#include <limits>
#include <unordered_set>
#include <vector>

#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/prim_func_pass.h"
#include "tir/transform/thread_allreduce_reducer.h"

namespace tessera {
namespace tir {
namespace {

using VarSet = std::unordered_set<const VarNode*>;

bool UsesAny(const PrimExpr& e, const VarSet& vars) {
  bool found = false;
  PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>(); v && vars.count(v)) found = true;
  });
  return found;
}

bool IsThreadIdxLoop(const ForNode* loop) {
  return loop->kind == ForKind::kThreadBinding && loop->thread_binding &&
         (*loop->thread_binding)->thread_tag.rfind("threadIdx.", 0) == 0;
}

Stmt OpaqueBlock(const std::string& name, Stmt body, PrimExpr predicate, Array<BufferRegion> reads,
                 Array<BufferRegion> writes, Array<Buffer> alloc = {}) {
  Block block({}, std::move(reads), std::move(writes), name, std::move(body), std::nullopt, std::move(alloc));
  return BlockRealize({}, std::move(predicate), block);
}

class CrossThreadReductionLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  // A reduction block over an enclosing threadIdx loop that Lower did not take (not a perfect nest from its
  // reduction loops down) would race: refused.
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    if (op->block->init) {
      VarSet reduce_vars;
      for (size_t i = 0; i < op->block->iter_vars.size(); ++i) {
        if (op->block->iter_vars[i]->iter_type != kCommReduce) continue;
        PostOrderVisit(op->iter_values[i], [&](const ObjectRef& n) {
          if (const auto* v = n.as<VarNode>()) reduce_vars.insert(v);
        });
      }
      for (const ForNode* loop : thread_loops_) {
        if (reduce_vars.count(loop->loop_var.get())) {
          Refuse(op->block, "its reduction loop " + loop->loop_var->name_hint + " is bound to " +
                                (*loop->thread_binding)->thread_tag +
                                " but other statements sit between the reduction loops and the block");
        }
      }
    }
    std::vector<const ForNode*> outer;
    outer.swap(thread_loops_);
    Stmt s = StmtExprMutator::VisitStmt_(op);
    thread_loops_.swap(outer);
    return s;
  }

  Stmt VisitStmt_(const ForNode* op) override {
    if (IsThreadIdxLoop(op)) {
      thread_loops_.push_back(op);
      Stmt s = VisitFor(op);
      thread_loops_.pop_back();
      return s;
    }
    return VisitFor(op);
  }

 private:
  std::vector<const ForNode*> thread_loops_;  // enclosing threadIdx loops since the enclosing block

  Stmt VisitFor(const ForNode* op) {
    // The perfect nest from `op` down to a block.
    std::vector<const ForNode*> chain;
    Stmt s = GetRef<Stmt>(op);
    while (const auto* loop = s.as<ForNode>()) {
      chain.push_back(loop);
      s = loop->body;
    }
    const auto* realize = s.as<BlockRealizeNode>();
    if (realize == nullptr || !realize->block->init) return StmtExprMutator::VisitStmt_(op);
    const Block& block = realize->block;
    VarSet reduce_loop_vars, spatial_loop_vars;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      PostOrderVisit(realize->iter_values[i], [&](const ObjectRef& n) {
        if (const auto* v = n.as<VarNode>()) {
          (block->iter_vars[i]->iter_type == kCommReduce ? reduce_loop_vars : spatial_loop_vars).insert(v);
        }
      });
    }
    if (!reduce_loop_vars.count(op->loop_var.get())) return StmtExprMutator::VisitStmt_(op);
    bool thread_bound = false;
    for (const ForNode* loop : chain) thread_bound |= IsThreadIdxLoop(loop) && reduce_loop_vars.count(loop->loop_var.get());
    if (!thread_bound) return StmtExprMutator::VisitStmt_(op);
    return Lower(chain, realize, reduce_loop_vars, spatial_loop_vars);
  }

  [[noreturn]] static void Refuse(const Block& block, const std::string& why) {
    TESSERA_THROW(NotImplementedError) << "cross-thread reduction of block " << block->name_hint << ": " << why;
  }

  Stmt Lower(const std::vector<const ForNode*>& chain, const BlockRealizeNode* realize, const VarSet& reduce_vars,
             const VarSet& spatial_vars) {
    const Block& block = realize->block;
    // [threadIdx-bound reduction loops][serial reduction loops] block
    std::vector<const ForNode*> thread_loops, inner_loops;
    for (const ForNode* loop : chain) {
      const VarNode* v = loop->loop_var.get();
      if (spatial_vars.count(v) || !reduce_vars.count(v)) {
        Refuse(block, "loop " + v->name_hint + " is not a reduction loop but sits inside the reduction loops");
      }
      if (IsThreadIdxLoop(loop)) {
        if (!inner_loops.empty()) {
          Refuse(block, "the serial reduction loop " + inner_loops.back()->loop_var->name_hint +
                            " encloses the thread-bound one " + v->name_hint);
        }
        thread_loops.push_back(loop);
      } else {
        inner_loops.push_back(loop);
      }
    }
    if (!block->alloc_buffers.empty() || !block->match_buffers.empty()) {
      Refuse(block, "the block allocates or matches buffers");
    }
    Map<Var, PrimExpr> iter_map;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) iter_map.Set(block->iter_vars[i]->var, realize->iter_values[i]);
    std::optional<ReductionUpdate> update = MatchReductionUpdate(*block->init, block->body);
    if (!update) {
      Refuse(block, "its update is not `B[i] = B[i] op value` (op: +, *, max, min) with a `B[i] = init` init");
    }
    const Buffer& out = update->buffer;
    DataType dtype = out->dtype;
    Array<PrimExpr> out_indices;
    for (const PrimExpr& e : update->indices) out_indices.push_back(Substitute(e, iter_map));
    PrimExpr value = Substitute(update->value, iter_map);
    PrimExpr init = Substitute(update->init, iter_map);
    Array<BufferRegion> reads;
    for (const BufferRegion& r : block->reads) {
      if (!r->buffer.same_as(out)) reads.push_back(r);
    }
    Array<BufferRegion> value_reads;
    for (const BufferRegion& r : reads) {
      Array<Range> region;
      for (const Range& rg : r->region) region.push_back(Range::FromMinExtent(Substitute(rg->min, iter_map), Substitute(rg->extent, iter_map)));
      value_reads.push_back(BufferRegion(r->buffer, region));
    }

    const std::string name = block->name_hint;
    Buffer cross = decl_buffer({IntImm(DataType::Int(32), 1)}, dtype, "cross_thread_" + out->name, "local");
    Array<PrimExpr> zero = {IntImm(DataType::Int(32), 0)};
    Array<Buffer> allocs = {cross};
    std::vector<Stmt> seq;
    PrimExpr source = value;
    PrimExpr cond = realize->predicate;
    if (!inner_loops.empty()) {
      Buffer in_thread = decl_buffer({IntImm(DataType::Int(32), 1)}, dtype, "in_thread_" + out->name, "local");
      allocs.push_back(in_thread);
      seq.push_back(OpaqueBlock(name + "_in_thread_init", BufferStore(in_thread, update->identity, zero),
                                IntImm(DataType::Bool(), 1), {}, {BufferRegion::FullRegion(in_thread)}));
      PrimExpr acc = update->Combine(BufferLoad(in_thread, zero), value);
      Array<BufferRegion> in_reads = value_reads;
      in_reads.push_back(BufferRegion::FullRegion(in_thread));
      Stmt body = OpaqueBlock(name + "_in_thread", BufferStore(in_thread, acc, zero), realize->predicate, in_reads,
                              {BufferRegion::FullRegion(in_thread)});
      for (auto it = inner_loops.rbegin(); it != inner_loops.rend(); ++it) {
        const ForNode* loop = *it;
        body = For(loop->loop_var, loop->min, loop->extent, loop->kind, body, loop->thread_binding, loop->annotations);
      }
      seq.push_back(body);
      source = BufferLoad(in_thread, zero);
      cond = IntImm(DataType::Bool(), 1);
      value_reads = {BufferRegion::FullRegion(in_thread)};
    }
    // The allreduce: every thread of the reduction takes part (the predicate is its condition).
    Array<PrimExpr> args = {IntImm(DataType::UInt(32), 1), source, cond, cross->data};
    for (const ForNode* loop : thread_loops) args.push_back(loop->loop_var);
    Stmt allreduce = AttrStmt(update->reducer, "reduce_scope", IntImm(DataType::Int(32), 0),
                              Evaluate(Call(DataType::Handle(), Op::Get("tir.tvm_thread_allreduce"), args)));
    seq.push_back(OpaqueBlock(name + "_cross_thread", allreduce, IntImm(DataType::Bool(), 1), value_reads,
                              {BufferRegion::FullRegion(cross)}));
    // The write-back: the first thread, where the original predicate's clauses over spatial loops hold.
    VarSet dropped;
    for (const ForNode* loop : chain) dropped.insert(loop->loop_var.get());
    PrimExpr wb_pred = IntImm(DataType::Bool(), 1);
    for (const ForNode* loop : thread_loops) wb_pred = logical_and(wb_pred, equal(loop->loop_var, loop->min));
    for (const PrimExpr& c : SplitConjuncts(realize->predicate)) {
      if (!UsesAny(c, dropped)) wb_pred = logical_and(wb_pred, c);
    }
    PrimExpr result = BufferLoad(cross, zero);
    if (!update->InitIsIdentity()) result = update->Combine(init, result);
    Array<Range> out_region;
    for (const PrimExpr& i : out_indices) out_region.push_back(Range::FromMinExtent(i, IntImm(i.dtype(), 1)));
    seq.push_back(OpaqueBlock(name + "_write_back", BufferStore(out, result, out_indices), wb_pred,
                              {BufferRegion::FullRegion(cross)}, {BufferRegion(out, out_region)}));
    Stmt body = OpaqueBlock(name + "_cross_thread_scope", SeqStmt::Flatten(seq), IntImm(DataType::Bool(), 1), {}, {},
                            allocs);
    for (auto it = thread_loops.rbegin(); it != thread_loops.rend(); ++it) {
      const ForNode* loop = *it;
      body = For(loop->loop_var, loop->min, loop->extent, loop->kind, body, loop->thread_binding, loop->annotations);
    }
    return body;
  }
};

}  // namespace

PrimFunc LowerCrossThreadReduction(PrimFunc func) {
  Stmt body = CrossThreadReductionLowerer().VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass LowerCrossThreadReduction() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::LowerCrossThreadReduction(f); }, 0,
                            "LowerCrossThreadReduction");
}
TESSERA_REGISTER_PASS("tir.transform.LowerCrossThreadReduction", LowerCrossThreadReduction);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
