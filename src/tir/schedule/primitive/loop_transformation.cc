// split, fuse, reorder and add_unit_loop (see primitives.h), followed by
// their schedule instruction kinds, Schedule methods (resolve the handles,
// commit, record) and tir.schedule.* FFI entries.
#include <algorithm>
#include <sstream>

#include "arith/analyzer.h"
#include "arith/expr_deep_equal.h"
#include "arith/linear_form.h"
#include "tir/op.h"
#include "tir/schedule/fold_constants.h"
#include "tir/schedule/primitive/primitives.h"
#include "tir/schedule/schedule.h"
#include "tir/schedule/schedule_api.h"
#include "tir/schedule/schedule_index.h"

namespace tessera {
namespace tir {
namespace {

std::string LoopName(const ForNode* loop) { return "loop " + loop->loop_var->name_hint; }

// As TVM: split and fuse refuse loops carrying annotations or a thread binding.
void CheckPlainLoop(const char* prim, const PrimFunc& func, const ForNode* loop) {
  if (!loop->annotations.empty()) {
    ThrowScheduleError(prim, LoopName(loop) + " has annotations (" + std::to_string(loop->annotations.size()) +
                                 "); remove them with unannotate first",
                       func, {loop});
  }
  if (loop->thread_binding || loop->kind == ForKind::kThreadBinding) {
    ThrowScheduleError(prim, LoopName(loop) + " is bound to a thread axis", func, {loop});
  }
}

// Adds `cond` to the predicate of every block realized under `stmt`.
class PredicateAdder : public StmtExprMutator {
 public:
  explicit PredicateAdder(PrimExpr cond) : cond_(std::move(cond)) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    PrimExpr pred = IsConstInt(op->predicate, 1) ? cond_ : logical_and(op->predicate, cond_);
    return BlockRealize(op->iter_values, pred, op->block, op->span);
  }
  PrimExpr VisitExpr(const PrimExpr& e) override { return e; }

