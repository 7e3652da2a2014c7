// CompactBufferAllocation (see compact_buffer_allocation.h).
#include "tir/transform/compact_buffer_allocation.h"

#include "tir/transform/prim_func_pass.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "arith/analyzer.h"
#include "arith/int_set.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

struct Access {
  std::vector<const ForNode*> loops;  // enclosing loops, outermost first
  Array<PrimExpr> indices;
  std::vector<PrimExpr> conditions;  // enclosing IfThenElse conditions (then branches)
};

// Collects, for each buffer declared by DeclBuffer, every access with its loop stack.
class AccessCollector : public StmtExprVisitor {
 public:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ForNode* op) override {
    VisitExpr(op->min);
    VisitExpr(op->extent);
    loops_.push_back(op);
    VisitStmt(op->body);
    loops_.pop_back();
  }
  void VisitStmt_(const DeclBufferNode* op) override {
    declared[op->buffer->data.get()] = op->buffer;
    decl_depth[op->buffer->data.get()] = loops_.size();
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const IfThenElseNode* op) override {
    VisitExpr(op->condition);
    conditions_.push_back(op->condition);
    VisitStmt(op->then_case);
    conditions_.pop_back();
    if (op->else_case) VisitStmt(*op->else_case);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    accesses[op->buffer->data.get()].push_back({loops_, op->indices, conditions_});
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    accesses[op->buffer->data.get()].push_back({loops_, op->indices, conditions_});
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const CallNode* op) override {
    // Pointers handed to external code: keep those buffers as they are.
    for (PrimExpr a : op->args)
      if (const auto* v = a.as<VarNode>()) escaped.insert(v);
    StmtExprVisitor::VisitExpr_(op);
  }
  std::unordered_map<const VarNode*, Buffer> declared;
  std::unordered_map<const VarNode*, size_t> decl_depth;
  std::unordered_map<const VarNode*, std::vector<Access>> accesses;
  std::unordered_set<const VarNode*> escaped;

 private:
  std::vector<const ForNode*> loops_;
  std::vector<PrimExpr> conditions_;
};

struct Plan {
  Buffer old_buffer, new_buffer;
  const ForNode* lca = nullptr;  // allocate inside this loop's body (nullptr: keep the place)
  std::vector<PrimExpr> mins;
};

class Rewriter : public StmtExprMutator {
 public:
  explicit Rewriter(std::unordered_map<const VarNode*, Plan> plans) : plans_(std::move(plans)) {
    for (auto& [v, p] : plans_)
      if (p.lca) by_loop_[p.lca].push_back(&p);
  }
  using StmtExprMutator::VisitExpr_;
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const AllocateNode* op) override {
    auto it = plans_.find(op->buffer_var.get());
    if (it == plans_.end()) return StmtExprMutator::VisitStmt_(op);
    Stmt body = VisitStmt(op->body);
    if (it->second.lca != nullptr) return body;  // re-allocated at its loop
    return Allocate(op->buffer_var, op->dtype, it->second.new_buffer->shape, op->condition, body, op->annotations);
  }
  Stmt VisitStmt_(const DeclBufferNode* op) override {
    auto it = plans_.find(op->buffer->data.get());
    if (it == plans_.end()) return StmtExprMutator::VisitStmt_(op);
    Stmt body = VisitStmt(op->body);
    if (it->second.lca != nullptr) return body;
    return DeclBuffer(it->second.new_buffer, body);
  }
  Stmt VisitStmt_(const ForNode* op) override {
    // The loop's range lets the shifted indices simplify (a fused loop's
    // v // c is 0 and v % c is v when v < c).
    analyzer_.Bind(op->loop_var, Range::FromMinExtent(op->min, op->extent), true);
    Stmt s = StmtExprMutator::VisitStmt_(op);
    auto it = by_loop_.find(op);
    if (it == by_loop_.end()) return s;
    For f = Downcast<For>(s);
    Stmt body = f->body;
    for (const Plan* p : it->second) {
      body = DeclBuffer(p->new_buffer, body);
      body = Allocate(p->new_buffer->data, p->new_buffer->dtype, p->new_buffer->shape, IntImm(DataType::Bool(), 1), body);
    }
    f.CopyOnWrite()->body = body;
    return f;
  }
  PrimExpr VisitExpr_(const BufferLoadNode* op) override {
    PrimExpr e = StmtExprMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    auto it = plans_.find(load->buffer->data.get());
    if (it == plans_.end()) return e;
    return BufferLoad(it->second.new_buffer, Shift(load->indices, it->second), load->span);
  }
  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = StmtExprMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    auto it = plans_.find(store->buffer->data.get());
    if (it == plans_.end()) return s;
    return BufferStore(it->second.new_buffer, store->value, Shift(store->indices, it->second), store->span);
  }

 private:
  // Indices relative to the compacted region (simplified: `i - i` is 0).
  Array<PrimExpr> Shift(const Array<PrimExpr>& idx, const Plan& p) {
    std::vector<PrimExpr> out;
    for (size_t d = 0; d < idx.size(); ++d) {
      out.push_back(analyzer_.Simplify(IsConstInt(p.mins[d], 0) ? idx[d] : sub(idx[d], p.mins[d])));
    }
    return Array<PrimExpr>(out);
  }
  arith::Analyzer analyzer_;
  std::unordered_map<const VarNode*, Plan> plans_;
  std::unordered_map<const ForNode*, std::vector<const Plan*>> by_loop_;
};

