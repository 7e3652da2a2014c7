// CompactBufferAllocation (see compact_buffer_allocation.h).
#include "tir/transform/compact_buffer_allocation.h"

#include "tir/transform/prim_func_pass.h"

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
  void VisitExpr_(const BufferLoadNode* op) override {
    accesses[op->buffer->data.get()].push_back({loops_, op->indices});
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    accesses[op->buffer->data.get()].push_back({loops_, op->indices});
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
      out.push_back(IsConstInt(p.mins[d], 0) ? idx[d] : analyzer_.Simplify(sub(idx[d], p.mins[d])));
    }
    return Array<PrimExpr>(out);
  }
  arith::Analyzer analyzer_;
  std::unordered_map<const VarNode*, Plan> plans_;
  std::unordered_map<const ForNode*, std::vector<const Plan*>> by_loop_;
};

// The region of `buffer` the accesses touch, per dimension, with the loops at
// positions >= `level` of each access's loop stack relaxed to their ranges and
// the loops above kept as symbols (bound in `ana`). Empty when a dimension
// cannot be bounded (vector indices).
std::vector<arith::IntSet> AccessedRegion(const std::vector<Access>& accesses, size_t ndim, size_t level,
                                          arith::Analyzer* ana) {
  const std::vector<const ForNode*>& outer = accesses[0].loops;
  for (size_t k = 0; k < level; ++k) ana->Bind(outer[k]->loop_var, Range::FromMinExtent(outer[k]->min, outer[k]->extent), true);
  std::vector<arith::IntSet> dims(ndim, arith::IntSet::Nothing());
  for (const Access& a : accesses) {
    std::unordered_map<const Object*, arith::IntSet> dom;
    for (size_t k = level; k < a.loops.size(); ++k) {
      ana->Bind(a.loops[k]->loop_var, Range::FromMinExtent(a.loops[k]->min, a.loops[k]->extent), true);
      dom[a.loops[k]->loop_var.get()] = arith::IntSet::FromMinExtent(a.loops[k]->min, a.loops[k]->extent);
    }
    for (size_t d = 0; d < ndim; ++d) {
      if (a.indices[d].dtype().lanes() > 1) return {};
      dims[d] = arith::Union({dims[d], arith::EvalSet(a.indices[d], dom, ana)}, ana);
    }
  }
  return dims;
}

// The same over the row-major offset of the region's first element, for a
// loop fused from several (its indices are `f // c`, `f % c` expressions,
// none moving by a constant stride alone): disjoint when that offset moves by
// a constant stride at least the region's row-major span. Constant shapes only.
bool FlatIterationsDisjoint(const std::vector<arith::IntSet>& dims, const Array<PrimExpr>& shape, const Var& v,
                            arith::Analyzer* ana) {
  DataType t = v.dtype();
  PrimExpr first = IntImm(t, 0);
  int64_t stride = 1, span = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    std::optional<int64_t> extent = ConstIntValue(shape[d]);
    if (!extent || !dims[d].HasLowerBound() || !dims[d].HasUpperBound()) return false;
    PrimExpr lo = cast(t, dims[d].min());
    first = add(first, mul(lo, IntImm(t, stride)));
    auto width = ana->const_int_bound(ana->Simplify(sub(cast(t, dims[d].max()), lo)));
    if (width->max_value < 0 || width->max_value >= *extent) return false;
    span += width->max_value * stride;
    stride *= *extent;
  }
  first = ana->Simplify(first);
  PrimExpr next = Substitute(first, [&](const Var& x) -> std::optional<PrimExpr> {
    if (x.same_as(v)) return add(v, IntImm(t, 1));
    return std::nullopt;
  });
  std::optional<int64_t> step = ConstIntValue(ana->Simplify(sub(next, first)));
  return step && *step != 0 && (*step < 0 ? -*step : *step) >= span;
}

// Whether no element of the buffer is accessed in two different iterations of
// the common loop at position `m` (so that nothing written in one iteration is
// read in another, and the buffer may be allocated afresh in each). Shown by
// one dimension whose accessed interval moves by a constant stride c per
// iteration and is never wider than |c|. A reduction's accumulator, accessed
// at the same element in every step of the reduction loop, is not: its
// allocation must stay above that loop.
bool IterationsDisjoint(const std::vector<Access>& accesses, const Array<PrimExpr>& shape, size_t m) {
  const size_t ndim = shape.size();
  arith::Analyzer ana;
  std::vector<arith::IntSet> dims = AccessedRegion(accesses, ndim, m + 1, &ana);
  if (dims.empty()) return false;
  const ForNode* loop = accesses[0].loops[m];
  Var v = loop->loop_var;
  if (FlatIterationsDisjoint(dims, shape, v, &ana)) return true;
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
  return false;
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
    size_t level = depth;
    while (level < common && IterationsDisjoint(accesses, buffer->shape, level)) ++level;
    arith::Analyzer ana;
    std::vector<arith::IntSet> dims = AccessedRegion(accesses, ndim, level, &ana);
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
    if (!shrinks) {
      // Same size: keep it where it is.
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
