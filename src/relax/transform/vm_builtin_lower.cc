// VMBuiltinLower (TVM v0.18 also calls it LowerRuntimeBuiltin): memory and
// runtime operators become what the VM executes.
//   R.memory.alloc_storage(size, dev, scope, dtype) -> R.vm.alloc_storage(size, dev, "uint8", scope)
//   R.memory.alloc_tensor(...)                      -> R.vm.alloc_tensor(...)
//   R.memory.kill_storage / kill_tensor             -> R.vm.kill_object
//   R.vm.call_tir_dyn(f, (args...))                 -> call_packed("vm.builtin.call_tir_dyn", f, args...)
//   R.shape_of(x)                                   -> call_packed("vm.builtin.shape_of", x)
// plus any op registering an "FLowerBuiltin" attribute (a function of the
// BlockBuilder and the call). R.builtin.alloc_tensor must be gone already
// (LowerAllocTensor). Runs after LowerAllocTensor, before VMShapeLower.
#include "relax/expr_functor.h"
#include "relax/transform/lowering.h"
#include "relax/transform/utils.h"
#include "relax/transform/function_pass.h"

namespace tessera {
namespace relax {
namespace {

class BuiltinLowerer : public BindingNamingMutator {
 public:
  using BindingNamingMutator::BindingNamingMutator;
  using BindingNamingMutator::VisitExpr_;

  RelaxExpr VisitExpr_(const CallNode* original) override {
    RelaxExpr expr = ExprMutator::VisitExpr_(original);
    const auto* call = expr.as<CallNode>();
    if (call == nullptr || !call->op->IsInstance<OpNode>()) return expr;
    const Op op = Downcast<Op>(call->op);
    const std::string& name = op->name;
    auto where = [&]() { return "'" + bound_to_ + "' = " + name; };
    auto packed = [&](const char* builtin, Array<RelaxExpr> args, StructInfo sinfo) {
      return Call(ExternFunc(builtin), args, ObjectRef(), {sinfo}, call->span);
    };
    if (name == "relax.builtin.alloc_tensor") {
      TESSERA_THROW(ValueError) << "VMBuiltinLower: " << where()
                                << "(...) should have been lowered earlier by relax.transform.LowerAllocTensor";
    }
    if (name == "relax.memory.alloc_storage") {
      CheckArgs(call, 4, where());
      return Call(Op::Get("relax.vm.alloc_storage"),
                  {call->args[0], call->args[1], DataTypeImm(DataType::UInt(8)), call->args[2]}, ObjectRef(), {},
                  call->span);
    }
    if (name == "relax.memory.alloc_tensor") {
      CheckArgs(call, 4, where());
      return Call(Op::Get("relax.vm.alloc_tensor"), call->args, ObjectRef(), {}, call->span);
    }
    if (name == "relax.memory.kill_storage" || name == "relax.memory.kill_tensor") {
      CheckArgs(call, 1, where());
      return Call(Op::Get("relax.vm.kill_object"), call->args, ObjectRef(), {}, call->span);
    }
    if (name == "relax.vm.call_tir_dyn") {
      CheckArgs(call, 2, where());
      const auto* args = call->args[1].as<TupleNode>();
      TESSERA_CHECK_OR_THROW(args != nullptr, TypeError)
          << "VMBuiltinLower: the arguments of " << where() << " must be a tuple expression";
      Array<RelaxExpr> flat{call->args[0]};
      for (const RelaxExpr& a : args->fields) flat.push_back(a);
      return packed("vm.builtin.call_tir_dyn", flat, TupleStructInfo(Array<StructInfo>{}));
    }
    if (name == "relax.shape_of") {
      CheckArgs(call, 1, where());
      return packed("vm.builtin.shape_of", call->args, GetStructInfo(GetRef<Call>(original)));
    }
    static const OpAttrMap<PackedFunc> flower = Op::GetAttrMap<PackedFunc>("FLowerBuiltin");
    if (flower.count(op)) return flower[op](builder_, expr).cast<RelaxExpr>();
    return expr;
  }

 private:
  static void CheckArgs(const CallNode* call, size_t n, const std::string& where) {
    TESSERA_CHECK_OR_THROW(call->args.size() == n, ValueError)
        << "VMBuiltinLower: " << where << " has " << call->args.size() << " arguments, expected " << n;
  }
};

}  // namespace

namespace transform {

Pass VMBuiltinLower() {
  return CreateFunctionPass(
      [](Function func, IRModule mod, PassContext) {
        return Downcast<Function>(BuiltinLowerer(mod).VisitExpr(func));
      },
      0,
      "VMBuiltinLower");
}
TESSERA_REGISTER_PASS("relax.transform.VMBuiltinLower", VMBuiltinLower);

}  // namespace transform
}  // namespace relax
}  // namespace tessera