 private:
  PrimExpr cond_;
};

// a * b with constants folded and a symbolic factor first (`n * 16384`, as TVM prints).
PrimExpr MulExtent(const PrimExpr& a, const PrimExpr& b) {
  const int64_t* ca = AsConstInt(a);
  const int64_t* cb = AsConstInt(b);
  if (ca != nullptr && *ca == 1) return b;
  if (cb != nullptr && *cb == 1) return a;
  if (ca != nullptr && cb != nullptr) return IntImm(a.dtype(), *ca * *cb);
  if (ca != nullptr) return MulExtent(b, a);
  // (x * c1) * c2 -> x * (c1 c2)
  if (cb != nullptr) {
    if (const auto* m = a.as<MulNode>()) {
      if (const int64_t* c1 = AsConstInt(m->b)) return mul(m->a, IntImm(a.dtype(), *c1 * *cb));
    }
  }
  return mul(a, b);
}

}  // namespace

PrimFunc SplitLoop(const PrimFunc& func, const ForNode* loop, const std::vector<PrimExpr>& factors,
                   bool preserve_unit_iters, bool disable_predication, std::vector<Var>* new_loop_vars) {
  const int64_t* extent = AsConstInt(loop->extent);
  CheckPlainLoop("split", func, loop);
  if (!IsConstInt(loop->min, 0)) {
    ThrowScheduleError("split", LoopName(loop) + " does not start at 0", func, {loop});
  }
  if (factors.size() < 2) ThrowScheduleError("split", "split needs at least two factors", func);
  if (factors.size() > kMaxLoopNestDepth) {
    ThrowScheduleError("split", std::to_string(factors.size()) + " factors for " + LoopName(loop) +
                                    " would nest more loops than schedules support (" +
                                    std::to_string(kMaxLoopNestDepth) + ")", func, {loop});
  }
  // Constant factors are checked and multiplied; a symbolic factor (inferred
  // from a symbolic extent by Schedule::Split) makes the product cover the extent.
  int64_t product = 1;
  bool symbolic_factor = false;
  for (const PrimExpr& fe : factors) {
    const int64_t* c = AsConstInt(fe);
    if (c == nullptr) {
      symbolic_factor = true;
      continue;
    }
    int64_t f = *c;
    if (f <= 0) {
      ThrowScheduleError("split", "factor " + std::to_string(f) + " for " + LoopName(loop) + " is not positive", func, {loop});
    }
    if (__builtin_mul_overflow(product, f, &product)) {
      ThrowScheduleError("split", "the product of the factors for " + LoopName(loop) + " overflows int64", func, {loop});
    }
  }
  if (extent != nullptr && !symbolic_factor && product < *extent) {
    std::ostringstream os;
    os << "the product of the factors (" << product << ") is less than the extent of " << LoopName(loop) << " ("
       << *extent << ")";
    ThrowScheduleError("split", os.str(), func);
  }
  if (extent == nullptr && !symbolic_factor) {
    // TVM accepts this and leaves the iterations past the product out; Tessera
    // refuses a split that may not cover the loop (docs/compatibility.md).
    std::ostringstream os;
    const auto* n = loop->extent.as<VarNode>();
    os << "the factors' product (" << product << ") may be less than the symbolic extent"
       << (n != nullptr ? " " + n->name_hint : std::string()) << " of " << LoopName(loop) << "; give one factor as None so that it is inferred as a ceiling division";
    ThrowScheduleError("split", os.str(), func, {loop});
  }
  DataType t = loop->loop_var.dtype();
  std::vector<Var> vars;
  for (size_t i = 0; i < factors.size(); ++i) vars.emplace_back(loop->loop_var->name_hint + "_" + std::to_string(i), t);
  auto as_t = [&](const PrimExpr& e) -> PrimExpr {
    if (const int64_t* c = AsConstInt(e)) return IntImm(t, *c);
    return e.dtype() == t ? e : cast(t, e);
  };
  // old = sum_i vars[i] * prod(factors[i+1:]), strides as suffix products.
  std::vector<PrimExpr> strides(factors.size(), IntImm(t, 1));
  for (size_t i = factors.size() - 1; i-- > 0;) strides[i] = MulExtent(as_t(factors[i + 1]), strides[i + 1]);
  PrimExpr fused;
  for (size_t i = 0; i < factors.size(); ++i) {
    bool unit = IsConstInt(factors[i], 1);
    PrimExpr term = IsConstInt(strides[i], 1) ? PrimExpr(vars[i]) : mul(vars[i], strides[i]);
    if (unit && !preserve_unit_iters) term = IntImm(t, 0);
    fused = fused.defined() ? add(fused, term) : term;
  }
  const VarNode* old = loop->loop_var.get();
  Stmt body = Substitute(loop->body, [&](const Var& v) -> std::optional<PrimExpr> {
    if (v.get() == old) return fused;
    return std::nullopt;
  });
  // A symbolic factor that is the extent itself (the others all 1) covers it exactly.
  bool exact = symbolic_factor && product == 1 &&
               std::any_of(factors.begin(), factors.end(), [&](const PrimExpr& f) { return f.same_as(loop->extent); });
  if (!exact && symbolic_factor) {  // as TVM: no predicate when the factors provably multiply to the extent
    PrimExpr total = as_t(factors[0]);
    for (size_t i = 1; i < factors.size(); ++i) total = mul(total, as_t(factors[i]));
    arith::Analyzer ana;
    exact = ana.CanProveEqual(total, loop->extent);
  }
  bool needs_predicate = !exact && (extent == nullptr || symbolic_factor || product > *extent);
  if (needs_predicate && !disable_predication) {
    // As TVM, the predicate bounds the nested form ((v0 * f1 + v1) * f2 + v2)
    // while the bindings take the flat sum above.
    PrimExpr nested = IntImm(t, 0);
    for (size_t i = 0; i < factors.size(); ++i) {
      bool unit = IsConstInt(factors[i], 1);
      PrimExpr scaled = IsConstInt(nested, 0) ? nested : (unit ? nested : mul(nested, as_t(factors[i])));
      PrimExpr term = (unit && !preserve_unit_iters) ? PrimExpr() : PrimExpr(vars[i]);
      if (term.defined()) nested = IsConstInt(scaled, 0) ? term : add(scaled, term);
      else nested = scaled;
    }
    body = PredicateAdder(less(nested, loop->extent)).VisitStmt(body);
  }
  body = FoldBindingConstants(body);  // a unit loop replaced by 0 leaves `0 * 6`
  Stmt result = body;
  for (size_t i = factors.size(); i-- > 0;) {
    if (IsConstInt(factors[i], 1) && !preserve_unit_iters) continue;
    result = For(vars[i], IntImm(t, 0), as_t(factors[i]), i == 0 ? loop->kind : ForKind::kSerial, result,
                 i == 0 ? loop->thread_binding : std::nullopt, i == 0 ? loop->annotations : Map<String, Any>());
  }
  *new_loop_vars = vars;
  return ReplaceInFunc(func, loop, result);
}

PrimFunc FuseLoops(const PrimFunc& func, const std::vector<const ForNode*>& loops, bool preserve_unit_iters,
                   Var* fused_var) {
  if (loops.empty()) ThrowScheduleError("fuse", "fuse needs at least one loop", func);
  for (size_t i = 0; i + 1 < loops.size(); ++i) {
    if (loops[i]->body.get() != loops[i + 1]) {
      ThrowScheduleError("fuse", LoopName(loops[i + 1]) + " is not the only child of " + LoopName(loops[i]) +
                                     "; fuse needs directly nested loops, outermost first",
                         func, {loops[i + 1]});
    }
  }
  std::string name;
  DataType t = loops[0]->loop_var.dtype();
  for (size_t i = 0; i < loops.size(); ++i) {
    const ForNode* l = loops[i];
    CheckPlainLoop("fuse", func, l);
    if (!IsConstInt(l->min, 0)) ThrowScheduleError("fuse", LoopName(l) + " must start at 0", func, {l});
    for (size_t j = 0; j < i; ++j) {
      if (UsesVar(l->extent, loops[j]->loop_var.get())) {
        ThrowScheduleError("fuse", "the extent of " + LoopName(l) + " depends on " + LoopName(loops[j]) +
                                       ", which is fused with it", func, {l});
      }
    }
    if (l->loop_var.dtype() != t) ThrowScheduleError("fuse", "the loops have different index dtypes", func);
    name += l->loop_var->name_hint + "_";
  }
  auto extent_of = [&](const ForNode* l) -> PrimExpr {
    if (const int64_t* c = AsConstInt(l->extent)) return IntImm(t, *c);
    return l->extent;
  };
  Var fused(name + "fused", t);
  // TVM's bindings: loop i (innermost last) is (fused % (lower * e_i)) // lower,
  // `lower` the product of the extents inside it; the outermost is fused // lower.
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  PrimExpr lower = IntImm(t, 1);
  for (size_t i = loops.size(); i-- > 0;) {
    PrimExpr e = extent_of(loops[i]);
    PrimExpr v = i == 0 ? PrimExpr(fused) : floormod(fused, MulExtent(lower, e));
    if (!IsConstInt(lower, 1)) v = floordiv(v, lower);
    if (IsConstInt(e, 1) && !preserve_unit_iters) v = IntImm(t, 0);  // a unit loop only ever takes the value 0
    vmap[loops[i]->loop_var.get()] = v;
    lower = MulExtent(lower, e);
  }
  Stmt body = Substitute(loops.back()->body, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = vmap.find(v.get());
    if (it == vmap.end()) return std::nullopt;
    return it->second;
  });
  body = FoldBindingConstants(body);  // a unit loop replaced by 0 leaves `0 * 6`
  *fused_var = fused;
  if (!AsConstInt(lower)) {  // as TVM, a symbolic fused extent is simplified
    arith::Analyzer ana;
    lower = ana.Simplify(lower);
  }
  return ReplaceInFunc(func, loops[0], For(fused, IntImm(t, 0), lower, ForKind::kSerial, body));
}

