// VectorizeLoop (see vectorize_loop.h).
#include "tir/transform/vectorize_loop.h"

#include <unordered_map>
#include <utility>
#include <vector>

#include "arith/analyzer.h"
#include "tir/functor.h"
#include "tir/schedule/analysis.h"
#include "tir/op.h"
#include "runtime/registry.h"
#include "arith/analyzer.h"
#include "tir/schedule/analysis.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace tir {
namespace {

// Raised internally when a body cannot be vectorized; caught by the pass.
struct CannotVectorize {};

bool IsVector(const PrimExpr& e) { return e.dtype().lanes() > 1; }

// The loops enclosing a vectorized loop (itself included): each loop variable's range.
using LoopRanges = std::vector<std::pair<Var, Range>>;

// Rewrites a loop body for `lanes` consecutive values of `var` starting at `base`.
class BodyVectorizer : public StmtExprMutator {
 public:
  BodyVectorizer(Var var, PrimExpr base, int lanes, const LoopRanges* loops = nullptr)
      : var_(std::move(var)), base_(std::move(base)), lanes_(lanes), loops_(loops) {}
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  PrimExpr VisitExpr_(const VarNode* op) override {
    if (op == var_.get()) return Ramp(cast(var_.dtype(), base_), IntImm(var_.dtype(), 1), lanes_);
    auto it = let_vars_.find(op);
    return it == let_vars_.end() ? GetRef<PrimExpr>(op) : it->second;
  }

  PrimExpr VisitExpr_(const AddNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsVector(a) && !IsVector(b)) return add(a, b);
    if (auto r = RampAdd(a, b, false)) return *r;
    return Add(Widen(a), Widen(b));
  }
  PrimExpr VisitExpr_(const SubNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsVector(a) && !IsVector(b)) return sub(a, b);
    if (auto r = RampAdd(a, b, true)) return *r;
    return Sub(Widen(a), Widen(b));
  }
  PrimExpr VisitExpr_(const MulNode* op) override {
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (!IsVector(a) && !IsVector(b)) return mul(a, b);
    const RampNode* ra = a.as<RampNode>();
    const RampNode* rb = b.as<RampNode>();
    if (ra && !IsVector(b)) return Ramp(mul(ra->base, b), mul(ra->stride, b), lanes_);
    if (rb && !IsVector(a)) return Ramp(mul(rb->base, a), mul(rb->stride, a), lanes_);
    return Mul(Widen(a), Widen(b));
  }
#define TESSERA_VEC_BINARY(Name, builder)                        \
  PrimExpr VisitExpr_(const Name##Node* op) override {           \
    PrimExpr a = VisitExpr(op->a), b = VisitExpr(op->b);         \
    if (!IsVector(a) && !IsVector(b)) return builder(a, b);      \
    return Name(Widen(a), Widen(b));                             \
  }
  TESSERA_VEC_BINARY(Div, truncdiv)
  TESSERA_VEC_BINARY(Mod, truncmod)
  TESSERA_VEC_BINARY(FloorDiv, floordiv)
  TESSERA_VEC_BINARY(FloorMod, floormod)
  TESSERA_VEC_BINARY(Min, min)
  TESSERA_VEC_BINARY(Max, max)
  TESSERA_VEC_BINARY(EQ, equal)
  TESSERA_VEC_BINARY(NE, not_equal)
  TESSERA_VEC_BINARY(LT, less)
  TESSERA_VEC_BINARY(LE, less_equal)
  TESSERA_VEC_BINARY(GT, greater)
  TESSERA_VEC_BINARY(GE, greater_equal)
  TESSERA_VEC_BINARY(And, logical_and)
  TESSERA_VEC_BINARY(Or, logical_or)