// `set` (the values of `index`) narrowed by the guards `conditions` around the
// access: a conjunct `a < b` (<=, >, >=) bounds index = a + (index - a) by
// b - 1 + (index - a), which is tight when index - a simplifies (a cooperative
// fetch's `if ax0_0 * 128 + ax0_1 < 130` keeps its stores within 130 elements).
arith::IntSet NarrowByConditions(arith::IntSet set, const PrimExpr& index, const std::vector<PrimExpr>& conditions,
                                 const std::unordered_map<const Object*, arith::IntSet>& dom, arith::Analyzer* ana) {
  std::vector<PrimExpr> conjuncts(conditions.begin(), conditions.end());
  for (size_t i = 0; i < conjuncts.size(); ++i) {
    PrimExpr c = conjuncts[i];
    if (const auto* n = c.as<AndNode>()) {
      conjuncts.push_back(n->a);
      conjuncts.push_back(n->b);
      continue;
    }
    // small < big - slack, i.e. small <= big - slack - 1 (slack 0 for <=).
    PrimExpr small, big;
    int64_t slack = 0;
    if (const auto* n = c.as<LTNode>()) small = n->a, big = n->b, slack = 1;
    else if (const auto* n = c.as<LENode>()) small = n->a, big = n->b;
    else if (const auto* n = c.as<GTNode>()) small = n->b, big = n->a, slack = 1;
    else if (const auto* n = c.as<GENode>()) small = n->b, big = n->a;
    else continue;
    if (small.dtype() != index.dtype() || big.dtype() != index.dtype()) continue;
    PrimExpr one = IntImm(index.dtype(), slack);
    // index = small + d <= big - slack + d; index = big + d >= small + slack + d.
    PrimExpr d_small = ana->Simplify(sub(index, small));
    // (Sound for any d: the bound holds pointwise, so its range over `dom`
    // does.) Taken only where it is provably tighter by a constant, so that
    // the extent stays what it was or becomes a smaller constant.
    PrimExpr hi = arith::EvalSet(ana->Simplify(add(sub(big, one), sub(index, small))), dom, ana).max();
    PrimExpr lo = arith::EvalSet(ana->Simplify(add(add(small, one), sub(index, big))), dom, ana).min();
    PrimExpr mn = set.min(), mx = set.max();
    if (set.HasUpperBound() && !arith::IsPosInf(hi)) {
      std::optional<int64_t> d = ConstIntValue(ana->Simplify(sub(hi, mx)));
      if (d && *d < 0) mx = hi;
    }
    if (set.HasLowerBound() && !arith::IsNegInf(lo)) {
      std::optional<int64_t> d = ConstIntValue(ana->Simplify(sub(lo, mn)));
      if (d && *d > 0) mn = lo;
    }
    set = arith::IntSet::Interval(mn, mx);
  }
  return set;
}