namespace {
bool DependsOn(const PrimExpr& e, const std::vector<const VarNode*>& dom) {
  for (const VarNode* v : dom)
    if (UsesVar(e, v)) return true;
  return false;
}

// Quasi-affine in the loops of `dom`: sums and constant multiples of them,
// floordiv/floormod of such by loop-free values (other variables are constants).
bool QuasiAffine(const PrimExpr& e, const std::vector<const VarNode*>& dom) {
  if (!DependsOn(e, dom)) return true;
  if (e.as<VarNode>()) return true;
  if (const auto* c = e.as<CastNode>()) return QuasiAffine(c->value, dom);
  if (e.as<AddNode>() || e.as<SubNode>()) {
    const auto* b = static_cast<const BinaryOpNode*>(e.get());
    return QuasiAffine(b->a, dom) && QuasiAffine(b->b, dom);
  }
  if (const auto* m = e.as<MulNode>()) {
    if (DependsOn(m->a, dom) && DependsOn(m->b, dom)) return false;
    return QuasiAffine(m->a, dom) && QuasiAffine(m->b, dom);
  }
  if (e.as<FloorDivNode>() || e.as<FloorModNode>() || e.as<DivNode>() || e.as<ModNode>()) {
    const auto* b = static_cast<const BinaryOpNode*>(e.get());
    return !DependsOn(b->b, dom) && QuasiAffine(b->a, dom);
  }
  return false;
}

// A predicate conjunct over several loops must bound a sum that some binding
// uses as a whole (a fused iterator, as split leaves); one over a single
// loop only narrows that loop.
bool PredicateFitsBindings(const PrimExpr& pred, const Array<PrimExpr>& values, const std::vector<const VarNode*>& dom) {
  std::vector<PrimExpr> conjuncts = SplitConjuncts(pred);
  for (const PrimExpr& c : conjuncts) {
    int loops = 0;
    for (const VarNode* v : dom) loops += UsesVar(c, v);
    if (loops <= 1) continue;
    const auto* cmp = static_cast<const BinaryOpNode*>(c.get());
    if (!(c.as<LTNode>() || c.as<LENode>() || c.as<GTNode>() || c.as<GENode>())) return false;
    PrimExpr side = DependsOn(cmp->a, dom) ? cmp->a : cmp->b;
    if (const auto* add = side.as<AddNode>()) {
      if (!DependsOn(add->b, dom)) side = add->a;  // `fused + offset < bound`
    }
    bool used = false;
    for (const PrimExpr& v : values) {
      PostOrderVisit(v, [&](const ObjectRef& n) {
        if (const auto* pe = n.as<PrimExprNode>()) used = used || arith::ExprDeepEqual(GetRef<PrimExpr>(pe), side);
      });
    }
    if (!used) return false;
  }
  return true;
}

// As TVM: every block under the reordered loops has only data-parallel and
// reduction iterators, and its bindings (with its predicate) are affine in
// the loops from `top` down (loops above `top` count as constants).
void CheckReorderableBlocks(const PrimFunc& func, const ForNode* top) {
  std::function<void(const Stmt&, std::vector<const VarNode*>)> visit = [&](const Stmt& stmt, std::vector<const VarNode*> dom) {
    if (const auto* f = stmt.as<ForNode>()) {
      dom.push_back(f->loop_var.get());
      visit(f->body, dom);
    } else if (const auto* seq = stmt.as<SeqStmtNode>()) {
      for (const Stmt& x : seq->seq) visit(x, dom);
    } else if (const auto* let = stmt.as<LetStmtNode>()) {
      visit(let->body, dom);
    } else if (const auto* ite = stmt.as<IfThenElseNode>()) {
      visit(ite->then_case, dom);
      if (ite->else_case) visit(*ite->else_case, dom);
    } else if (const auto* br = stmt.as<BlockRealizeNode>()) {
      const BlockNode* b = br->block.get();
      for (const IterVar& iv : b->iter_vars) {
        if (iv->iter_type != kDataPar && iv->iter_type != kCommReduce) {
          ThrowScheduleError("reorder", "block \"" + b->name_hint + "\" under the loops to be reordered has the "
                                        "iteration variable " + iv->var->name_hint +
                                        " that is neither data-parallel nor a reduction",
                             func, {b});
        }
      }
      bool affine = true;
      for (const PrimExpr& v : br->iter_values) {
        affine = affine && QuasiAffine(v, dom);
        // As TVM, the innermost loop of a binding has stride 1 (`l * 16` is not an affine binding).
        if (auto form = arith::ToLinearForm(v); affine && form && !form->terms.empty()) {
          int64_t smallest = 0;
          bool all_loops = true;
          for (const auto& [atom, coeff] : form->terms) {
            all_loops = all_loops && atom.as<VarNode>() && DependsOn(atom, dom);
            int64_t c = coeff < 0 ? -coeff : coeff;
            smallest = smallest == 0 ? c : std::min(smallest, c);
          }
          if (all_loops && smallest != 1) affine = false;
        }
      }
      if (!affine || !PredicateFitsBindings(br->predicate, br->iter_values, dom)) {
        ThrowScheduleError("reorder", "the bindings of block \"" + b->name_hint +
                                          "\" (with its predicate) are not affine in the loops to be reordered",
                           func, {b});
      }
    }
  };
  visit(GetRef<Stmt>(top), {});
}
// A block with an init runs it on the first iteration of each of its
// reductions (all reduction iterators at their start); that must stay the
// first. A loop bound to a spatial and a reduction iterator of the block at
// once (a fused spatial x reduction loop) orders the reduction of one
// spatial point through the spatial digits too: moved against another loop
// of the chain, the init can come after updates and discard them. TVM does
// not check this (its init runs where the reduction iterators are at their
// start, the same rule); Tessera refuses rather than reset partial sums.
void CheckReductionOrderKept(const PrimFunc& func, const std::vector<const ForNode*>& chain,
                             const std::vector<const ForNode*>& new_chain) {
  std::vector<const ForNode*> moved;
  for (size_t i = 0; i < chain.size(); ++i)
    if (chain[i] != new_chain[i]) moved.push_back(chain[i]);
  if (moved.empty()) return;
  PostOrderVisitBlockRealizes(chain.back()->body, [&](const BlockRealizeNode* br) {
    const BlockNode* b = br->block.get();
    if (!b->init) return;
    for (const ForNode* l : moved) {
      bool spatial = false, reduce = false;
      for (size_t k = 0; k < b->iter_vars.size() && k < br->iter_values.size(); ++k) {
        if (!UsesVar(br->iter_values[k], l->loop_var.get())) continue;
        (b->iter_vars[k]->iter_type == kCommReduce ? reduce : spatial) = true;
      }
      if (spatial && reduce) {
        ThrowScheduleError("reorder", LoopName(l) + " is bound to both a spatial and a reduction iterator of block \"" +
                                          b->name_hint + "\"; moving it would run the block's init after updates "
                                          "of the same reduction",
                           func, {b});
      }
    }
  });
}
}  // namespace

