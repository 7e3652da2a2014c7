// UnrollLoop (see unroll_loop.h).
#include "tir/transform/unroll_loop.h"

#include "tir/transform/prim_func_pass.h"

#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

// Besides `T.unroll` loops, unrolls the serial loops below a loop annotated
// "pragma_auto_unroll_max_step" = S (MetaSchedule's unroll, as TVM's
// UnrollLoop): innermost first, a loop is unrolled while its extent times
// the statements its body unrolls to stays within S, no loop inside it stayed
// a loop and the nest of unrolled loops is at most 8 deep.
// "pragma_unroll_explicit" = 0 (TVM: leave the unrolling to LLVM) unrolls
// the same way here.
class LoopUnroller : public StmtExprMutator {
 public:
  explicit LoopUnroller(int max_extent) : max_extent_(max_extent) {}
  using StmtExprMutator::VisitStmt_;

  Stmt VisitStmt_(const ForNode* op) override {
    int64_t saved_max_step = auto_max_step_;
    if (auto step = op->annotations.Get("pragma_auto_unroll_max_step")) {
      if (const auto* imm = step->as<IntImmNode>()) {
        auto_max_step_ = imm->value;
      } else if (step->kind() == Any::Kind::kInt) {
        auto_max_step_ = step->raw_int();
      }
    }
    Stmt inner = StmtExprMutator::VisitStmt_(op);
    auto_max_step_ = saved_max_step;  // the annotation applies to the loops inside
    const auto* loop = inner.as<ForNode>();
    if (loop == nullptr) return inner;
    const int64_t* ext = AsConstInt(loop->extent);
    bool auto_unroll = loop->kind == ForKind::kSerial && ext != nullptr && *ext >= 0 && normal_loop_depth_ == 0 &&
                       unroll_depth_ <= kAutoMaxDepth && auto_max_step_ > 0 && *ext * step_count_ <= auto_max_step_;
    if (loop->kind == ForKind::kUnrolled && ext != nullptr && *ext <= max_extent_) auto_unroll = true;
    if (!auto_unroll) {
      ++normal_loop_depth_;
      if (loop->kind != ForKind::kUnrolled) return inner;
      For serial = GetRef<For>(loop);
      serial.CopyOnWrite()->kind = ForKind::kSerial;
      return serial;
    }
    step_count_ *= *ext;
    ++unroll_depth_;
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *ext; ++i) {
      PrimExpr value = add(loop->min, IntImm(loop->loop_var.dtype(), i));
      Var v = loop->loop_var;
      copies.push_back(Substitute(loop->body, [&](const Var& x) -> std::optional<PrimExpr> {
        if (x.same_as(v)) return value;
        return std::nullopt;
      }));
    }
    if (copies.empty()) return Evaluate(IntImm(DataType::Int(32), 0));
    return SeqStmt::Flatten(copies);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    ++step_count_;
    return StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const EvaluateNode* op) override {
    ++step_count_;
    return StmtExprMutator::VisitStmt_(op);
  }
  // Each statement of a sequence is counted on its own, then the counts add up.
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> out;
    int64_t steps = 0, unroll_depth = 0, normal_depth = 0;
    for (const Stmt& s : op->seq) {
      step_count_ = 0, unroll_depth_ = 0, normal_loop_depth_ = 0;
      out.push_back(VisitStmt(s));
      steps += step_count_;
      unroll_depth = std::max(unroll_depth, unroll_depth_);
      normal_depth = std::max(normal_depth, normal_loop_depth_);
    }
    step_count_ = steps, unroll_depth_ = unroll_depth, normal_loop_depth_ = normal_depth;
    bool same = true;
    for (size_t i = 0; i < out.size(); ++i) same = same && out[i].same_as(op->seq[i]);
    if (same) return GetRef<Stmt>(op);
    return SeqStmt::Flatten(out);
  }

 private:
  static constexpr int64_t kAutoMaxDepth = 8;
  int max_extent_;
  int64_t auto_max_step_ = 0;
  int64_t step_count_ = 0;
  int64_t unroll_depth_ = 0;
  int64_t normal_loop_depth_ = 0;
};

}  // namespace

PrimFunc UnrollLoop(PrimFunc func, int max_extent) {
  Stmt body = LoopUnroller(max_extent).VisitStmt(func->body);
  func.CopyOnWrite()->body = body;
  return func;
}

namespace transform {

tessera::transform::Pass UnrollLoop() {
  return CreatePrimFuncPass([](PrimFunc f, IRModule, PassContext) { return tir::UnrollLoop(f); }, 0, "UnrollLoop");
}
TESSERA_REGISTER_PASS("tir.transform.UnrollLoop", UnrollLoop);

}  // namespace transform

}  // namespace tir
}  // namespace tessera
