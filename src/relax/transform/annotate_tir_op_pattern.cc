// AnnotateTIROpPattern: classifies each PrimFunc by how its blocks index
// their buffers and records the class as the int attribute "op_pattern"
// (OpPatternKind), which FuseOps reads. Per block, each load is compared
// with the block's store: same indices = elementwise, a subsequence of the
// store's iterators = broadcast, only store iterators = injective; a block
// that fits none is a reduction (multiply-accumulate or windowed: out-
// elementwise-fusable; pure: comm-reduce) or, without reduction, opaque. The
// function's class is the weakest of its blocks'; a reduction followed by a
// spatial output block (softmax, layer norm) is out-elementwise-fusable.
// Extern/packed calls, several distinct stores in one block, stores outside
// blocks and while loops make a function opaque.
#include <optional>
#include <unordered_set>

#include "arith/expr_deep_equal.h"
#include "ir/op.h"
#include "relax/transform/fusion.h"
#include "runtime/registry.h"
#include "tir/functor.h"

namespace tessera {
namespace relax {
namespace {

using namespace tir;  // NOLINT

OpPatternKind Weaker(OpPatternKind a, OpPatternKind b) { return a > b ? a : b; }

bool SameIndices(const Array<PrimExpr>& a, const Array<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!arith::ExprDeepEqual(a[i], b[i])) return false;
  }
  return true;
}

bool UsesVarIn(const PrimExpr& e, const std::function<bool(const VarNode*)>& pred) {
  bool found = false;
  tir::PostOrderVisit(e, [&](const ObjectRef& n) {
    if (const auto* v = n.as<VarNode>()) found = found || pred(v);
  });
  return found;
}

// The load reads the element the store writes; a unit dim of both buffers may
// be indexed 0 on the load side (x[0, j] of a (1, n) buffer into (1, n)).
bool IsElementwise(const BufferStoreNode* store, const BufferLoadNode* load) {
  if (load->indices.size() != store->indices.size()) return false;
  for (size_t i = 0; i < load->indices.size(); ++i) {
    if (arith::ExprDeepEqual(load->indices[i], store->indices[i])) continue;
    bool unit = i < load->buffer->shape.size() && i < store->buffer->shape.size() &&
                IsConstInt(load->buffer->shape[i], 1) && IsConstInt(store->buffer->shape[i], 1) &&
                IsConstInt(load->indices[i], 0);
    if (!unit) return false;
  }
  return true;
}

// Each non-unit load index is one of the store's indices, in the store's order.
bool IsBroadcast(const BufferStoreNode* store, const BufferLoadNode* load) {
  size_t j = 0;
  for (size_t i = 0; i < load->indices.size(); ++i) {
    if (i < load->buffer->shape.size() && IsConstInt(load->buffer->shape[i], 1) && IsConstInt(load->indices[i], 0)) {
      continue;  // B[0, j] of a (1, n) buffer
    }
    while (j < store->indices.size() && !store->indices[j].same_as(load->indices[i])) ++j;
    if (j == store->indices.size()) return false;
    ++j;
  }
  return true;
}

// The variables indexing the store, when each index is a plain variable.
std::optional<std::unordered_set<const VarNode*>> StoreVars(const BufferStoreNode* store) {
  std::unordered_set<const VarNode*> vars;
  for (const PrimExpr& idx : store->indices) {
    const auto* v = idx.as<VarNode>();
    if (v == nullptr) return std::nullopt;
    vars.insert(v);
  }
  return vars;
}

// The store is indexed by plain iterators and the load uses no others.
bool IsInjective(const BufferStoreNode* store, const BufferLoadNode* load) {
  auto vars = StoreVars(store);
  if (!vars) return false;
  for (const PrimExpr& idx : load->indices) {
    if (UsesVarIn(idx, [&](const VarNode* v) { return !vars->count(v); })) return false;
  }
  return true;
}

// Some iterator of the store does not index the load (the load's data is
// reused across it: A[i, k] in C[i, j] += A[i, k] * B[k, j]).
bool AllowsReuse(const BufferStoreNode* store, const BufferLoadNode* load) {
  auto vars = StoreVars(store);
  if (!vars) return false;
  for (const PrimExpr& idx : load->indices) {
    tir::PostOrderVisit(idx, [&](const ObjectRef& n) {
      if (const auto* v = n.as<VarNode>()) vars->erase(v);
    });
  }
  return !vars->empty();
}

PrimExpr StripCasts(PrimExpr e) {
  while (const auto* c = e.as<CastNode>()) e = c->value;
  return e;
}

// body is C[idx] = C[idx] + a * b (casts allowed around the product and its
// operands) with a and b loads each reused across an output iterator.
bool IsMultiplyAccumulate(const Stmt& body) {
  const auto* store = body.as<BufferStoreNode>();
  if (store == nullptr) return false;
  const auto* add = store->value.as<AddNode>();
  if (add == nullptr) return false;
  for (int side = 0; side < 2; ++side) {
    const auto* acc = (side == 0 ? add->a : add->b).as<BufferLoadNode>();
    PrimExpr other = StripCasts(side == 0 ? add->b : add->a);
    if (acc == nullptr || !acc->buffer.same_as(store->buffer) || !SameIndices(acc->indices, store->indices)) continue;
    const auto* mul = other.as<MulNode>();
    if (mul == nullptr) continue;
    const auto* a = StripCasts(mul->a).as<BufferLoadNode>();
    const auto* b = StripCasts(mul->b).as<BufferLoadNode>();
    if (a != nullptr && b != nullptr && AllowsReuse(store, a) && AllowsReuse(store, b)) return true;
  }
  return false;
}

// Every index using a reduction iterator is exactly that iterator.
bool IsPureReduce(const std::unordered_set<const VarNode*>& reduce_vars, const BufferLoadNode* load) {
  for (const PrimExpr& idx : load->indices) {
    if (!UsesVarIn(idx, [&](const VarNode* v) { return reduce_vars.count(v) > 0; })) continue;
    const auto* v = idx.as<VarNode>();
    if (v == nullptr || !reduce_vars.count(v)) return false;
  }
  return true;
}

bool IsOpaqueCall(const tir::CallNode* call) {
  const auto* op = call->op.as<OpNode>();
  if (op == nullptr) return true;  // a call of a function value
  const std::string& n = op->name;
  auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
  return starts("tir.call_") || starts("tir.tvm_") || starts("tir.ptx_") || n == "tir.address_of" ||
         n == "tir.lookup_param" || n == "tir.ret";
}

class PatternAnalyzer : public StmtExprVisitor {
 public:
  explicit PatternAnalyzer(const PrimFunc& func) {
    for (const Var& p : func->params) {
      if (auto buf = func->buffer_map.Get(p)) param_buffers_.insert(buf->get());
    }
  }
  OpPatternKind kind = kElemWise;