PrimFunc ReorderLoops(const PrimFunc& func, const std::vector<const ForNode*>& order) {
  if (order.empty()) return func;
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = i + 1; j < order.size(); ++j)
      if (order[i] == order[j]) ThrowScheduleError("reorder", LoopName(order[i]) + " appears twice", func, {order[i]});
  // Find the chain: every given loop must be on one path; the outermost given
  // loop's descendants down to the innermost given loop must be single-child loops.
  std::vector<const ForNode*> chain;  // from the outermost given loop down
  const ForNode* outer = nullptr;
  for (const ForNode* l : order) {
    auto loc = FindLoop(func, l->loop_var.get());
    bool is_outer = true;
    for (const ForNode* a : loc->ancestors)
      for (const ForNode* o : order)
        if (a == o) is_outer = false;
    if (is_outer) {
      if (outer != nullptr) {
        ThrowScheduleError("reorder", "the loops " + LoopName(outer) + " and " + LoopName(l) +
                                          " are not in one loop nest (neither encloses the other)",
                           func, {outer});
      }
      outer = l;
    }
  }
  size_t found = 0;
  for (const ForNode* cur = outer; cur != nullptr;) {
    chain.push_back(cur);
    for (const ForNode* o : order) found += (o == cur);
    if (found == order.size()) break;
    const ForNode* next = cur->body.as<ForNode>();
    if (next == nullptr) {
      ThrowScheduleError("reorder", "the loops to reorder are not in a single chain of nested loops below " +
                                        LoopName(outer) + " (a block or a sequence separates them)",
                         func, {outer});
    }
    cur = next;
  }
  // Positions of the given loops in the chain get the loops in the new order.
  std::vector<const ForNode*> new_chain = chain;
  size_t k = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    for (const ForNode* o : order) {
      if (o == chain[i]) {
        new_chain[i] = order[k++];
        break;
      }
    }
  }
  // Loop extents must not depend on loops that would move inside them.
  for (size_t i = 0; i < new_chain.size(); ++i)
    for (size_t j = i + 1; j < new_chain.size(); ++j)
      if (UsesVar(new_chain[i]->extent, new_chain[j]->loop_var.get()) ||
          UsesVar(new_chain[i]->min, new_chain[j]->loop_var.get())) {
        ThrowScheduleError("reorder", "the bounds of " + LoopName(new_chain[i]) + " depend on " +
                                          LoopName(new_chain[j]),
                           func, {new_chain[i]});
      }
  CheckReorderableBlocks(func, chain.front());
  CheckReductionOrderKept(func, chain, new_chain);
  Stmt body = chain.back()->body;
  for (size_t i = new_chain.size(); i-- > 0;) {
    For f = GetRef<For>(new_chain[i]);
    f.CopyOnWrite()->body = body;
    body = f;
  }
  return ReplaceInFunc(func, chain.front(), body);
}