// The region of `buffer` the accesses touch, per dimension, with the loops at
// positions >= `level` of each access's loop stack relaxed to their ranges, the
// loops above kept as symbols (bound in `ana`) except those in `relaxed` (thread
// loops whose threads share the buffer's storage scope, see ThreadRule). Empty
// when a dimension cannot be bounded (vector indices).
using LoopSet = std::unordered_set<const ForNode*>;
std::vector<arith::IntSet> AccessedRegion(const std::vector<Access>& accesses, size_t ndim, size_t level,
                                          arith::Analyzer* ana, const LoopSet& relaxed = {}) {
  const std::vector<const ForNode*>& outer = accesses[0].loops;
  for (size_t k = 0; k < level; ++k) ana->Bind(outer[k]->loop_var, Range::FromMinExtent(outer[k]->min, outer[k]->extent), true);
  std::vector<arith::IntSet> dims(ndim, arith::IntSet::Nothing());
  for (const Access& a : accesses) {
    std::unordered_map<const Object*, arith::IntSet> dom;
    for (size_t k = 0; k < a.loops.size(); ++k) {
      if (k < level && !relaxed.count(a.loops[k])) continue;
      ana->Bind(a.loops[k]->loop_var, Range::FromMinExtent(a.loops[k]->min, a.loops[k]->extent), true);
      dom[a.loops[k]->loop_var.get()] = arith::IntSet::FromMinExtent(a.loops[k]->min, a.loops[k]->extent);
    }
    for (size_t d = 0; d < ndim; ++d) {
      if (a.indices[d].dtype().lanes() > 1) return {};
      arith::IntSet set = arith::EvalSet(a.indices[d], dom, ana);
      if (!a.conditions.empty()) set = NarrowByConditions(set, a.indices[d], a.conditions, dom, ana);
      dims[d] = arith::Union({dims[d], set}, ana);
    }
  }
  return dims;
}

// `e` with the loop variable `v` set to `value`, folded to an integer when it
// reads no other variable (integer + - * floordiv floormod min max casts);
// std::nullopt otherwise. A direct fold: BoxesDisjoint calls it once per
// iteration and bound, thousands of times, where Simplify would be slow.
std::optional<int64_t> FoldAt(const PrimExpr& e, const VarNode* v, int64_t value) {
  if (const auto* imm = e.as<IntImmNode>()) return imm->value;
  if (e.get() == v) return value;
  if (const auto* c = e.as<CastNode>()) {
    if (!c->dtype.is_int() || c->dtype.lanes() != 1 || !c->value.dtype().is_int()) return std::nullopt;
    return FoldAt(c->value, v, value);  // indices fit their int64 here
  }
  auto binary = [&](const PrimExpr& a, const PrimExpr& b, auto op) -> std::optional<int64_t> {
    std::optional<int64_t> x = FoldAt(a, v, value);
    if (!x) return std::nullopt;
    std::optional<int64_t> y = FoldAt(b, v, value);
    if (!y) return std::nullopt;
    return op(*x, *y);
  };
  auto floordiv = [](int64_t x, int64_t y) -> std::optional<int64_t> {
    if (y == 0) return std::nullopt;
    int64_t q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  };
  if (const auto* n = e.as<AddNode>()) return binary(n->a, n->b, [](int64_t x, int64_t y) { return std::optional<int64_t>(x + y); });
  if (const auto* n = e.as<SubNode>()) return binary(n->a, n->b, [](int64_t x, int64_t y) { return std::optional<int64_t>(x - y); });
  if (const auto* n = e.as<MulNode>()) return binary(n->a, n->b, [](int64_t x, int64_t y) { return std::optional<int64_t>(x * y); });
  if (const auto* n = e.as<MinNode>()) return binary(n->a, n->b, [](int64_t x, int64_t y) { return std::optional<int64_t>(std::min(x, y)); });
  if (const auto* n = e.as<MaxNode>()) return binary(n->a, n->b, [](int64_t x, int64_t y) { return std::optional<int64_t>(std::max(x, y)); });
  if (const auto* n = e.as<FloorDivNode>()) return binary(n->a, n->b, floordiv);
  if (const auto* n = e.as<FloorModNode>()) {
    return binary(n->a, n->b, [&](int64_t x, int64_t y) -> std::optional<int64_t> {
      std::optional<int64_t> q = floordiv(x, y);
      if (!q) return std::nullopt;
      return x - *q * y;
    });
  }
  return std::nullopt;
}

