// Core Relax operators (TVM's relax/op/op.cc subset): call_tir,
// call_dps_packed, call_pure_packed, shape_of, null_value, print, with their
// struct-info inference and purity. Relax IR layer; registered in the Op
// registry, read by the normalizer (block_builder.cc).
#include "relax/op/op_common.h"

#include "runtime/registry.h"

namespace tessera {
namespace relax {

void CheckNumArgs(const Call& call, size_t lo, size_t hi) {
  size_t n = call->args.size();
  if (n >= lo && n <= hi) return;
  std::string expect = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  if (hi == static_cast<size_t>(-1)) expect = "at least " + std::to_string(lo);
  TESSERA_THROW(TypeError) << OpName(call) << " expects " << expect << " argument" << (hi == 1 && lo == 1 ? "" : "s")
                           << ", got " << n;
}

void CheckNumSInfoArgs(const Call& call, size_t lo, size_t hi, const char* what) {
  size_t n = call->sinfo_args.size();
  if (n >= lo && n <= hi) return;
  TESSERA_THROW(TypeError) << OpName(call) << ": expects " << (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi))
                           << " " << what << " (sinfo_args), got " << n;
}

StructInfo ArgSInfo(const Call& call, size_t i) {
  const RelaxExpr& a = call->args[i];
  TESSERA_CHECK_OR_THROW(a->struct_info_.defined(), TypeError)
      << OpName(call) << ": argument " << i << " (" << ExprKindName(a) << ") has no struct info";
  return Downcast<StructInfo>(a->struct_info_);
}

namespace {

// An output struct info of a destination-passing call: tensors (or a tuple
// of them) of known dtype and shape, which is what the callee writes into.
void CheckDPSOutput(const Call& call, const StructInfo& out) {
  auto check_tensor = [&](const StructInfo& s, const std::string& where) {
    const auto* t = s.as<TensorStructInfoNode>();
    TESSERA_CHECK_OR_THROW(t != nullptr, TypeError)
        << OpName(call) << ": out_sinfo" << where << " must be a TensorStructInfo, got " << StructInfoText(s);
    TESSERA_CHECK_OR_THROW(!t->IsUnknownDtype(), ValueError)
        << OpName(call) << ": out_sinfo" << where << " needs a dtype, got " << StructInfoText(s);
    TESSERA_CHECK_OR_THROW(t->shape.has_value(), ValueError)
        << OpName(call) << ": out_sinfo" << where << " needs a shape, got " << StructInfoText(s);
  };
  if (const auto* tu = out.as<TupleStructInfoNode>()) {
    for (size_t i = 0; i < tu->fields.size(); ++i) {
      std::string where = "[";  // appended (GCC 12 warns falsely on "[" + std::string&&)
      where += std::to_string(i);
      where += ']';
      check_tensor(tu->fields[i], where);
    }
  } else {
    check_tensor(out, "");
  }
}

StructInfo InferCallTIR(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 3);
  CheckNumSInfoArgs(call, 1, 1, "output struct info");
  if (!call->args[0].as<GlobalVarNode>()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'func' (argument 0) must be a GlobalVar naming a PrimFunc, got "
                             << ExprKindName(call->args[0]);
  }
  ArgSInfoAs<TupleStructInfoNode>(call, 1, "args", "a tuple of arguments");
  if (call->args.size() == 3) ArgSInfoAs<ShapeStructInfoNode>(call, 2, "tir_vars", "a shape (R.shape([...]))");
  CheckDPSOutput(call, call->sinfo_args[0]);
  return call->sinfo_args[0];
}

StructInfo InferCallDPSPacked(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  CheckNumSInfoArgs(call, 1, 1, "output struct info");
  if (!call->args[0].as<ExternFuncNode>() && !call->args[0].as<StringImmNode>()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'func' (argument 0) must be an ExternFunc, got "
                             << ExprKindName(call->args[0]);
  }
  ArgSInfoAs<TupleStructInfoNode>(call, 1, "args", "a tuple of arguments");
  CheckDPSOutput(call, call->sinfo_args[0]);
  return call->sinfo_args[0];
}

StructInfo InferCallPurePacked(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, static_cast<size_t>(-1));
  CheckNumSInfoArgs(call, 0, 1, "return struct info");
  if (!call->args[0].as<ExternFuncNode>() && !call->args[0].as<StringImmNode>()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'func' (argument 0) must be an ExternFunc, got "
                             << ExprKindName(call->args[0]);
  }
  return call->sinfo_args.empty() ? StructInfo(ObjectStructInfo::Make()) : call->sinfo_args[0];
}

StructInfo InferShapeOf(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* t = ArgSInfoAs<TensorStructInfoNode>(call, 0, "expr", "a tensor");
  if (auto dims = t->GetShape()) return ShapeStructInfo(*dims);
  return ShapeStructInfo(t->ndim);
}

StructInfo InferNullValue(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 0, 0);
  return ObjectStructInfo::Make();
}

StructInfo InferPrint(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, static_cast<size_t>(-1));
  ArgAs<StringImmNode>(call, 0, "format", "a string (R.str)");
  return VoidStructInfo();
}

// assert_op(condition, format, *format_args): fails at run time when the condition is false.
StructInfo InferAssertOp(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, static_cast<size_t>(-1));
  const StructInfo cond = GetStructInfo(call->args[0]);
  const auto* t = cond.as<TensorStructInfoNode>();
  const auto* p = cond.as<PrimStructInfoNode>();
  bool is_bool_scalar = (t && (t->ndim == 0 || t->ndim == -1) && (t->dtype.is_void() || t->dtype.is_bool())) ||
                        (p && p->dtype.is_bool());
  if (!is_bool_scalar) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'condition' (argument 0) must be a boolean scalar, got "
                             << StructInfoText(cond);
  }
  ArgAs<StringImmNode>(call, 1, "format", "a string (R.str)");
  return VoidStructInfo();
}

}  // namespace

static auto& reg_call_tir = SetRelaxOp(OpRegEntry::RegisterOrGet("relax.call_tir")
                                           .describe("Calls a PrimFunc in destination-passing style: "
                                                     "call_tir(func, args, [tir_vars]) with the output struct "
                                                     "info in sinfo_args; the output is allocated by the caller."),
                                       InferCallTIR, true);
static auto& reg_call_dps = SetRelaxOp(OpRegEntry::RegisterOrGet("relax.call_dps_packed")
                                           .describe("Calls a registered PackedFunc in destination-passing style."),
                                       InferCallDPSPacked, true);
static auto& reg_call_pure = SetRelaxOp(OpRegEntry::RegisterOrGet("relax.call_pure_packed")
                                            .describe("Calls a PackedFunc that returns its result, as a pure call."),
                                        InferCallPurePacked, true);
static auto& reg_shape_of = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.shape_of").set_num_inputs(1).describe("The shape of a tensor."), InferShapeOf, true);
static auto& reg_null = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.null_value").set_num_inputs(0).describe("A null object."), InferNullValue, true);
static auto& reg_assert = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.assert_op")
        .describe("Fails at run time, with a formatted message, when its boolean scalar condition is false "
                  "(impure): assert_op(condition, format, *format_args)."),
    InferAssertOp, false);
static auto& reg_print = SetRelaxOp(
    OpRegEntry::RegisterOrGet("relax.print").describe("Prints its arguments with a format string (impure)."), InferPrint,
    false);

}  // namespace relax
}  // namespace tessera
