// LowerAllocTensor: each R.builtin.alloc_tensor left after memory planning
// (outputs, escaping or symbolic-size tensors) becomes its own storage:
// `storage = R.memory.alloc_storage(R.shape([nbytes]), dev, scope, "uint8")`
// and `R.memory.alloc_tensor(storage, 0, shape, dtype)`, nbytes being the
// (possibly symbolic) product of the dims times the element size.
// Runs after StaticPlanBlockMemory, before VMBuiltinLower.
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"
#include "relax/transform/function_pass.h"
#include "tir/op.h"

namespace tessera {
namespace relax {
namespace {

class AllocTensorLowerer : public BindingNamingMutator {
 public:
  using BindingNamingMutator::BindingNamingMutator;
  using BindingNamingMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* op) override {
    RelaxExpr expr = ExprMutator::VisitExpr_(op);
    const auto* call = expr.as<CallNode>();
    static const Op& alloc_tensor = Op::Get("relax.builtin.alloc_tensor");
    if (call == nullptr || !call->op.same_as(alloc_tensor)) return expr;
    TESSERA_CHECK_OR_THROW(call->args.size() == 3 || call->args.size() == 4, ValueError)
        << "LowerAllocTensor: R.builtin.alloc_tensor bound to '" << bound_to_ << "' has " << call->args.size()
        << " arguments, expected (shape, dtype, runtime_device_index[, storage_scope])";
    RelaxExpr scope = call->args.size() == 4 ? call->args[3] : RelaxExpr(StringImm("global"));
    const RelaxExpr& shape_arg = call->args[0];
    std::optional<Array<PrimExpr>> shape;
    if (const auto* se = shape_arg.as<ShapeExprNode>()) {
      shape = se->values;
    } else if (const auto* ss = GetStructInfo(shape_arg).as<ShapeStructInfoNode>()) {
      shape = ss->values;
    }
    TESSERA_CHECK_OR_THROW(shape.has_value(), ValueError)
        << "LowerAllocTensor: the shape of R.builtin.alloc_tensor bound to '" << bound_to_
        << "' must be a shape expression or a var of known shape values, got "
        << StructInfoText(GetStructInfo(shape_arg));
    const auto* dtype = call->args[1].as<DataTypeImmNode>();
    TESSERA_CHECK_OR_THROW(dtype != nullptr, TypeError)
        << "LowerAllocTensor: the dtype of R.builtin.alloc_tensor bound to '" << bound_to_
        << "' must be a DataTypeImm";
    int64_t coeff = static_cast<int64_t>(dtype->value.bytes()) * dtype->value.lanes();
    std::optional<PrimExpr> symbolic;
    for (const PrimExpr& dim : *shape) {
      if (const int64_t* c = AsConstInt(dim)) {
        coeff *= *c;
      } else {
        PrimExpr d = dim.dtype() == DataType::Int(64) ? dim : tir::cast(DataType::Int(64), dim);
        symbolic = symbolic ? tir::mul(*symbolic, d) : d;
      }
    }
    PrimExpr nbytes = IntImm(DataType::Int(64), coeff);
    if (symbolic) nbytes = tir::mul(nbytes, *symbolic);
    static const Op& alloc_storage = Op::Get("relax.memory.alloc_storage");
    static const Op& mem_alloc_tensor = Op::Get("relax.memory.alloc_tensor");
    Var storage = builder_->Emit(
        Call(alloc_storage, {ShapeExpr({nbytes}), call->args[2], scope, DataTypeImm(DataType::UInt(8))}),
        "storage");
    return Call(mem_alloc_tensor, {storage, PrimValue::Int64(0), shape_arg, call->args[1]});
  }
};

}  // namespace

namespace transform {

Pass LowerAllocTensor() {
  return CreateFunctionPass(
      [](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(AllocTensorLowerer(mod).VisitExpr(func));
      },
      0,
      "LowerAllocTensor");
}
TESSERA_REGISTER_PASS("relax.transform.LowerAllocTensor", LowerAllocTensor);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