// The bounds [lo, hi] of one dimension with the variables other than `v`
// (loops outside the one of `v`, e.g. a serial image loop around a parallel
// tile loop) set to 0, when that only takes away one shift common to lo and
// hi and independent of `v`: every iteration's interval then moves by the
// same amount, which keeps two intervals equal, overlapping or apart.
// std::nullopt when the shift depends on `v` or differs between lo and hi.
std::optional<std::pair<PrimExpr, PrimExpr>> WithoutOuterShift(const PrimExpr& lo, const PrimExpr& hi, const Var& v,
                                                               arith::Analyzer* ana) {
  bool outer = false;
  auto zero_outer = [&](const PrimExpr& e) {
    return Substitute(e, [&](const Var& x) -> std::optional<PrimExpr> {
      if (x.same_as(v)) return std::nullopt;
      outer = true;
      return IntImm(x.dtype(), 0);
    });
  };
  PrimExpr lo0 = zero_outer(lo), hi0 = zero_outer(hi);
  if (!outer) return std::make_pair(lo, hi);
  PrimExpr shift = ana->Simplify(sub(lo, lo0));
  bool uses_v = false;
  PostOrderVisit(shift, [&](const ObjectRef& n) { uses_v = uses_v || n.same_as(v); });
  std::optional<int64_t> diff = ConstIntValue(ana->Simplify(sub(sub(hi, hi0), shift)));
  if (uses_v || !diff || *diff != 0) return std::nullopt;
  return std::make_pair(ana->Simplify(lo0), ana->Simplify(hi0));
}