#undef TESSERA_VEC_BINARY

  PrimExpr VisitExpr_(const NotNode* op) override {
    PrimExpr a = VisitExpr(op->a);
    return IsVector(a) ? PrimExpr(Not(a)) : logical_not(a);
  }
  PrimExpr VisitExpr_(const CastNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    // An integer ramp widened (int32 -> int64 indices of a buffer with int64
    // shape) stays a ramp, so the access stays one contiguous vector load
    // instead of a gather.
    if (const auto* ramp = v.as<RampNode>();
        ramp != nullptr && op->dtype.is_int() && v.dtype().is_int() && op->dtype.bits() >= v.dtype().bits()) {
      return Ramp(cast(op->dtype, ramp->base), cast(op->dtype, ramp->stride), ramp->lanes);
    }
    return cast(op->dtype.with_lanes(v.dtype().lanes()), v);
  }
  PrimExpr VisitExpr_(const SelectNode* op) override {
    PrimExpr c = VisitExpr(op->condition), t = VisitExpr(op->true_value), f = VisitExpr(op->false_value);
    if (!IsVector(c) && !IsVector(t) && !IsVector(f)) return Select(c, t, f);
    return Select(Widen(c), Widen(t), Widen(f));
  }
  PrimExpr VisitExpr_(const LetNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    if (IsVector(v)) {
      Var nv(op->var->name_hint, v.dtype());
      let_vars_[op->var.get()] = nv;
      PrimExpr body = VisitExpr(op->body);
      return Let(nv, v, body);
    }
    PrimExpr body = VisitExpr(op->body);
    return Let(op->var, v, body);
  }
  PrimExpr VisitExpr_(const CallNode* op) override {
    bool changed = false;
    Array<PrimExpr> args = VisitExprs(op->args, &changed);
    bool any_vector = false;
    for (PrimExpr a : args) any_vector = any_vector || IsVector(a);
    if (!any_vector) return changed ? PrimExpr(Call(op->dtype, op->op, args)) : GetRef<PrimExpr>(op);
    const OpNode* callee = op->op.as<OpNode>();
    if (callee == nullptr || callee->name == "tir.call_extern" || callee->name == "tir.call_pure_extern" ||
        callee->name == "tir.call_packed") {
      throw CannotVectorize();
    }
    std::vector<PrimExpr> wide;
    if (callee->name == "tir.if_then_else") {
      // The condition picks which side is evaluated: it must stay scalar.
      if (IsVector(args[0])) throw CannotVectorize();
      return Call(op->dtype.with_lanes(lanes_), op->op, {args[0], Widen(args[1]), Widen(args[2])});
    }
    // Names (and checked_index's negative_from_end flag) stay scalar.
    const bool flags_scalar = callee->name == "tir.checked_index";
    for (size_t k = 0; k < args.size(); ++k) {
      const PrimExpr& a = args[k];
      wide.push_back(a.as<StringImmNode>() || (flags_scalar && k == 3) ? a : Widen(a));
    }
    return Call(op->dtype.with_lanes(lanes_), op->op, Array<PrimExpr>(wide));
  }
  // A flat index over a fused loop read back through // and % (the y*W + x of
  // a fused spatial tile, flattened to (.. + f // W) * W + f % W) simplified
  // to f first, so the access stays one contiguous vector, not a gather. The
  // enclosing loops' ranges are known to the simplifier: a reshape+transpose's
  // ((s * H + h) * D + d) // (H * D) is s only when h < H and d < D.
  Array<PrimExpr> FoldDivMod(const Array<PrimExpr>& indices) {
    Array<PrimExpr> out;
    for (const PrimExpr& i : indices) {
      bool divmod = false;
      PostOrderVisit(i, [&](const ObjectRef& o) { divmod = divmod || o.as<FloorDivNode>() || o.as<FloorModNode>(); });
      if (!divmod || !UsesVar(i, var_.get())) {
        out.push_back(i);
        continue;
      }
      arith::Analyzer ana;
      if (loops_ != nullptr) {
        for (const auto& [v, r] : *loops_) ana.Bind(v, r, /*allow_override=*/true);
      }
      out.push_back(ana.Simplify(i));
    }
    return out;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(FoldDivMod(op->indices), &changed);
    if (!changed) return GetRef<PrimExpr>(op);
    return BufferLoad(op->buffer, idx);
  }
  PrimExpr VisitExpr_(const RampNode*) override { throw CannotVectorize(); }
  PrimExpr VisitExpr_(const BroadcastNode*) override { throw CannotVectorize(); }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    bool changed = false;
    Array<PrimExpr> idx = VisitExprs(FoldDivMod(op->indices), &changed);
    PrimExpr value = VisitExpr(op->value);
    bool vector_index = false;
    for (PrimExpr i : idx) vector_index = vector_index || IsVector(i);
    // All lanes writing one location (e.g. a reduction over the vector axis) is not vectorizable.
    if (!vector_index) {
      if (IsVector(value)) throw CannotVectorize();
      return BufferStore(op->buffer, value, idx);
    }
    return BufferStore(op->buffer, Widen(value), idx);
  }
  Stmt VisitStmt_(const IfThenElseNode* op) override {
    PrimExpr c = VisitExpr(op->condition);
    if (IsVector(c)) throw CannotVectorize();
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const LetStmtNode* op) override {
    PrimExpr v = VisitExpr(op->value);
    if (IsVector(v)) throw CannotVectorize();
    return LetStmt(op->var, v, VisitStmt(op->body));
  }
  Stmt VisitStmt_(const ForNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const WhileNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const AllocateNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const BlockNode*) override { throw CannotVectorize(); }
  Stmt VisitStmt_(const BlockRealizeNode*) override { throw CannotVectorize(); }

 private:
  PrimExpr Widen(const PrimExpr& e) { return IsVector(e) ? e : PrimExpr(Broadcast(e, lanes_)); }
  std::optional<PrimExpr> RampAdd(const PrimExpr& a, const PrimExpr& b, bool subtract) {
    const RampNode* ra = a.as<RampNode>();
    const RampNode* rb = b.as<RampNode>();
    auto op = [&](PrimExpr x, PrimExpr y) { return subtract ? sub(x, y) : add(x, y); };
    if (ra && !IsVector(b)) return PrimExpr(Ramp(op(ra->base, b), ra->stride, lanes_));
    if (rb && !IsVector(a)) {
      return PrimExpr(Ramp(op(a, rb->base), subtract ? neg(rb->stride) : rb->stride, lanes_));
    }
    if (ra && rb) return PrimExpr(Ramp(op(ra->base, rb->base), op(ra->stride, rb->stride), lanes_));
    return std::nullopt;
  }

  Var var_;
  PrimExpr base_;
  int lanes_;
  const LoopRanges* loops_;
  std::unordered_map<const VarNode*, PrimExpr> let_vars_;
};