PrimFunc AddUnitLoop(const PrimFunc& func, const Object* stmt, Var* new_var) {
  Var v("u", DataType::Int(32));
  Stmt target = GetRef<Stmt>(static_cast<const StmtNode*>(stmt));
  *new_var = v;
  return ReplaceInFunc(func, stmt, For(v, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 1),
                                      ForKind::kSerial, target));
}

}  // namespace tir
}  // namespace tessera

// ---- instruction kinds -------------------------------------------------------------
namespace tessera {
namespace tir {
using namespace inst_args;

TESSERA_REGISTER_INST_KIND("Split")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      // Traces recorded before disable_predication was an attribute have one attribute.
      bool disable_predication = attrs.size() > 1 && attrs.at_any(1).cast<bool>();
      // Inputs (loop, [factors...]), or TVM's flat (loop, factors...).
      LoopRV loop = in.at_any(0).cast<LoopRV>();
      Array<Any> factors;
      if (in.size() == 2 && in.at_any(1).as<ArrayObj>()) {
        factors = in.at_any(1).cast<Array<Any>>();
      } else {
        std::vector<Any> flat = in.to_vector();
        factors = Array<Any>(std::vector<Any>(flat.begin() + 1, flat.end()));
      }
      return AsOutputs(sch.Split(loop, factors, attrs.at_any(0).cast<bool>(),
                                 disable_predication));
    })
    .set_as_python([](const std::vector<std::string>& in, const Attrs& attrs, const std::optional<std::string>& d,
                      const std::vector<std::string>& out) {
      static const auto nested = PythonCall("split", {"loop", "factors"}, {"preserve_unit_iters", "disable_predication"},
                                            /*returns_list=*/true);
      if (in.size() == 2 && !in[1].empty() && in[1][0] == '[') return nested(in, attrs, d, out);
      std::string factors = "[";
      for (size_t k = 1; k < in.size(); ++k) factors += (k > 1 ? ", " : "") + in[k];
      return nested({in.at(0), factors + "]"}, attrs, d, out);
    });
