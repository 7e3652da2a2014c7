// LowerInitBlock (see lower_init_block.h).
#include "tir/transform/lower_init_block.h"

#include "tir/transform/prim_func_pass.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

using VarSet = std::unordered_set<const VarNode*>;

void CollectVars(const PrimExpr& e, VarSet* out) {
  PostOrderVisit(e, [out](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>()) out->insert(v);
  });
}

bool UsesAny(const PrimExpr& e, const VarSet& vars) {
  VarSet used;
  CollectVars(e, &used);
  for (const VarNode* v : used) {
    if (vars.count(v)) return true;
  }
  return false;
}

class InitBlockLowerer : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    loops_.push_back(op);
    Stmt s = StmtExprMutator::VisitStmt_(op);
    loops_.pop_back();
    auto it = empty_inits_.find(op);
    if (it == empty_inits_.end()) return s;
    std::vector<Stmt> seq = std::move(it->second);
    empty_inits_.erase(it);
    seq.push_back(s);
    return SeqStmt::Flatten(seq);
  }

  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    HoistEmptyReductionInit(op);
    std::vector<const ForNode*> outer;
    outer.swap(loops_);  // loops inside the block start a new scope
    Stmt s = StmtExprMutator::VisitStmt_(op);
    loops_.swap(outer);
    return s;
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    Block block = Downcast<Block>(StmtExprMutator::VisitStmt_(op));
    if (!block->init) return block;
    PrimExpr cond = IntImm(DataType::Bool(), 1);
    for (IterVar iv : block->iter_vars) {
      if (iv->iter_type == kCommReduce) cond = logical_and(cond, equal(iv->var, iv->dom->min));
    }
    Stmt init = *block->init;
    Stmt guarded = IsConstInt(cond, 1) ? init : Stmt(IfThenElse(cond, init));
    auto* n = block.CopyOnWrite();
    n->body = SeqStmt::Flatten({guarded, n->body});
    n->init = std::nullopt;
    return block;
  }

 private:
  // The init above runs at the first reduction iteration, so it never runs
  // when a reduction domain is empty (sum over an axis of extent 0 would
  // leave the output uninitialised). For a reduction whose domain may be
  // empty, a copy of the init over the block's spatial loops is put before
  // its outermost reduction loop, guarded by "some reduction extent <= 0".
  // Nothing changes when every reduction extent is provably positive.
  void HoistEmptyReductionInit(const BlockRealizeNode* realize) {
    const Block& block = realize->block;
    if (!block->init) return;
    arith::Analyzer ana;
    PrimExpr empty = IntImm(DataType::Bool(), 0);
    bool may_be_empty = false;
    VarSet spatial_vars, reduce_vars;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const IterVar& iv = block->iter_vars[i];
      if (iv->iter_type == kCommReduce) {
        CollectVars(realize->iter_values[i], &reduce_vars);
        if (!ana.CanProve(greater(iv->dom->extent, MakeConst(iv->dom->extent.dtype(), 0)))) {
          empty = logical_or(empty, less_equal(iv->dom->extent, MakeConst(iv->dom->extent.dtype(), 0)));
          may_be_empty = true;
        }
      } else if (iv->iter_type == kDataPar) {
        CollectVars(realize->iter_values[i], &spatial_vars);
      } else {
        return;  // opaque iterators: no spatial/reduction split to copy
      }
    }
    if (!may_be_empty || !block->alloc_buffers.empty() || !block->match_buffers.empty()) return;
    bool init_has_scopes = false;  // loops or blocks would be defined twice by a copy
    PostOrderVisit(*block->init, [&](const ObjectRef& n) {
      init_has_scopes = init_has_scopes || n.as<ForNode>() != nullptr || n.as<BlockNode>() != nullptr;
    });
    if (init_has_scopes) return;
    size_t first = 0;
    while (first < loops_.size() && !reduce_vars.count(loops_[first]->loop_var.get())) ++first;
    if (first == loops_.size()) return;  // no loop iterates the reduction
    // Loops from the outermost reduction loop inwards: spatial ones are
    // copied (fresh variables), reduction ones dropped.
    Map<Var, PrimExpr> loop_map;
    VarSet dropped;
    std::vector<const ForNode*> kept;
    for (size_t i = first; i < loops_.size(); ++i) {
      const ForNode* loop = loops_[i];
      const VarNode* v = loop->loop_var.get();
      const bool is_spatial = spatial_vars.count(v) > 0;
      if (is_spatial && reduce_vars.count(v)) return;  // a fused spatial x reduction loop: cannot separate
      if (!is_spatial) {
        dropped.insert(v);
        continue;
      }
      if (loop->kind == ForKind::kThreadBinding || UsesAny(loop->min, dropped) || UsesAny(loop->extent, dropped)) return;
      loop_map.Set(loop->loop_var, Var(loop->loop_var->name_hint, loop->loop_var.dtype()));
      kept.push_back(loop);
    }
    Map<Var, PrimExpr> iter_map;
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const IterVar& iv = block->iter_vars[i];
      iter_map.Set(iv->var, iv->iter_type == kDataPar ? Substitute(realize->iter_values[i], loop_map) : iv->dom->min);
    }
    Stmt body = Substitute(*block->init, iter_map);
    // The predicate's clauses over spatial loops still bound the copy.
    PrimExpr pred = IntImm(DataType::Bool(), 1);
    for (const PrimExpr& c : SplitConjuncts(realize->predicate)) {
      if (!UsesAny(c, dropped) && !UsesAny(c, reduce_vars)) pred = logical_and(pred, Substitute(c, loop_map));
    }
    if (!IsConstInt(pred, 1)) body = IfThenElse(pred, body);
    for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
      const ForNode* loop = *it;
      body = For(Downcast<Var>(loop_map[loop->loop_var]), Substitute(loop->min, loop_map),
                 Substitute(loop->extent, loop_map), ForKind::kSerial, body);
    }
    empty_inits_[loops_[first]].push_back(IfThenElse(empty, body));
  }

  std::vector<const ForNode*> loops_;  // enclosing loops, innermost last, since the enclosing block
  std::unordered_map<const ForNode*, std::vector<Stmt>> empty_inits_;  // to put before each loop
};

}  // namespace

PrimFunc LowerInitBlock(PrimFunc func) {
  Stmt body = InitBlockLowerer().VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass LowerInitBlock() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::LowerInitBlock(f); }, 0, "LowerInitBlock");
}
TESSERA_REGISTER_PASS("tir.transform.LowerInitBlock", LowerInitBlock);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
