// split, fuse, reorder and add_unit_loop (see primitives.h), followed by
// their schedule instruction kinds, Schedule methods (resolve the handles,
// commit, record) and tir.schedule.* FFI entries.
#include <sstream>

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

}  // namespace

PrimFunc SplitLoop(const PrimFunc& func, const ForNode* loop, const std::vector<int64_t>& factors,
                   bool preserve_unit_iters, bool disable_predication, std::vector<Var>* new_loop_vars) {
  const int64_t* extent = AsConstInt(loop->extent);
  if (extent == nullptr) {
    ThrowScheduleError("split", LoopName(loop) + " has a symbolic extent; split needs a constant extent", func, {loop});
  }
  if (!IsConstInt(loop->min, 0)) {
    ThrowScheduleError("split", LoopName(loop) + " does not start at 0", func, {loop});
  }
  if (factors.size() < 2) ThrowScheduleError("split", "split needs at least two factors", func);
  if (factors.size() > kMaxLoopNestDepth) {
    ThrowScheduleError("split", std::to_string(factors.size()) + " factors for " + LoopName(loop) +
                                    " would nest more loops than schedules support (" +
                                    std::to_string(kMaxLoopNestDepth) + ")", func, {loop});
  }
  int64_t product = 1;
  for (int64_t f : factors) {
    if (f <= 0) {
      ThrowScheduleError("split", "factor " + std::to_string(f) + " for " + LoopName(loop) + " is not positive", func, {loop});
    }
    if (__builtin_mul_overflow(product, f, &product)) {
      ThrowScheduleError("split", "the product of the factors for " + LoopName(loop) + " overflows int64", func, {loop});
    }
  }
  if (product < *extent) {
    std::ostringstream os;
    os << "the product of the factors (" << product << ") is less than the extent of " << LoopName(loop) << " ("
       << *extent << ")";
    ThrowScheduleError("split", os.str(), func);
  }
  DataType t = loop->loop_var.dtype();
  std::vector<Var> vars;
  for (size_t i = 0; i < factors.size(); ++i) vars.emplace_back(loop->loop_var->name_hint + "_" + std::to_string(i), t);
  // old = sum_i vars[i] * prod(factors[i+1:])
  // strides[i] = prod(factors[i+1:]), as suffix products (linear in the number of factors).
  std::vector<int64_t> strides(factors.size(), 1);
  for (size_t i = factors.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * factors[i + 1];
  PrimExpr fused;
  for (size_t i = 0; i < factors.size(); ++i) {
    int64_t stride = strides[i];
    PrimExpr term = mul(vars[i], IntImm(t, stride));
    if (factors[i] == 1 && !preserve_unit_iters) term = IntImm(t, 0);
    fused = fused.defined() ? add(fused, term) : term;
  }
  const VarNode* old = loop->loop_var.get();
  Stmt body = Substitute(loop->body, [&](const Var& v) -> std::optional<PrimExpr> {
    if (v.get() == old) return fused;
    return std::nullopt;
  });
  if (product > *extent && !disable_predication) body = PredicateAdder(less(fused, IntImm(t, *extent))).VisitStmt(body);
  body = FoldBindingConstants(body);  // a unit loop replaced by 0 leaves `0 * 6`
  Stmt result = body;
  for (size_t i = factors.size(); i-- > 0;) {
    if (factors[i] == 1 && !preserve_unit_iters) continue;
    result = For(vars[i], IntImm(t, 0), IntImm(t, factors[i]), i == 0 ? loop->kind : ForKind::kSerial, result,
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
  int64_t total = 1;
  DataType t = loops[0]->loop_var.dtype();
  for (const ForNode* l : loops) {
    const int64_t* e = AsConstInt(l->extent);
    if (e == nullptr || !IsConstInt(l->min, 0)) {
      ThrowScheduleError("fuse", LoopName(l) + " must start at 0 and have a constant extent", func, {l});
    }
    if (l->loop_var.dtype() != t) ThrowScheduleError("fuse", "the loops have different index dtypes", func);
    total *= *e;
    name += l->loop_var->name_hint + "_";
  }
  Var fused(name + "fused", t);
  std::unordered_map<const VarNode*, PrimExpr> vmap;
  int64_t inner = 1;
  for (size_t i = loops.size(); i-- > 0;) {
    int64_t e = *AsConstInt(loops[i]->extent);
    PrimExpr v = inner == 1 ? PrimExpr(fused) : floordiv(fused, IntImm(t, inner));
    if (i != 0) v = floormod(v, IntImm(t, e));
    if (e == 1 && !preserve_unit_iters) v = IntImm(t, 0);  // a unit loop only ever takes the value 0
    vmap[loops[i]->loop_var.get()] = v;
    inner *= e;
  }
  Stmt body = Substitute(loops.back()->body, [&](const Var& v) -> std::optional<PrimExpr> {
    auto it = vmap.find(v.get());
    if (it == vmap.end()) return std::nullopt;
    return it->second;
  });
  body = FoldBindingConstants(body);  // a unit loop replaced by 0 leaves `0 * 6`
  *fused_var = fused;
  return ReplaceInFunc(func, loops[0], For(fused, IntImm(t, 0), IntImm(t, total), ForKind::kSerial, body));
}

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
      return AsOutputs(sch.Split(in.at_any(0).cast<LoopRV>(), in.at_any(1).cast<Array<Any>>(),
                                 attrs.at_any(0).cast<bool>(), disable_predication));
    })
    .set_as_python(PythonCall("split", {"loop", "factors"}, {"preserve_unit_iters", "disable_predication"},
                              /*returns_list=*/true));
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
  std::vector<int64_t> values;
  int none_at = -1;
  for (size_t i = 0; i < factors.size(); ++i) {
    const Any& a = factors.at_any(i);
    if (a.is_none()) {
      if (none_at >= 0) ThrowScheduleError("split", "at most one factor may be None", f);
      none_at = static_cast<int>(i);
      values.push_back(1);
    } else if (a.kind() == Any::Kind::kInt) {
      values.push_back(a.cast<int64_t>());
    } else if (const auto* imm = a.as<IntImmNode>()) {
      values.push_back(imm->value);
    } else if (a.is_object() && get()->values.count(a.raw_object().get())) {
      values.push_back(get()->values.at(a.raw_object().get()));
    } else {
      ThrowScheduleError("split", "factor " + std::to_string(i) + " is a " + a.type_name() +
                                      ", not an integer, None or a sampled value of this schedule",
                         f);
    }
  }
  if (none_at >= 0) {
    if (extent == nullptr) ThrowScheduleError("split", "cannot infer a factor of a loop with a symbolic extent", f);
    int64_t known = 1;
    for (int64_t v : values) known *= v;
    if (known <= 0) ThrowScheduleError("split", "factors must be positive", f);
    values[static_cast<size_t>(none_at)] = (*extent + known - 1) / known;
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