TESSERA_REGISTER_INST_KIND("Fuse")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs& attrs, const Decision&) {
      std::vector<LoopRV> loops;
      for (const Any& x : in.to_vector()) loops.push_back(x.cast<LoopRV>());
      return Array<Any>{sch.Fuse(Array<LoopRV>(loops), attrs.at_any(0).cast<bool>())};
    })
    .set_as_python(PythonCall("fuse", {"*"}, {"preserve_unit_iters"}));
TESSERA_REGISTER_INST_KIND("Reorder")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      std::vector<LoopRV> loops;
      for (const Any& x : in.to_vector()) loops.push_back(x.cast<LoopRV>());
      sch.Reorder(Array<LoopRV>(loops));
      return Array<Any>();
    })
    .set_as_python(PythonCall("reorder", {"*"}, {}));
TESSERA_REGISTER_INST_KIND("AddUnitLoop")
    .set_apply([](const Schedule& sch, const Inputs& in, const Attrs&, const Decision&) {
      return Array<Any>{sch.AddUnitLoop(in.at_any(0).cast<ObjectRef>())};
    })
    .set_as_python(PythonCall("add_unit_loop", {"block_or_loop"}, {}));

// ---- Schedule methods ------------------------------------------------------------

Array<LoopRV> Schedule::Split(const LoopRV& loop, const Array<Any>& factors, bool preserve_unit_iters,
                              bool disable_predication) const {
  LoopLocation loc = LocateLoop(loop, "split");
  const std::string func = get()->loops.at(loop.get()).func;
  PrimFunc f = FuncOf(func);
  const int64_t* extent = AsConstInt(loc.loop->extent);
  // Resolve factors: ints, sampled values, at most one None (inferred).
  std::vector<PrimExpr> values;
  int none_at = -1;
  for (size_t i = 0; i < factors.size(); ++i) {
    const Any& a = factors.at_any(i);
    if (a.is_none()) {
      if (none_at >= 0) ThrowScheduleError("split", "at most one factor may be None", f);
      none_at = static_cast<int>(i);
      values.push_back(PrimExpr(int64_t(1)));
    } else if (a.kind() == Any::Kind::kInt) {
      values.push_back(PrimExpr(a.cast<int64_t>()));
    } else if (const auto* imm = a.as<IntImmNode>()) {
      values.push_back(PrimExpr(imm->value));
    } else if (a.is_object() && get()->values.count(a.raw_object().get())) {
      values.push_back(PrimExpr(get()->values.at(a.raw_object().get())));
    } else {
      ThrowScheduleError("split", "factor " + std::to_string(i) + " is a " + a.type_name() +
                                      ", not an integer, None or a sampled value of this schedule",
                         f);
    }
  }
  if (none_at >= 0) {
    int64_t known = 1;
    for (const PrimExpr& v : values) {
      int64_t c = *AsConstInt(v);
      if (c <= 0) ThrowScheduleError("split", "factor " + std::to_string(c) + " is not positive", f);
      if (__builtin_mul_overflow(known, c, &known)) ThrowScheduleError("split", "the product of the factors overflows int64", f);
    }
    if (extent != nullptr) {
      values[static_cast<size_t>(none_at)] = PrimExpr((*extent + known - 1) / known);
    } else if (known == 1) {
      values[static_cast<size_t>(none_at)] = loc.loop->extent;
    } else {
      // ceildiv(n, known), as TVM writes it: (n + known - 1) // known,
      // simplified as TVM does (n * 32 split by 32 gives n).
      DataType t = loc.loop->extent.dtype();
      arith::Analyzer ana;
      values[static_cast<size_t>(none_at)] =
          ana.Simplify(floordiv(add(loc.loop->extent, IntImm(t, known - 1)), IntImm(t, known)));
    }
  }
  std::vector<Var> vars;
  PrimFunc out = SplitLoop(f, loc.loop, values, preserve_unit_iters, disable_predication, &vars);
  Commit(func, out);
  std::vector<LoopRV> rvs;
  std::vector<Any> outs;
  for (const Var& v : vars) {
    LoopRV rv = LoopRV::Make();
    self()->loops[rv.get()] = {func, v};
    rvs.push_back(rv);
    outs.push_back(rv);
  }
  Record("Split", {loop, factors}, {preserve_unit_iters, disable_predication}, Array<Any>(outs));
  return Array<LoopRV>(rvs);
}

