// relax.call_builtin_with_ctx(func, Tuple(args); sinfo_args=[ret]): calls VM
// builtin `func` (an ExternFunc) with the VM itself as first argument, as
// the builtins that allocate need (vm.builtin.alloc_shape_heap). Emitted by
// VMShapeLower (src/relax/transform/vm_shape_lower.cc); VMCodegen passes the
// VM register. Impure. Relax IR layer.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {
namespace {

StructInfo InferCallBuiltinWithCtx(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  if (!call->args[0].as<ExternFuncNode>()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'func' (argument 0) must be an ExternFunc, got "
                             << ExprKindName(call->args[0]);
  }
  ArgSInfoAs<TupleStructInfoNode>(call, 1, "args", "a tuple of arguments");
  CheckNumSInfoArgs(call, 0, 1, "result struct info");
  return call->sinfo_args.empty() ? StructInfo(ObjectStructInfo::Make()) : call->sinfo_args[0];
}

}  // namespace

static auto& reg_call_builtin_with_ctx = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.call_builtin_with_ctx")
        .set_num_inputs(2)
        .describe("Calls a VM builtin with the VM as first argument: call_builtin_with_ctx(func, Tuple(args))."),
    InferCallBuiltinWithCtx, false);

}  // namespace relax
}  // namespace tessera
