// Data-type Relax operators (TVM's relax/op/tensor/datatype.cc): astype(x,
// dtype), the elementwise cast. Relax IR layer; legalization to TOPI in
// python/tessera/relax/op/datatype.py.
#include "relax/op/op_common.h"

namespace tessera {
namespace relax {

namespace {

StructInfo InferAstype(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = ArgSInfoAs<TensorStructInfoNode>(call, 0, "x", "a tensor");
  DataType dtype = AttrDType(call, "dtype");
  if (dtype.is_void()) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'dtype' must name a dtype";
  if (x->shape) return TensorStructInfo(*x->shape, dtype);
  return TensorStructInfo(dtype, x->ndim);
}
static auto& reg_astype = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.astype").set_num_inputs(1).describe("x cast to dtype elementwise."),
               InferAstype, true),
    {{"dtype", {}}});

}  // namespace

}  // namespace relax
}  // namespace tessera