LoopRV Schedule::Fuse(const Array<LoopRV>& loops, bool preserve_unit_iters) const {
  if (loops.empty()) {
    ThrowErrorOfKind("ScheduleError", "ScheduleError: fuse: no loops were given (fuse needs at least one loop)");
  }
  std::vector<const ForNode*> nodes;
  std::string func;
  for (LoopRV l : loops) {
    nodes.push_back(LocateLoop(l, "fuse").loop);
    const std::string& f = get()->loops.at(l.get()).func;
    if (!func.empty() && f != func) {
      ThrowErrorOfKind("ScheduleError", "ScheduleError: fuse: the loops belong to different functions (\"" + func +
                                            "\" and \"" + f + "\")");
    }
    func = f;
  }
  Var fused;
  PrimFunc out = FuseLoops(FuncOf(func), nodes, preserve_unit_iters, &fused);
  Commit(func, out);
  LoopRV rv = LoopRV::Make();
  self()->loops[rv.get()] = {func, fused};
  std::vector<Any> inputs(loops.begin(), loops.end());
  Record("Fuse", Array<Any>(inputs), {preserve_unit_iters}, {rv});
  return rv;
}

void Schedule::Reorder(const Array<LoopRV>& order) const {
  std::vector<const ForNode*> nodes;
  std::string func;
  for (LoopRV l : order) {
    nodes.push_back(LocateLoop(l, "reorder").loop);
    const std::string& f = get()->loops.at(l.get()).func;
    if (!func.empty() && f != func) ThrowScheduleError("reorder", "the loops are in different functions", FuncOf(f));
    func = f;
  }
  if (nodes.empty()) return;
  Commit(func, ReorderLoops(FuncOf(func), nodes));
  std::vector<Any> inputs(order.begin(), order.end());
  Record("Reorder", Array<Any>(inputs), {}, {});
}

