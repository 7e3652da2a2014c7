// Group 1 of the per-store features (TVM's "computation" group, 57 values):
// operation counts of the stored value by kind and type (times the loop nest's
// iterations), the number / product / innermost length / position of the
// vectorized, unrolled and parallel loops around the store, and the GPU launch
// extents (blockIdx.*, threadIdx.*, vthread; 1 on CPU).
#include <unordered_set>

#include "ir/op.h"
#include "meta_schedule/feature_extractor/feature_group.h"
#include "tir/functor.h"

namespace tessera {
namespace meta_schedule {
namespace {

using namespace tir;

// Intrinsics without side effects counted as math functions (TVM reads the
// op's call-effect attribute; Tessera's op registry has none, so the pure
// ones are listed here). Other calls count as "other" functions.
bool IsPureIntrinsic(const CallNode* call) {
  static const std::unordered_set<std::string> pure = {
      "tir.exp", "tir.exp2", "tir.exp10", "tir.log", "tir.log2", "tir.log10", "tir.log1p", "tir.sqrt",
      "tir.rsqrt", "tir.tanh", "tir.sigmoid", "tir.tan", "tir.cos", "tir.cosh", "tir.sin", "tir.sinh",
      "tir.acos", "tir.acosh", "tir.asin", "tir.asinh", "tir.atan", "tir.atanh", "tir.atan2", "tir.erf",
      "tir.pow", "tir.fabs", "tir.floor", "tir.ceil", "tir.round", "tir.nearbyint", "tir.trunc",
      "tir.fmod", "tir.hypot", "tir.copysign", "tir.ldexp", "tir.nextafter", "tir.isnan", "tir.isinf",
      "tir.isfinite", "tir.popcount", "tir.clz", "tir.if_then_else", "tir.likely", "tir.reinterpret",
      "tir.shift_left", "tir.shift_right", "tir.bitwise_and", "tir.bitwise_or", "tir.bitwise_xor",
      "tir.bitwise_not", "tir.q_multiply_shift", "tir.fma"};
  const auto* op = call->op.as<OpNode>();
  return op != nullptr && pure.count(op->name) > 0;
}

bool IsFloat(DataType t) { return t.is_float() || t.is_bfloat16(); }

class OpCounter : public ExprVisitor {
 public:
  explicit OpCounter(double iters) : iters_(iters) {}
  ArithCounts counts;

 private:
  void Binary(DataType t, double ArithCounts::*f, double ArithCounts::*i) {
    counts.*(IsFloat(t) ? f : i) += iters_;
  }
#define TESSERA_COUNT(Node, FloatField, IntField)                 \
  void VisitExpr_(const Node* op) override {                      \
    Binary(op->dtype, &ArithCounts::FloatField, &ArithCounts::IntField); \
    ExprVisitor::VisitExpr_(op);                                   \
  }
  TESSERA_COUNT(AddNode, float_add_sub, int_add_sub)
  TESSERA_COUNT(SubNode, float_add_sub, int_add_sub)
  TESSERA_COUNT(MulNode, float_mul, int_mul)
  TESSERA_COUNT(DivNode, float_div_mod, int_div_mod)
  TESSERA_COUNT(ModNode, float_div_mod, int_div_mod)
  TESSERA_COUNT(FloorDivNode, float_div_mod, int_div_mod)
  TESSERA_COUNT(FloorModNode, float_div_mod, int_div_mod)
  TESSERA_COUNT(MinNode, float_cmp, int_cmp)
  TESSERA_COUNT(MaxNode, float_cmp, int_cmp)
  // Comparisons have a boolean result type, so (as in TVM) they count as integer comparisons.
  TESSERA_COUNT(EQNode, float_cmp, int_cmp)
  TESSERA_COUNT(NENode, float_cmp, int_cmp)
  TESSERA_COUNT(LTNode, float_cmp, int_cmp)
  TESSERA_COUNT(LENode, float_cmp, int_cmp)
  TESSERA_COUNT(GTNode, float_cmp, int_cmp)
  TESSERA_COUNT(GENode, float_cmp, int_cmp)
#undef TESSERA_COUNT
  void VisitExpr_(const AndNode* op) override { counts.bool_op += iters_; ExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const OrNode* op) override { counts.bool_op += iters_; ExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const NotNode* op) override { counts.bool_op += iters_; ExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const SelectNode* op) override { counts.select_op += iters_; ExprVisitor::VisitExpr_(op); }
  void VisitExpr_(const CallNode* op) override {
    bool fl = IsFloat(op->dtype);
    if (IsPureIntrinsic(op)) {
      (fl ? counts.float_math_func : counts.int_math_func) += iters_;
    } else {
      (fl ? counts.float_other_func : counts.int_other_func) += iters_;
    }
    ExprVisitor::VisitExpr_(op);
  }
  double iters_;
};

// num, prod, innermost length and position (one-hot over TVM's 8 positions) of
// the loops of one kind. As in TVM the position is "none" without such loops
// and "mixed" otherwise (the finer positions are not computed).
void LoopKindFeatures(const ForVec& loops, std::vector<double>* out) {
  double num = 0, prod = 0, len = 0;
  int pos = 0;
  if (!loops.empty()) {
    num = static_cast<double>(loops.size());
    prod = 1;
    for (const ForNode* l : loops) prod *= LoopExtentOr1(l);
    len = LoopExtentOr1(loops.back());
    pos = 7;
  }
  out->push_back(SLog(num));
  out->push_back(SLog(prod));
  out->push_back(SLog(len));
  for (int p = 0; p < 8; ++p) out->push_back(p == pos ? 1.0 : 0.0);
}

double FirstExtent(const ForVec& loops) { return loops.empty() ? 1.0 : LoopExtentOr1(loops.front()); }

void Compute(StoreContext* ctx, std::vector<double>* out) {
  OpCounter counter(ctx->nest.prod);
  counter(ctx->store->value);
  ctx->arith = counter.counts;
  const ArithCounts& a = ctx->arith;
  for (double v : {a.float_mad, a.float_add_sub, a.float_mul, a.float_div_mod, a.float_cmp, a.float_math_func,
                   a.float_other_func, a.int_mad, a.int_add_sub, a.int_mul, a.int_div_mod, a.int_cmp,
                   a.int_math_func, a.int_other_func, a.bool_op, a.select_op}) {
    out->push_back(SLog(v));
  }
  LoopKindFeatures(ctx->nest.vectorize, out);
  LoopKindFeatures(ctx->nest.unroll, out);
  LoopKindFeatures(ctx->nest.parallel, out);
  const LoopNest& n = ctx->nest;
  bool gpu = ctx->config.is_gpu;
  out->push_back(gpu ? 1.0 : 0.0);
  for (const ForVec* l : {&n.block_x, &n.block_y, &n.block_z, &n.thread_x, &n.thread_y, &n.thread_z, &n.vthread}) {
    out->push_back(SLog(gpu ? FirstExtent(*l) : 1.0));
  }
}

}  // namespace

FeatureGroup ComputeFeatureGroup() {
  return FeatureGroup{"compute", [](const PerStoreFeatureConfig&) { return 16 + 11 * 3 + 8; }, Compute};
}

}  // namespace meta_schedule
}  // namespace tessera