constexpr int kMaxLanes = 16;

std::optional<Stmt> TryVectorizeBody(const Stmt& body, const Var& var, const PrimExpr& base, int lanes,
                                     const LoopRanges* loops) {
  try {
    return BodyVectorizer(var, base, lanes, loops).VisitStmt(body);
  } catch (const CannotVectorize&) {
    return std::nullopt;
  }
}

// The `if_then_else` conditions of a body that vary along the vector loop
// `var`: each must be a conjunction of comparisons (< <= > >=) between
// values linear in `var` (a ramp or a scalar once vectorized), so that the
// lanes where it holds are one interval and it holds in every lane of a
// chunk exactly when it holds in the first and the last. Replaces such
// calls by their true branch; `ok` is false when another kind varies.
class LinearGuards : public StmtExprMutator {
 public:
  LinearGuards(Var var, PrimExpr base, int lanes) : var_(std::move(var)), base_(std::move(base)), lanes_(lanes) {}
  using StmtExprMutator::VisitExpr_;
  PrimExpr VisitExpr_(const CallNode* op) override {
    const OpNode* callee = op->op.as<OpNode>();
    if (callee == nullptr || callee->name != "tir.if_then_else" || op->args.size() != 3 || !UsesVar(op->args[0], var_.get())) {
      return StmtExprMutator::VisitExpr_(op);
    }
    for (const PrimExpr& c : SplitConjuncts(op->args[0])) {
      PrimExpr a, b;
      if (const auto* n = c.as<LTNode>()) a = n->a, b = n->b;
      else if (const auto* n = c.as<LENode>()) a = n->a, b = n->b;
      else if (const auto* n = c.as<GTNode>()) a = n->a, b = n->b;
      else if (const auto* n = c.as<GENode>()) a = n->a, b = n->b;
      else if (!UsesVar(c, var_.get())) a = b = c;
      else ok = false;
      if (!ok) break;
      if (!Linear(a) || !Linear(b)) {
        ok = false;
        break;
      }
    }
    if (!ok) return StmtExprMutator::VisitExpr_(op);
    conditions.push_back(op->args[0]);
    return VisitExpr(op->args[1]);
  }
  bool ok = true;
  std::vector<PrimExpr> conditions;