LoopRV Schedule::AddUnitLoop(const ObjectRef& block_or_loop) const {
  const Object* target = nullptr;
  std::string func;
  if (const auto* b = block_or_loop.as<BlockRVNode>()) {
    target = LocateBlock(GetRef<BlockRV>(b), "add_unit_loop").realize;
    func = get()->blocks.at(b).func;
  } else {
    LoopRV l = Downcast<LoopRV>(block_or_loop);
    target = LocateLoop(l, "add_unit_loop").loop;
    func = get()->loops.at(l.get()).func;
  }
  Var v;
  Commit(func, tir::AddUnitLoop(FuncOf(func), target, &v));
  LoopRV rv = LoopRV::Make();
  self()->loops[rv.get()] = {func, v};
  Record("AddUnitLoop", {block_or_loop}, {}, {rv});
  return rv;
}

// ---- FFI -------------------------------------------------------------------------
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Split")
    .set_body_typed([](Schedule s, LoopRV l, Array<Any> factors, bool preserve, bool disable_predication) {
      return s.Split(l, factors, preserve, disable_predication);
    });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Fuse").set_body_typed([](Schedule s, Array<LoopRV> loops, bool preserve) {
  return s.Fuse(loops, preserve);
});
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.Reorder").set_body_typed([](Schedule s, Array<LoopRV> loops) { s.Reorder(loops); });
TESSERA_REGISTER_SCHEDULE_API("tir.schedule.AddUnitLoop").set_body_typed([](Schedule s, ObjectRef x) { return s.AddUnitLoop(x); });

}  // namespace tir
}  // namespace tessera
