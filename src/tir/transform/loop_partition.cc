// LoopPartition (see loop_partition.h).
#include "tir/transform/loop_partition.h"

#include "tir/transform/prim_func_pass.h"

#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

// Replaces `if` statements (without else) whose condition provably holds
// under the analyzer's facts by their body; counts them. A condition is
// proven conjunct by conjunct, stopping at the first that fails (proving a
// split predicate of d clauses whole costs far more than d small proofs).
// With `stop_at_failure`, the walk stops at the first unproven `if` (enough
// to know that not all hold).
class ProvenIfRemover : public StmtExprMutator {
 public:
  explicit ProvenIfRemover(arith::Analyzer* ana, bool stop_at_failure = false)
      : ana_(ana), stop_at_failure_(stop_at_failure) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt(const Stmt& s) override { return failed_ && stop_at_failure_ ? s : StmtExprMutator::VisitStmt(s); }
  Stmt VisitStmt_(const ForNode* op) override {
    ana_->Bind(op->loop_var, Range::FromMinExtent(op->min, op->extent), true);
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    ++total;
    if (!op->else_case && Proven(op->condition)) {
      ++removed;
      return VisitStmt(op->then_case);
    }
    failed_ = true;
    return StmtExprMutator::VisitStmt_(op);
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }
  int total = 0, removed = 0;

 private:
  bool Proven(const PrimExpr& cond) {
    for (const PrimExpr& c : SplitConjuncts(cond)) {
      if (!ana_->CanProve(c)) return false;
    }
    return true;
  }
  arith::Analyzer* ana_;
  bool stop_at_failure_;
  bool failed_ = false;
};

// Gives every loop defined in a statement a fresh loop variable (and maps
// `var` to `replacement`), so a copied loop body does not define the same
// variables twice in one function.
class LoopVarRenewer : public StmtExprMutator {
 public:
  LoopVarRenewer(const Var& var, const Var& replacement) { map_[var.get()] = replacement; }
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;
  PrimExpr VisitExpr_(const VarNode* op) override {
    auto it = map_.find(op);
    return it == map_.end() ? GetRef<PrimExpr>(op) : PrimExpr(it->second);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    Var fresh(op->loop_var->name_hint, op->loop_var.dtype());
    map_[op->loop_var.get()] = fresh;
    Stmt body = VisitStmt(op->body);
    return For(fresh, VisitExpr(op->min), VisitExpr(op->extent), op->kind, body, op->thread_binding, op->annotations,
               op->span);
  }

 private:
  std::unordered_map<const VarNode*, Var> map_;
};

// Whether a statement contains an `if`, memoized per node: asked for every
// loop of a nest, so a fresh walk each time would cost O(depth^2).
class IfFinder : public StmtExprVisitor {
 public:
  bool HasIf(const Stmt& s) {
    found_ = false;
    VisitStmt(s);
    return found_;
  }
  void VisitStmt(const Stmt& s) override {
    auto it = memo_.find(s.get());
    if (it != memo_.end()) {
      found_ = found_ || it->second;
      return;
    }
    bool outer = found_;
    found_ = s.as<IfThenElseNode>() != nullptr;
    if (!found_) StmtExprVisitor::VisitStmt(s);
    memo_.emplace(s.get(), found_);
    alive_.push_back(s);  // keeps the memo's keys from being reused
    found_ = outer || found_;
  }
  void VisitExpr(const PrimExpr&) override {}  // statements never nest inside expressions

 private:
  bool found_ = false;
  std::unordered_map<const Object*, bool> memo_;
  std::vector<Stmt> alive_;
};