 private:
  bool Linear(const PrimExpr& e) {
    if (!e.dtype().is_int() && !e.dtype().is_uint() && !e.dtype().is_bool()) return !UsesVar(e, var_.get());
    try {
      PrimExpr v = BodyVectorizer(var_, base_, lanes_).VisitExpr(e);
      return !IsVector(v) || v.as<RampNode>() != nullptr;
    } catch (const CannotVectorize&) {
      return false;
    }
  }
  Var var_;
  PrimExpr base_;
  int lanes_;
};

// Whether every vector access of `s` is one contiguous block (a ramp of
// stride 1 in its last index): a guarded body whose vector form scatters or
// gathers (a deinterleaved store, w % 2 and w / 2) measured slower than its
// scalar loop.
bool Contiguous(const Stmt& s) {
  bool ok = true;
  auto check = [&](const Array<PrimExpr>& idx) {
    for (size_t d = 0; d < idx.size(); ++d) {
      if (!IsVector(idx[d])) continue;
      const auto* ramp = idx[d].as<RampNode>();
      const int64_t* stride = ramp != nullptr ? AsConstInt(ramp->stride) : nullptr;
      ok = ok && d + 1 == idx.size() && stride != nullptr && *stride == 1;
    }
  };
  PostOrderVisit(s, [&](const ObjectRef& n) {
    if (const auto* load = n.as<BufferLoadNode>()) check(load->indices);
    if (const auto* store = n.as<BufferStoreNode>()) check(store->indices);
  });
  return ok;
}

// `lanes` consecutive iterations of `body` from `base` as one vector
// statement, or, when lane-varying `if_then_else` conditions stand in the
// way and are linear (LinearGuards), as
//   if (every condition holds at the first and the last lane) vector body
//   with those calls taking their true branch; else the scalar iterations
// (a padding stage's interior rows and columns run as vectors, its border
// chunks scalar).
std::optional<Stmt> TryVectorize(const Stmt& body, const Var& var, const PrimExpr& base, int lanes,
                                 const LoopRanges* loops) {
  if (auto v = TryVectorizeBody(body, var, base, lanes, loops)) return v;
  LinearGuards guards(var, base, lanes);
  Stmt taken = guards.VisitStmt(body);
  if (!guards.ok || guards.conditions.empty()) return std::nullopt;
  std::optional<Stmt> vec = TryVectorizeBody(taken, var, base, lanes, loops);
  if (!vec || !Contiguous(*vec)) return std::nullopt;
  DataType t = var.dtype();
  PrimExpr last = add(base, IntImm(t, lanes - 1));
  PrimExpr guard;
  for (const PrimExpr& c : guards.conditions) {
    for (const PrimExpr& at : {base, last}) {
      PrimExpr one = Substitute(c, [&](const Var& x) -> std::optional<PrimExpr> {
        if (x.same_as(var)) return at;
        return std::nullopt;
      });
      guard = guard.defined() ? logical_and(guard, one) : one;
    }
  }
  arith::Analyzer ana;
  guard = ana.Simplify(guard);
  if (const int64_t* c = AsConstInt(guard)) {
    if (*c == 0) return std::nullopt;  // never all lanes: the scalar loop
    return *vec;
  }
  Var lane(var->name_hint, t);
  Stmt scalar = For(lane, base, IntImm(t, lanes), ForKind::kSerial, Substitute(body, [&](const Var& x) -> std::optional<PrimExpr> {
    if (x.same_as(var)) return PrimExpr(lane);
    return std::nullopt;
  }));
  return IfThenElse(guard, *vec, scalar);
}