// For a loop whose accessed box is constant once `v` is fixed (a fused loop's
// v // c, v % c indices): whether the boxes of every two iterations are
// disjoint in some dimension. Up to kMaxCompared iterations every pair is
// compared; up to kMaxEnumerated (a fused parallel loop over batch x heads x
// column panels has thousands) it suffices that in each dimension two
// iterations' intervals are equal or apart, and no two boxes are equal.
constexpr int64_t kMaxCompared = 256;
constexpr int64_t kMaxEnumerated = 1 << 16;
bool BoxesDisjoint(const std::vector<arith::IntSet>& dims, const Var& v, const PrimExpr& extent, arith::Analyzer* ana) {
  std::optional<int64_t> n = ConstIntValue(extent);
  if (!n || *n < 2 || *n > kMaxEnumerated) return false;
  std::vector<PrimExpr> bounds;
  for (const arith::IntSet& d : dims) {
    if (!d.HasLowerBound() || !d.HasUpperBound()) return false;
    std::optional<std::pair<PrimExpr, PrimExpr>> own = WithoutOuterShift(ana->Simplify(d.min()), ana->Simplify(d.max()), v, ana);
    if (!own) return false;
    bounds.push_back(own->first);
    bounds.push_back(own->second);
  }
  using Box = std::vector<std::pair<int64_t, int64_t>>;
  std::vector<Box> boxes;
  boxes.reserve(static_cast<size_t>(*n));
  for (int64_t i = 0; i < *n; ++i) {
    Box box;
    for (size_t d = 0; d < dims.size(); ++d) {
      std::optional<int64_t> lo = FoldAt(bounds[2 * d], v.get(), i), hi = FoldAt(bounds[2 * d + 1], v.get(), i);
      if (!lo || !hi) return false;
      box.emplace_back(*lo, *hi);
    }
    boxes.push_back(std::move(box));
  }
  if (*n <= kMaxCompared) {
    for (size_t a = 0; a < boxes.size(); ++a) {
      for (size_t b = a + 1; b < boxes.size(); ++b) {
        bool apart = false;
        for (size_t d = 0; d < dims.size() && !apart; ++d) {
          apart = boxes[a][d].second < boxes[b][d].first || boxes[b][d].second < boxes[a][d].first;
        }
        if (!apart) return false;
      }
    }
    return true;
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<std::pair<int64_t, int64_t>> intervals;
    for (const Box& b : boxes) intervals.push_back(b[d]);
    std::sort(intervals.begin(), intervals.end());
    intervals.erase(std::unique(intervals.begin(), intervals.end()), intervals.end());
    for (size_t k = 1; k < intervals.size(); ++k) {
      if (intervals[k].first <= intervals[k - 1].second) return false;
    }
  }
  std::sort(boxes.begin(), boxes.end());
  return std::adjacent_find(boxes.begin(), boxes.end()) == boxes.end();
}

// Whether no element of the buffer is accessed in two different iterations of
// the common loop at position `m` (so that nothing written in one iteration is
// read in another, and the buffer may be allocated afresh in each). Shown by
// one dimension whose accessed interval moves by a constant stride c per
// iteration and is never wider than |c|. A reduction's accumulator, accessed
// at the same element in every step of the reduction loop, is not: its
// allocation must stay above that loop. Also shown, for a buffer of constant
// shape, by the row-major flattened interval (a fused loop's v // c, v % c
// indices move the flattened start by a constant stride).
bool IterationsDisjoint(const std::vector<Access>& accesses, const Array<PrimExpr>& shape, size_t m,
                        const LoopSet& relaxed) {
  size_t ndim = shape.size();
  const ForNode* loop = accesses[0].loops[m];
  if (std::optional<int64_t> extent = ConstIntValue(loop->extent); extent && *extent == 1) return true;  // one iteration
  arith::Analyzer ana;
  std::vector<arith::IntSet> dims = AccessedRegion(accesses, ndim, m + 1, &ana, relaxed);
  if (dims.empty()) return false;
  Var v = loop->loop_var;
  for (const arith::IntSet& set : dims) {
    if (!set.HasLowerBound() || !set.HasUpperBound()) continue;
    PrimExpr mn = set.min();
    PrimExpr next = Substitute(mn, [&](const Var& x) -> std::optional<PrimExpr> {
      if (x.same_as(v)) return add(v, IntImm(v.dtype(), 1));
      return std::nullopt;
    });
    PrimExpr step = ana.Simplify(sub(next, mn));
    const int64_t* stride = AsConstInt(step);
    if (stride == nullptr || *stride == 0) continue;
    auto width = ana.const_int_bound(ana.Simplify(add(sub(set.max(), set.min()), IntImm(set.min().dtype(), 1))));
    if (width->max_value <= (*stride < 0 ? -*stride : *stride)) return true;
  }
  if (ndim == 0 || !dims[0].HasLowerBound()) return false;
  if (BoxesDisjoint(dims, v, loop->extent, &ana)) return true;
  DataType t = dims[0].min().dtype();  // the indices' type (a cast would hide v // c * c + v % c = v)
  PrimExpr flat_min = IntImm(t, 0), flat_width = IntImm(t, 1);
  for (size_t d = 0; d < ndim; ++d) {
    std::optional<int64_t> extent = ConstIntValue(shape[d]);
    if (!extent || !dims[d].HasLowerBound() || !dims[d].HasUpperBound()) return false;
    PrimExpr lo = cast(t, dims[d].min()), hi = cast(t, dims[d].max());
    flat_min = add(mul(flat_min, IntImm(t, *extent)), lo);
    flat_width = add(mul(sub(flat_width, IntImm(t, 1)), IntImm(t, *extent)), add(sub(hi, lo), IntImm(t, 1)));
  }
  PrimExpr next = Substitute(flat_min, [&](const Var& x) -> std::optional<PrimExpr> {
    if (x.same_as(v)) return add(v, IntImm(v.dtype(), 1));
    return std::nullopt;
  });
  std::optional<int64_t> flat_stride = ConstIntValue(ana.Simplify(sub(next, flat_min)));
  if (!flat_stride || *flat_stride == 0) return false;
  auto flat = ana.const_int_bound(ana.Simplify(flat_width));
  return flat->max_value <= (*flat_stride < 0 ? -*flat_stride : *flat_stride);
}

