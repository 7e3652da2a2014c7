// relax.image.resize2d(data, size; roi, layout, method, coordinate_transformation_mode,
// rounding_method, cubic_alpha, cubic_exclude, extrapolation_value, out_dtype) (TVM's
// relax/op/image/resize.cc): an image resized to `size` (a shape of 1 or 2 values) by
// nearest-neighbour or linear interpolation; `layout` any permutation of NCHW, packed sub-axes
// included (nn/nn_layout.h). Struct-info inference here (cubic and tf_crop_and_resize are
// refused); the legalization (frontend/common.py's resize_te) is in python/tessera/relax/op/image.py.
#include <set>

#include "relax/op/nn/nn_attrs.h"
#include "relax/op/nn/nn_layout.h"

namespace tessera {
namespace relax {

namespace {

void CheckChoice(const Call& call, const char* attr, const std::set<std::string>& allowed) {
  std::string value = nn_attrs::Str(call, attr);
  if (allowed.count(value)) return;
  std::string names;
  for (const std::string& a : allowed) names += (names.empty() ? "\"" : ", \"") + a + "\"";
  TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' = \"" << value
                            << "\" is not supported (" << names << ")";
}

StructInfo InferResize2D(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* data = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  const auto* size = ArgSInfoAs<ShapeStructInfoNode>(call, 1, "size", "a shape of 1 or 2 values");
  NNLayout layout = NNLayout::Parse(call, "layout", nn_attrs::Str(call, "layout"), "NCHW");
  CheckChoice(call, "method", {"nearest_neighbor", "linear"});
  CheckChoice(call, "coordinate_transformation_mode", {"half_pixel", "align_corners", "asymmetric",
                                                       "pytorch_half_pixel"});
  CheckChoice(call, "rounding_method", {"", "round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil"});
  if (!data->IsUnknownNdim() && data->ndim != layout.ndim()) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'data' must be " << layout.ndim() << "-D ("
                              << layout.text() << "), got " << data->ndim << " dimensions";
  }
  if (size->ndim != StructInfoNode::kUnknownNDim && size->ndim != 1 && size->ndim != 2) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'size' must have 1 or 2 values, got " << size->ndim;
  }
  std::string out_dtype = nn_attrs::Str(call, "out_dtype");
  DataType dtype = out_dtype.empty() || out_dtype == "void" ? data->dtype : DataType(out_dtype);
  auto shape = data->GetShape();
  if (!shape || !size->values) return TensorStructInfo(dtype, layout.ndim());
  Array<PrimExpr> hw = *size->values;
  Array<PrimExpr> d = layout.ToCanonical(*shape);
  return TensorStructInfo(ShapeExpr(layout.FromCanonical(call, {d[0], d[1], hw[0], hw.size() == 1 ? hw[0] : hw[1]})),
                          dtype);
}

static auto& reg_resize2d_shape = OpRegEntry::RegisterOrGet("relax.image.resize2d")
                                      .set_attr("TScriptShapeOperands", Any(Array<Any>{Any(int64_t{1})}));
static auto& reg_resize2d_floats = SetFloatAttrs(OpRegEntry::RegisterOrGet("relax.image.resize2d"),
                                                 {"roi", "cubic_alpha", "extrapolation_value"});
static auto& reg_resize2d_dtypes = SetDTypeAttrs(OpRegEntry::RegisterOrGet("relax.image.resize2d"), {"out_dtype"});
static auto& reg_resize2d = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.image.resize2d")
                   .set_num_inputs(2)
                   .describe("An image resized to `size` (nearest-neighbour or linear)."),
               InferResize2D, true),
    {{"roi", Any(Array<Any>{nn_attrs::DefaultFloat(0.0), nn_attrs::DefaultFloat(0.0), nn_attrs::DefaultFloat(0.0),
                            nn_attrs::DefaultFloat(0.0)})},
     {"layout", nn_attrs::DefaultStr("NCHW")},
     {"method", nn_attrs::DefaultStr("linear")},
     {"coordinate_transformation_mode", nn_attrs::DefaultStr("half_pixel")},
     {"rounding_method", nn_attrs::DefaultStr("round")},
     {"cubic_alpha", nn_attrs::DefaultFloat(-0.5)},
     {"cubic_exclude", AttrDefaultInt(0)},
     {"extrapolation_value", nn_attrs::DefaultFloat(0.0)},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

}  // namespace

}  // namespace relax
}  // namespace tessera