class LoopVectorizer : public StmtExprMutator {
 public:
  // With `serial_only`, vectorized loops just become serial loops
  // (PassContext config tir.disable_vectorize, as TVM's VectorizeSkipper).
  // With `loop_ranges` false, index simplification does not see the enclosing loops' ranges
  // (PassContext config tir.vectorize_loop_ranges: the behaviour before it, to measure it).
  explicit LoopVectorizer(bool serial_only = false, bool loop_ranges = true)
      : serial_only_(serial_only), loop_ranges_(loop_ranges) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const ForNode* op) override {
    loops_.emplace_back(op->loop_var, Range::FromMinExtent(op->min, op->extent));
    Stmt out = Visit(op);
    loops_.pop_back();
    return out;
  }

 private:
  Stmt Visit(const ForNode* op) {
    Stmt inner = StmtExprMutator::VisitStmt_(op);
    const auto* loop = inner.as<ForNode>();
    if (loop == nullptr || loop->kind != ForKind::kVectorized) return inner;
    For serial = GetRef<For>(loop);
    serial.CopyOnWrite()->kind = ForKind::kSerial;
    if (serial_only_) return serial;
    const int64_t* ext = AsConstInt(loop->extent);
    if (ext == nullptr || *ext <= 1) return serial;
    int64_t n = *ext;
    if (n <= kMaxLanes) {
      if (auto v = TryVectorize(loop->body, loop->loop_var, loop->min, static_cast<int>(n), Loops())) return *v;
      return serial;
    }
    // Vector body over chunks of kMaxLanes, then a scalar tail.
    int64_t chunks = n / kMaxLanes, tail = n % kMaxLanes;
    DataType t = loop->loop_var.dtype();
    Var outer(loop->loop_var->name_hint + "_vo", t);
    PrimExpr chunk_base = add(loop->min, mul(outer, IntImm(t, kMaxLanes)));
    auto v = TryVectorize(loop->body, loop->loop_var, chunk_base, kMaxLanes, Loops());
    if (!v) return serial;
    Stmt vec_loop = For(outer, IntImm(t, 0), IntImm(t, chunks), ForKind::kSerial, *v);
    if (tail == 0) return vec_loop;
    Stmt tail_loop = For(loop->loop_var, add(loop->min, IntImm(t, chunks * kMaxLanes)), IntImm(t, tail),
                         ForKind::kSerial, loop->body);
    return SeqStmt::Flatten({vec_loop, tail_loop});
  }

  const LoopRanges* Loops() const { return loop_ranges_ ? &loops_ : nullptr; }

  bool serial_only_;
  bool loop_ranges_;
  LoopRanges loops_;  // the loops enclosing the one visited, outermost first
};

}  // namespace

PrimFunc VectorizeLoop(PrimFunc func, bool enable_vectorize, bool loop_ranges) {
  Stmt body = LoopVectorizer(!enable_vectorize, loop_ranges).VisitStmt(func->body);
  if (body.same_as(func->body)) return func;
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

TESSERA_REGISTER_PASS_CONFIG_OPTION("tir.disable_vectorize", bool);
TESSERA_REGISTER_PASS_CONFIG_OPTION("tir.vectorize_loop_ranges", bool);

tessera::transform::Pass VectorizeLoop(bool enable_vectorize) {
  return CreatePrimFuncPass(
      [enable_vectorize](PrimFunc f, IRModule, PassContext ctx) {
        bool disabled = ctx->GetConfig<bool>("tir.disable_vectorize", false);
        bool ranges = ctx->GetConfig<bool>("tir.vectorize_loop_ranges", true);
        return tir::VectorizeLoop(f, enable_vectorize && !disabled, ranges);
      },
      0, "VectorizeLoop");
}
TESSERA_REGISTER_PASS("tir.transform.VectorizeLoop", [] { return VectorizeLoop(); });
TESSERA_REGISTER_GLOBAL("tir.transform.VectorizeLoopWith").set_body_typed([](bool enable) { return VectorizeLoop(enable); });

}  // namespace transform

}  // namespace tir
}  // namespace tessera
