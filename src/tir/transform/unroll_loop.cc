// UnrollLoop (see unroll_loop.h).
#include "tir/transform/unroll_loop.h"

#include "tir/transform/prim_func_pass.h"

#include "tir/functor.h"
#include "tir/op.h"

namespace tessera {
namespace tir {
namespace {

class LoopUnroller : public StmtExprMutator {
 public:
  explicit LoopUnroller(int max_extent) : max_extent_(max_extent) {}
  using StmtExprMutator::VisitStmt_;
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt inner = StmtExprMutator::VisitStmt_(op);
    const auto* loop = inner.as<ForNode>();
    if (loop == nullptr || loop->kind != ForKind::kUnrolled) return inner;
    const int64_t* ext = AsConstInt(loop->extent);
    if (ext == nullptr || *ext > max_extent_) {
      For serial = GetRef<For>(loop);
      serial.CopyOnWrite()->kind = ForKind::kSerial;
      return serial;
    }
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

 private:
  int max_extent_;
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