// How a thread-bound loop between a buffer's declaration and its accesses
// treats the buffer, by storage scope (TVM's rule: a scope is shared by the
// threads of a rank at most its own; global 0, shared 1, local 3; blockIdx 0,
// threadIdx and vthread 1):
// - kFix: each iteration has its own copy; the allocation moves inside the
//   loop with the loop variable fixed (blockIdx under "shared"; every thread
//   loop under "local"), whether or not iterations overlap;
// - kRelax: the iterations share one copy; the allocation may move below the
//   loop, whose whole range the region then covers (threadIdx and vthread
//   under "shared");
// - kStop: the allocation stays above the loop ("global" memory is not
//   allocated inside a kernel).
// Serial loops (kSerial) keep the disjoint-iterations test.
enum class LoopRule { kSerial, kFix, kRelax, kStop };
LoopRule ThreadRule(const ForNode* loop, const std::string& scope) {
  if (loop->kind != ForKind::kThreadBinding || !loop->thread_binding.has_value()) return LoopRule::kSerial;
  const std::string& tag = (*loop->thread_binding)->thread_tag;
  bool block = tag.rfind("blockIdx", 0) == 0;
  bool thread = tag.rfind("threadIdx", 0) == 0 || tag.rfind("vthread", 0) == 0;
  if (!block && !thread) return LoopRule::kSerial;
  if (scope == "shared" || scope == "shared.dyn") return block ? LoopRule::kFix : LoopRule::kRelax;
  if (scope == "local" || scope == "warp") return LoopRule::kFix;
  return LoopRule::kStop;
}

}  // namespace