 private:
  using StmtExprVisitor::VisitExpr_;
  using StmtExprVisitor::VisitStmt_;

  void VisitStmt_(const BufferStoreNode* op) override {
    if (!in_block_) {
      kind = kOpaque;  // a store outside any block
    } else if (store_ != nullptr && !SameIndices(store_->indices, op->indices)) {
      kind = kOpaque;  // stores at different places in one block (a scan)
    } else if (store_ == nullptr) {
      store_ = op;
    }
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitExpr_(const BufferLoadNode* op) override {
    loads_.push_back(op);
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const tir::CallNode* op) override {
    if (IsOpaqueCall(op)) kind = kOpaque;
    StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const WhileNode* op) override {
    kind = kOpaque;
    StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockNode* op) override {
    if (op->iter_vars.empty() && op->name_hint == "root" && !in_block_) {
      VisitStmt(op->body);
      return;
    }
    const BufferStoreNode* outer_store = store_;
    std::vector<const BufferLoadNode*> outer_loads = std::move(loads_);
    bool outer_in_block = in_block_;
    store_ = nullptr;
    loads_.clear();
    in_block_ = true;
    VisitStmt(op->body);  // not the init: it only stores the identity
    ClassifyBlock(op);
    store_ = outer_store;
    loads_ = std::move(outer_loads);
    in_block_ = outer_in_block;
  }

  void ClassifyBlock(const BlockNode* op) {
    if (store_ == nullptr) {  // computes through an extern call, or nothing
      kind = kOpaque;
      return;
    }
    OpPatternKind index_kind = kElemWise;
    bool has_elemwise = false;
    for (const BufferLoadNode* load : loads_) {
      if (IsElementwise(store_, load)) {
        has_elemwise = true;
      } else if (IsBroadcast(store_, load)) {
        index_kind = Weaker(index_kind, kBroadcast);
      } else if (IsInjective(store_, load)) {
        index_kind = Weaker(index_kind, kInjective);
      } else {
        index_kind = kOpaque;
        break;
      }
    }
    // A[i, j] = B[i, j] + C[j] is elementwise: the broadcast input is the side operand.
    if (index_kind == kBroadcast && has_elemwise) index_kind = kElemWise;
    if (index_kind != kOpaque) {
      bool writes_param = false;
      for (const BufferRegion& w : op->writes) writes_param = writes_param || param_buffers_.count(w->buffer.get());
      // A reduction followed by the spatial output block (softmax, layer norm).
      kind = (writes_param && kind == kCommReduce) ? kOutEWiseFusable : Weaker(kind, index_kind);
      return;
    }
    std::unordered_set<const VarNode*> reduce_vars;
    for (const IterVar& iv : op->iter_vars) {
      if (iv->iter_type == tir::kCommReduce) reduce_vars.insert(iv->var.get());
    }
    if (reduce_vars.empty()) {
      kind = kOpaque;
      return;
    }
    if (IsMultiplyAccumulate(op->body)) {
      kind = Weaker(kind, kOutEWiseFusable);  // matmul, conv
      return;
    }
    for (const BufferLoadNode* load : loads_) {
      if (!IsPureReduce(reduce_vars, load)) {
        kind = Weaker(kind, kOutEWiseFusable);  // pooling windows
        return;
      }
    }
    kind = Weaker(kind, kCommReduce);
  }

  std::unordered_set<const Object*> param_buffers_;
  const BufferStoreNode* store_ = nullptr;
  std::vector<const BufferLoadNode*> loads_;
  bool in_block_ = false;
};

}  // namespace

OpPatternKind AnalyzeOpPatternKind(const tir::PrimFunc& func) {
  PatternAnalyzer analyzer(func);
  analyzer.VisitStmt(func->body);
  return analyzer.kind;
}

TESSERA_REGISTER_GLOBAL("relax.analysis.AnalyzeOpPatternKind").set_body_typed([](tir::PrimFunc func) {
  return static_cast<int64_t>(AnalyzeOpPatternKind(func));
});

namespace transform {

Pass AnnotateTIROpPattern() {
  return tessera::transform::CreateModulePass(
      [](IRModule mod, tessera::transform::PassContext) {
        IRModule out = mod.ShallowCopy();
        for (const auto& [gv, func] : mod->functions.items()) {
          const auto* prim = func.as<tir::PrimFuncNode>();
          if (prim == nullptr || prim->attrs.Get("op_pattern")) continue;
          tir::PrimFunc f = GetRef<tir::PrimFunc>(prim);
          int kind = AnalyzeOpPatternKind(f);
          out.mutable_node()->Update(gv, WithAttr(f, "op_pattern", IntImm(DataType::Int(32), kind)));
        }
        return out;
      },
      0, "AnnotateTIROpPattern");
}
TESSERA_REGISTER_PASS("relax.transform.AnnotateTIROpPattern", AnnotateTIROpPattern);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
