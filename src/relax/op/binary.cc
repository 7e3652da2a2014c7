// Elementwise binary Relax operators (TVM's relax/op/tensor/binary.cc subset):
// add, subtract, multiply, divide, floor_divide, power, maximum, minimum, with
// NumPy broadcasting struct-info inference over symbolic dims (operands are
// tensors or scalar R.Prim values). Relax IR layer;
// their legalization to TOPI is registered next to the Python constructors
// (python/tessera/relax/op/binary.py, attribute "FLegalize").
#include "relax/op/binary.h"

namespace tessera {
namespace relax {

StructInfo InferBinaryElementwise(const Call& call, bool result_bool) {
  CheckNumArgs(call, 2, 2);
  StructInfo a = ArgSInfo(call, 0);
  StructInfo b = ArgSInfo(call, 1);
  const auto* pa = a.as<PrimStructInfoNode>();
  const auto* pb = b.as<PrimStructInfoNode>();
  if (pa || pb) {
    const auto* ta = pa ? nullptr : ArgSInfoAs<TensorStructInfoNode>(call, 0, "x1", "a tensor or an R.Prim");
    const auto* tb = pb ? nullptr : ArgSInfoAs<TensorStructInfoNode>(call, 1, "x2", "a tensor or an R.Prim");
    DataType da = pa ? pa->dtype : ta->dtype;
    DataType db = pb ? pb->dtype : tb->dtype;
    if (!result_bool && !da.is_void() && !db.is_void() && da != db) {
      TESSERA_THROW(TypeError) << OpName(call) << ": operands 'x1' " << StructInfoText(a) << " and 'x2' "
                               << StructInfoText(b) << " have different dtypes (" << da << " vs " << db << ")";
    }
    DataType dtype = result_bool ? DataType::Bool() : (da.is_void() ? db : da);
    if (pa && pb) return PrimStructInfo(dtype);
    const TensorStructInfoNode* t = ta ? ta : tb;
    if (t->shape) return TensorStructInfo(*t->shape, dtype);
    return TensorStructInfo(dtype, t->ndim);
  }
  const auto* lhs = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x1", "a tensor");
  const auto* rhs = ArgSInfoAs<TensorStructInfoNode>(call, 1, "x2", "a tensor");
  // As TVM, comparisons take operands of any two dtypes (legalization compares them in a common one).
  DataType dtype = result_bool ? DataType::Bool() : SameDType(call, {lhs, rhs}, {"x1", "x2"});
  // The same shape (a shared shape variable, say) is the result's shape.
  if (lhs->shape && rhs->shape && lhs->shape->same_as(*rhs->shape)) return TensorStructInfo(*lhs->shape, dtype);
  int ndim = 0;
  auto shape = BroadcastShapes(call, {lhs, rhs}, {"x1", "x2"}, &ndim);
  return TensorSInfo(shape, dtype, ndim);
}

namespace {

StructInfo InferBinaryBroadcast(const Call& call, const BlockBuilder&) { return InferBinaryElementwise(call, false); }

// bitwise_* take integer (or bool) operands, logical_* bool ones; broadcast as the others.
StructInfo InferBinaryOfKind(const Call& call, const BlockBuilder& ctx, bool bool_only) {
  StructInfo s = InferBinaryBroadcast(call, ctx);
  const auto* t = s.as<TensorStructInfoNode>();
  if (t && !t->IsUnknownDtype()) {
    bool ok = bool_only ? t->dtype.is_bool() : (t->dtype.is_int() || t->dtype.is_uint() || t->dtype.is_bool());
    if (!ok) {
      TESSERA_THROW(TypeError) << OpName(call) << ": operands 'x1' and 'x2' must have "
                               << (bool_only ? "dtype bool" : "an integer dtype") << ", got " << t->dtype;
    }
  }
  return s;
}
StructInfo InferBitwise(const Call& c, const BlockBuilder& b) { return InferBinaryOfKind(c, b, false); }
StructInfo InferLogical(const Call& c, const BlockBuilder& b) { return InferBinaryOfKind(c, b, true); }

#define TESSERA_RELAX_BINARY_KIND_OP(NAME, INFER, DESC)                                                     \
  static auto& reg_binary_##NAME =                                                                         \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(2).describe(DESC), INFER, true)

TESSERA_RELAX_BINARY_KIND_OP(bitwise_and, InferBitwise, "Elementwise x1 & x2 of integers, with broadcasting.");
TESSERA_RELAX_BINARY_KIND_OP(bitwise_or, InferBitwise, "Elementwise x1 | x2 of integers, with broadcasting.");
TESSERA_RELAX_BINARY_KIND_OP(bitwise_xor, InferBitwise, "Elementwise x1 ^ x2 of integers, with broadcasting.");
TESSERA_RELAX_BINARY_KIND_OP(logical_and, InferLogical, "Elementwise x1 and x2 of bools, with broadcasting.");
TESSERA_RELAX_BINARY_KIND_OP(logical_or, InferLogical, "Elementwise x1 or x2 of bools, with broadcasting.");
TESSERA_RELAX_BINARY_KIND_OP(logical_xor, InferLogical, "Elementwise x1 != x2 of bools, with broadcasting.");

#define TESSERA_RELAX_BINARY_OP(NAME, DESC)                                                                  \
  static auto& reg_binary_##NAME = SetRelaxOp(                                                              \
      OpRegEntry::RegisterOrGet("relax." #NAME).set_num_inputs(2).describe(DESC), InferBinaryBroadcast, true)

TESSERA_RELAX_BINARY_OP(add, "Elementwise x1 + x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(subtract, "Elementwise x1 - x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(multiply, "Elementwise x1 * x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(divide, "Elementwise x1 / x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(floor_divide, "Elementwise floor(x1 / x2) with broadcasting.");
TESSERA_RELAX_BINARY_OP(power, "Elementwise x1 ** x2 with broadcasting.");
TESSERA_RELAX_BINARY_OP(maximum, "Elementwise max(x1, x2) with broadcasting.");
TESSERA_RELAX_BINARY_OP(minimum, "Elementwise min(x1, x2) with broadcasting.");

}  // namespace

}  // namespace relax
}  // namespace tessera
