// Allocation operators of Relax (TVM's builtin/memory/vm op families):
// relax.builtin.alloc_tensor, relax.memory.{alloc_storage, alloc_tensor,
// kill_storage, kill_tensor}, relax.vm.{alloc_storage, alloc_tensor,
// kill_object, call_tir_dyn}. All impure; the lowering passes introduce them
// after ToNonDataflow. Relax IR layer.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {
namespace {

// A tensor of the given shape operand (a ShapeExpr or a var of ShapeStructInfo) and dtype operand.
StructInfo TensorOf(const Call& call, size_t shape_index, size_t dtype_index) {
  ArgSInfoAs<ShapeStructInfoNode>(call, shape_index, "shape", "a shape");
  const auto* dt = ArgAs<DataTypeImmNode>(call, dtype_index, "dtype", "a DataTypeImm");
  return TensorStructInfo(call->args[shape_index], dt->value);
}

StructInfo InferBuiltinAllocTensor(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 4);
  ArgSInfoAs<PrimStructInfoNode>(call, 2, "runtime_device_index", "a PrimValue");
  if (call->args.size() == 4) ArgAs<StringImmNode>(call, 3, "storage_scope", "a StringImm");
  return TensorOf(call, 0, 1);
}

StructInfo InferMemoryAllocStorage(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 4, 4);
  ArgSInfoAs<ShapeStructInfoNode>(call, 0, "size", "a shape");
  ArgSInfoAs<PrimStructInfoNode>(call, 1, "virtual_device_index", "a PrimValue");
  ArgAs<StringImmNode>(call, 2, "storage_scope", "a StringImm");
  ArgAs<DataTypeImmNode>(call, 3, "dtype", "a DataTypeImm");
  return ObjectStructInfo::Make();
}

StructInfo InferAllocTensorFromStorage(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 4, 4);
  ArgSInfoAs<PrimStructInfoNode>(call, 1, "offset", "a PrimValue");
  return TensorOf(call, 2, 3);
}

StructInfo InferKill(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  return VoidStructInfo();
}

StructInfo InferVMAllocStorage(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 4, 4);
  ArgSInfoAs<ShapeStructInfoNode>(call, 0, "size", "a shape");
  ArgSInfoAs<PrimStructInfoNode>(call, 1, "runtime_device_index", "a PrimValue");
  ArgAs<DataTypeImmNode>(call, 2, "dtype", "a DataTypeImm");
  ArgAs<StringImmNode>(call, 3, "storage_scope", "a StringImm");
  return ObjectStructInfo::Make();
}

StructInfo InferVMCallTIRDyn(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  if (!call->args[0].as<GlobalVarNode>()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'func' (argument 0) must be a GlobalVar, got "
                             << ExprKindName(call->args[0]);
  }
  ArgSInfoAs<TupleStructInfoNode>(call, 1, "args", "a tuple of arguments");
  return VoidStructInfo();
}

}  // namespace

static auto& reg_builtin_alloc = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.builtin.alloc_tensor")
        .describe("Allocates a tensor: alloc_tensor(shape, dtype, runtime_device_index[, storage_scope])."),
    InferBuiltinAllocTensor, false);
static auto& sig_builtin_alloc = SetOperandSignature(
    reg_builtin_alloc, {{"shape", "expr", std::nullopt}, {"dtype", "dtype", std::nullopt},
                        {"runtime_device_index", "prim", std::nullopt}, {"storage_scope", "str", Any(String("global"))}});
static auto& reg_mem_storage = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.memory.alloc_storage")
        .describe("Allocates storage: alloc_storage(size, virtual_device_index, storage_scope, dtype)."),
    InferMemoryAllocStorage, false);
static auto& sig_mem_storage =
    SetOperandSignature(reg_mem_storage, {{"size", "expr", std::nullopt},
                                          {"virtual_device_index", "prim", std::nullopt},
                                          {"storage_scope", "str", std::nullopt},
                                          {"dtype", "dtype", std::nullopt}});
static auto& reg_mem_tensor = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.memory.alloc_tensor")
        .describe("A tensor inside a storage: alloc_tensor(storage, offset, shape, dtype)."),
    InferAllocTensorFromStorage, false);
// R.memory.alloc_tensor and R.vm.alloc_tensor: (storage, offset, shape, dtype).
const std::vector<OperandParam> kTensorInStorage = {{"storage", "expr", std::nullopt},
                                                    {"offset", "prim", std::nullopt},
                                                    {"shape", "expr", std::nullopt},
                                                    {"dtype", "dtype", std::nullopt}};
static auto& sig_mem_tensor = SetOperandSignature(reg_mem_tensor, kTensorInStorage);
static auto& reg_mem_kill_storage = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.memory.kill_storage").set_num_inputs(1).describe("Ends a storage's lifetime."),
    InferKill, false);
static auto& reg_mem_kill_tensor = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.memory.kill_tensor").set_num_inputs(1).describe("Ends a tensor's lifetime."),
    InferKill, false);
static auto& reg_vm_storage = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.vm.alloc_storage")
        .describe("VM storage allocation: alloc_storage(size, runtime_device_index, dtype, storage_scope)."),
    InferVMAllocStorage, false);
static auto& sig_vm_storage =
    SetOperandSignature(reg_vm_storage, {{"size", "expr", std::nullopt},
                                         {"runtime_device_index", "prim", std::nullopt},
                                         {"dtype", "dtype", std::nullopt},
                                         {"storage_scope", "str", Any(String("global"))}});
static auto& reg_vm_tensor = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.vm.alloc_tensor")
        .describe("VM tensor in a storage: alloc_tensor(storage, offset, shape, dtype)."),
    InferAllocTensorFromStorage, false);
static auto& sig_vm_tensor = SetOperandSignature(reg_vm_tensor, kTensorInStorage);
static auto& reg_vm_kill = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.vm.kill_object").set_num_inputs(1).describe("Releases a VM register's object."),
    InferKill, false);
static auto& reg_vm_call_tir_dyn = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.vm.call_tir_dyn")
        .describe("Calls a PrimFunc with symbolic shape arguments: call_tir_dyn(func, Tuple(args + [shape]))."),
    InferVMCallTIRDyn, false);

}  // namespace relax
}  // namespace tessera