PrimFunc CompactBufferAllocation(PrimFunc func) {
  AccessCollector collector;
  collector.VisitStmt(func->body);
  std::unordered_map<const VarNode*, Plan> plans;
  for (const auto& [var, buffer] : collector.declared) {
    auto it = collector.accesses.find(var);
    if (it == collector.accesses.end() || collector.escaped.count(var)) continue;
    const std::vector<Access>& accesses = it->second;
    // Common loop prefix of all accesses (not above the declaration).
    size_t common = accesses[0].loops.size();
    for (const Access& a : accesses) {
      size_t k = 0;
      while (k < common && k < a.loops.size() && a.loops[k] == accesses[0].loops[k]) ++k;
      common = k;
    }
    size_t depth = collector.decl_depth[var];
    if (common < depth) continue;
    const size_t ndim = buffer->shape.size();
    // The buffer moves into the innermost common loop such that it and every
    // loop between it and the declaration touch disjoint elements in their
    // iterations (values never flow from one iteration to the next).
    // Thread-bound loops follow the storage scope's rule (ThreadRule); relaxed
    // loops directly above the allocation do not hold it (a "shared" buffer
    // used under blockIdx > threadIdx is allocated once per block, in the
    // blockIdx loop).
    size_t level = depth, place = depth;
    LoopSet relaxed;
    bool thread_fixed = false;
    for (; level < common; ++level) {
      const ForNode* loop = accesses[0].loops[level];
      LoopRule rule = ThreadRule(loop, buffer->scope);
      if (rule == LoopRule::kStop) break;
      if (rule == LoopRule::kRelax) {
        relaxed.insert(loop);
        continue;
      }
      if (rule == LoopRule::kSerial && !IterationsDisjoint(accesses, buffer->shape, level, relaxed)) break;
      thread_fixed = thread_fixed || rule == LoopRule::kFix;
      place = level + 1;
    }
    level = place;
    arith::Analyzer ana;
    std::vector<arith::IntSet> dims = AccessedRegion(accesses, ndim, level, &ana, relaxed);
    if (dims.empty()) continue;
    Plan plan;
    plan.old_buffer = buffer;
    std::vector<PrimExpr> shape;
    bool shrinks = false;
    bool ok = true;
    for (size_t d = 0; d < ndim; ++d) {
      if (!dims[d].HasLowerBound() || !dims[d].HasUpperBound()) {
        ok = false;
        break;
      }
      PrimExpr mn = ana.Simplify(dims[d].min());
      PrimExpr ext = ana.Simplify(add(sub(dims[d].max(), dims[d].min()), IntImm(dims[d].min().dtype(), 1)));
      const int64_t* c = AsConstInt(ext);
      if (c == nullptr && !ConstIntValue(buffer->shape[d])) {
        // A symbolic extent of a symbolic dimension (`n` of a buffer of n
        // rows): the dimension stays whole (its constant upper bound would
        // allocate the largest n the index type allows).
        plan.mins.push_back(IntImm(buffer->shape[d].dtype(), 0));
        shape.push_back(buffer->shape[d]);
        continue;
      }
      if (c == nullptr) {
        // A symbolic extent of a constant dimension: use its constant upper bound.
        auto bound = ana.const_int_bound(ext);
        if (bound->max_value >= arith::ConstIntBound::kPosInf) {
          ok = false;
          break;
        }
        ext = IntImm(ext.dtype(), bound->max_value);
        c = AsConstInt(ext);
      }
      std::optional<int64_t> full = ConstIntValue(buffer->shape[d]);
      if (full.has_value() && *c >= *full) {
        mn = IntImm(buffer->shape[d].dtype(), 0);
        ext = buffer->shape[d];
      } else {
        shrinks = true;
      }
      plan.mins.push_back(cast(buffer->shape[d].dtype(), mn));
      shape.push_back(cast(buffer->shape[d].dtype(), ext));
    }
    if (!ok || !buffer->strides.empty()) continue;
    const ForNode* lca = level > depth ? accesses[0].loops[level - 1] : nullptr;
    if (!shrinks && !thread_fixed) {
      // Same size: keep it where it is (a buffer private to a thread block or
      // thread still moves into its loop: it cannot be allocated outside the kernel).
      continue;
    }
    plan.lca = lca;
    plan.new_buffer = CopyAxisSeparators(
        buffer, Buffer(buffer->data, buffer->dtype, Array<PrimExpr>(shape), {}, buffer->elem_offset, buffer->name,
                       buffer->scope, buffer->data_alignment, buffer->offset_factor, buffer->span));
    plans.emplace(var, plan);
  }
  if (plans.empty()) return func;
  func.CopyOnWrite()->body = Rewriter(std::move(plans)).VisitStmt(func->body);
  return func;
}

namespace transform {

tessera::transform::Pass CompactBufferAllocation() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::CompactBufferAllocation(f); }, 0, "CompactBufferAllocation");
}
TESSERA_REGISTER_PASS("tir.transform.CompactBufferAllocation", CompactBufferAllocation);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
