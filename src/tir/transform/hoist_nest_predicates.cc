// HoistNestPredicates (see hoist_nest_predicates.h).
#include "tir/transform/hoist_nest_predicates.h"

#include <unordered_map>
#include <vector>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

void SplitConjuncts(const PrimExpr& e, std::vector<PrimExpr>* out) {
  if (const auto* a = e.as<AndNode>()) {
    SplitConjuncts(a->a, out);
    SplitConjuncts(a->b, out);
  } else {
    out->push_back(e);
  }
}

// The deepest loop (index into the nest) whose variable `clause` reads, -1 for
// none; -2 when the clause may not move: it loads from a buffer or calls
// something (whose value the loops below could change), or divides by a
// non-constant (it could raise where, guarded by an empty loop, it never ran).
int ClauseLevel(const PrimExpr& clause, const std::unordered_map<const VarNode*, int>& level_of) {
  int level = -1;
  bool movable = true;
  PostOrderVisit(clause, [&](const ObjectRef& node) {
    if (node.as<BufferLoadNode>() || node.as<CallNode>()) movable = false;
    if (node.as<DivNode>() || node.as<ModNode>() || node.as<FloorDivNode>() || node.as<FloorModNode>()) {
      movable = movable && AsConstInt(static_cast<const BinaryOpNode*>(node.get())->b) != nullptr;
    }
    if (const auto* v = node.as<VarNode>()) {
      auto it = level_of.find(v);
      if (it != level_of.end()) level = std::max(level, it->second);
    }
  });
  return movable ? level : -2;
}

PrimExpr Conjunction(const std::vector<PrimExpr>& clauses) {
  PrimExpr c = clauses[0];
  for (size_t i = 1; i < clauses.size(); ++i) c = And(c, clauses[i]);
  return c;
}

class NestPredicateHoister : public StmtExprMutator {
 public:
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    // The perfect nest starting here, down to its innermost statement.
    std::vector<const ForNode*> loops;
    Stmt leaf = GetRef<Stmt>(op);
    while (const auto* f = leaf.as<ForNode>()) {
      if (f->kind == ForKind::kThreadBinding) break;
      loops.push_back(f);
      leaf = f->body;
    }
    const auto* guard = leaf.as<IfThenElseNode>();
    if (loops.size() < 2 || guard == nullptr || guard->else_case) return StmtExprMutator::VisitStmt_(op);
    std::unordered_map<const VarNode*, int> level_of;
    for (size_t i = 0; i < loops.size(); ++i) level_of[loops[i]->loop_var.get()] = static_cast<int>(i);
    std::vector<PrimExpr> clauses;
    SplitConjuncts(guard->condition, &clauses);
    const int innermost = static_cast<int>(loops.size()) - 1;
    // by_level[k + 1]: the clauses placed just inside loop k (k = -1: above the nest).
    std::vector<std::vector<PrimExpr>> by_level(loops.size() + 1);
    bool moved = false;
    for (const PrimExpr& c : clauses) {
      int level = ClauseLevel(c, level_of);
      if (level == -2) level = innermost;
      moved = moved || level != innermost;
      by_level[level + 1].push_back(c);
    }
    if (!moved) return StmtExprMutator::VisitStmt_(op);
    // Outermost first: a clause `v < C` (once simplified) just inside loop v
    // shrinks v's constant extent to C - min; a loop left with one iteration
    // is dropped (v = min in everything below), and so are clauses then true.
    // Splitting a loop of 1 again and again (unit loops, `i0 * 3 + i1 < 1`)
    // thereby leaves only the loops that iterate.
    arith::Analyzer ana;
    Map<Var, PrimExpr> fixed;
    std::vector<bool> dropped(loops.size(), false);
    std::vector<PrimExpr> extents(loops.size());
    auto resolve = [&](const PrimExpr& e) { return fixed.empty() ? e : Substitute(e, fixed); };
    for (size_t k = 0; k < loops.size(); ++k) {
      const ForNode* f = loops[k];
      PrimExpr min = ana.Simplify(resolve(f->min));
      PrimExpr extent = ana.Simplify(resolve(f->extent));
      const bool tightenable = f->kind == ForKind::kSerial && f->annotations.empty();
      if (tightenable) ana.Bind(f->loop_var, Range::FromMinExtent(min, extent), true);
      std::vector<PrimExpr> kept;
      for (const PrimExpr& c : by_level[k + 1]) {
        PrimExpr simple = tightenable ? ana.Simplify(resolve(c)) : resolve(c);
        if (IsConstInt(simple, 1)) continue;
        const auto* lt = simple.as<LTNode>();
        const int64_t* m = AsConstInt(min);
        const int64_t* e = AsConstInt(extent);
        if (tightenable && lt && lt->a.same_as(f->loop_var) && m && e) {
          if (const int64_t* bound = AsConstInt(lt->b)) {
            if (*bound - *m >= 1 && *bound - *m <= *e) {
              extent = IntImm(extent.dtype(), *bound - *m);
              ana.Bind(f->loop_var, Range::FromMinExtent(min, extent), true);
              continue;
            }
          }
        }
        kept.push_back(simple);
      }
      by_level[k + 1] = kept;
      extents[k] = extent;
      if (tightenable && IsConstInt(extent, 1)) {
        dropped[k] = true;
        fixed.Set(f->loop_var, min);
        // Clauses kept before a later one shrank the loop to one iteration
        // (`v < e and v < 1`) still read v, which is `min` from now on.
        std::vector<PrimExpr> resolved;
        for (const PrimExpr& c : by_level[k + 1]) {
          PrimExpr simple = ana.Simplify(resolve(c));
          if (!IsConstInt(simple, 1)) resolved.push_back(simple);
        }
        by_level[k + 1] = resolved;
      }
    }
    Stmt body = VisitStmt(resolve_stmt(guard->then_case, fixed));
    auto guarded = [&](int level, Stmt s) {
      const auto& cs = by_level[level + 1];
      return cs.empty() ? s : IfThenElse(Conjunction(cs), s, std::nullopt, guard->span);
    };
    body = guarded(innermost, body);
    for (int k = innermost; k >= 0; --k) {
      const ForNode* f = loops[k];
      if (!dropped[k]) {
        body = For(f->loop_var, resolve(f->min), extents[k], f->kind, body, f->thread_binding, f->annotations,
                   f->span);
      }
      body = guarded(k - 1, body);
    }
    return body;
  }

 private:
  static Stmt resolve_stmt(const Stmt& s, const Map<Var, PrimExpr>& fixed) {
    return fixed.empty() ? s : Substitute(s, [&](const Var& v) -> std::optional<PrimExpr> {
      if (auto value = fixed.Get(v)) return *value;
      return std::nullopt;
    });
  }
};

}  // namespace

PrimFunc HoistNestPredicates(PrimFunc func) {
  Stmt body = NestPredicateHoister().VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass HoistNestPredicates() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::HoistNestPredicates(f); }, 0,
                            "HoistNestPredicates");
}
TESSERA_REGISTER_PASS("tir.transform.HoistNestPredicates", HoistNestPredicates);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