class Partitioner : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;
  // Outer loops first: a loop is partitioned on its original body, then the
  // pieces' bodies are visited (the clean part usually has nothing left).
  Stmt VisitStmt_(const ForNode* op) override {
    For loop = GetRef<For>(op);
    std::optional<int64_t> split = ProvenPrefix(op);
    if (!split) return VisitLoopBody(loop);
    int64_t lo = *split;
    const int64_t extent = *AsConstInt(op->extent);
    DataType t = op->loop_var.dtype();
    arith::Analyzer local;
    for (const auto& [var, range] : outer_) local.Bind(var, range, true);
    local.Bind(op->loop_var, Range::FromMinExtent(op->min, IntImm(t, lo)), true);
    For first = loop;
    {
      auto* n = first.CopyOnWrite();
      n->extent = IntImm(t, lo);
      n->body = ProvenIfRemover(&local).VisitStmt(op->body);
    }
    Stmt first_done = VisitLoopBody(first);
    if (lo == extent) return first_done;
    // The rest keeps its checks; it gets its own loop variable.
    Var rest_var(op->loop_var->name_hint, t);
    Stmt rest_body = LoopVarRenewer(op->loop_var, rest_var).VisitStmt(op->body);
    For rest(rest_var, add(op->min, IntImm(t, lo)), IntImm(t, extent - lo), op->kind, rest_body, op->thread_binding,
             op->annotations);
    return SeqStmt::Flatten({first_done, VisitLoopBody(rest)});
  }

 private:
  Stmt VisitLoopBody(For loop) {
    outer_.emplace_back(loop->loop_var, Range::FromMinExtent(loop->min, loop->extent));
    Stmt body = VisitStmt(loop->body);
    outer_.pop_back();
    if (body.same_as(loop->body)) return loop;
    loop.CopyOnWrite()->body = body;
    return loop;
  }

  // The largest k > 0 such that every `if` in the loop holds for the first k
  // iterations, or nullopt. Each proof walks the loop's body and proves its
  // conditions, so the pass bounds the number of proofs per function
  // (kProofBudget): a nest of hundreds of split loops (each with the whole
  // predicate below it) costs a bounded amount, the loops beyond the budget
  // keeping their checks. Unit loops have nothing to partition and cost
  // nothing; a loop whose first iteration is not proven stops after one proof.
  std::optional<int64_t> ProvenPrefix(const ForNode* loop) {
    if (loop->kind == ForKind::kThreadBinding || loop->kind == ForKind::kVectorized) return std::nullopt;
    const int64_t* extent = AsConstInt(loop->extent);
    if (extent == nullptr || *extent <= 1 || proofs_left_ <= 0 || !if_finder_.HasIf(loop->body)) return std::nullopt;
    auto all_proven = [&](int64_t k) {
      --proofs_left_;
      arith::Analyzer local;
      for (const auto& [var, range] : outer_) local.Bind(var, range, true);
      local.Bind(loop->loop_var, Range::FromMinExtent(loop->min, IntImm(loop->extent.dtype(), k)), true);
      ProvenIfRemover remover(&local, /*stop_at_failure=*/true);
      remover.VisitStmt(loop->body);
      return remover.total > 0 && remover.removed == remover.total;
    };
    if (all_proven(*extent)) return *extent;
    if (!all_proven(1)) return std::nullopt;
    int64_t lo = 1, hi = *extent;  // all_proven(lo), !all_proven(hi)
    while (lo + 1 < hi && proofs_left_ > 0) {
      int64_t mid = lo + (hi - lo) / 2;
      if (all_proven(mid)) lo = mid; else hi = mid;
    }
    return lo;
  }

  static constexpr int kProofBudget = 256;
  int proofs_left_ = kProofBudget;
  std::vector<std::pair<Var, Range>> outer_;  // enclosing loops while visiting
  IfFinder if_finder_;
};

}  // namespace

PrimFunc LoopPartition(PrimFunc func) {
  Partitioner p;
  Stmt body = p.VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass LoopPartition() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::LoopPartition(f); }, 2, "LoopPartition");
}
TESSERA_REGISTER_PASS("tir.transform.LoopPartition", LoopPartition);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
