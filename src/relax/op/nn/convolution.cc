// relax.nn.conv2d (TVM's relax/op/nn/convolution.cc): struct-info inference
// for NCHW data and OIHW weights with strides, padding (1, 2 or 4 values),
// dilation and groups (depthwise included); other layouts are refused. Relax
// IR layer; legalization to topi.nn.conv2d is registered next to the Python
// constructor (python/tessera/relax/op/nn/convolution.py).
#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

void CheckLayout(const Call& call, const char* attr, const std::string& value, const char* expected) {
  if (value != expected) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' = \"" << value
                              << "\" is not supported (only data_layout=\"NCHW\", kernel_layout=\"OIHW\", "
                                 "out_layout=\"NCHW\")";
  }
}

// (top, left, bottom, right) from 1, 2 or 4 values.
std::vector<int64_t> Padding4(const Call& call) {
  std::vector<int64_t> p = nn_attrs::Ints(call, "padding", {1, 2, 4});
  if (p.size() == 1) p = {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) p = {p[0], p[1], p[0], p[1]};
  for (int64_t v : p) {
    if (v < 0) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'padding' must be >= 0, got " << v;
  }
  return p;
}

StructInfo InferConv2D(const Call& call, const BlockBuilder&) {
  using namespace tir;  // NOLINT: PrimExpr arithmetic
  CheckNumArgs(call, 2, 2);
  const auto* data = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  const auto* weight = ArgSInfoAs<TensorStructInfoNode>(call, 1, "weight", "a tensor");
  std::string data_layout = nn_attrs::Str(call, "data_layout");
  CheckLayout(call, "data_layout", data_layout, "NCHW");
  CheckLayout(call, "kernel_layout", nn_attrs::Str(call, "kernel_layout"), "OIHW");
  CheckLayout(call, "out_layout", nn_attrs::Str(call, "out_layout"), "NCHW");
  std::vector<int64_t> strides = nn_attrs::PositivePair(call, "strides");
  std::vector<int64_t> dilation = nn_attrs::PositivePair(call, "dilation");
  std::vector<int64_t> pad = Padding4(call);
  int64_t groups = nn_attrs::Int(call, "groups");
  if (groups < 1) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'groups' must be >= 1, got " << groups;
  for (auto [t, name] : {std::pair{data, "data"}, std::pair{weight, "weight"}}) {
    if (!t->IsUnknownNdim() && t->ndim != 4) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << name << "' must be 4-D ("
                                << (t == data ? "NCHW" : "OIHW") << "), got " << t->ndim << " dimensions";
    }
  }
  std::string out_dtype_str = nn_attrs::Str(call, "out_dtype");
  DataType out_dtype;
  if (!out_dtype_str.empty() && out_dtype_str != "void") {
    out_dtype = DataType(out_dtype_str);
  } else if (data->IsUnknownDtype() || weight->IsUnknownDtype()) {
    out_dtype = DataType::Void();
  } else if (data->dtype != weight->dtype) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'weight' must have the dtype of 'data' (" << data->dtype
                             << "), got " << weight->dtype << " (or give out_dtype)";
  } else {
    out_dtype = data->dtype;
  }
  auto ds = data->GetShape();
  auto ws = weight->GetShape();
  if (!ds || !ws) return TensorStructInfo(out_dtype, 4);
  const Array<PrimExpr>& d = *ds;
  const Array<PrimExpr>& w = *ws;
  arith::Analyzer analyzer;
  PrimExpr in_channels = analyzer.Simplify(w[1] * Dim(groups));
  if (analyzer.CanProve(not_equal(in_channels, d[1]))) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'weight' has " << nn_attrs::DimText(w[1])
                              << " input channels per group; with groups=" << groups << " that is "
                              << nn_attrs::DimText(in_channels) << " channels, but operand 'data' has "
                              << nn_attrs::DimText(d[1]);
  }
  if (const auto* o = w[0].as<IntImmNode>(); o && o->value % groups != 0) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'weight' has " << o->value
                              << " output channels, not divisible by groups=" << groups;
  }
  PrimExpr out_hw[2];
  for (int k = 0; k < 2; ++k) {
    PrimExpr span = d[2 + k] + Dim(pad[k] + pad[k + 2]) - (w[2 + k] - Dim(1)) * Dim(dilation[k]) - Dim(1);
    out_hw[k] = analyzer.Simplify(floordiv(span, Dim(strides[k])) + Dim(1));
    if (const auto* v = out_hw[k].as<IntImmNode>(); v && v->value < 1) {
      TESSERA_THROW(ValueError) << OpName(call) << ": the dilated kernel of operand 'weight' (" << nn_attrs::DimText(w[2 + k])
                                << " taps, dilation " << dilation[k] << ") is larger than the padded input "
                                << (k == 0 ? "height" : "width") << " of operand 'data'";
    }
  }
  return TensorStructInfo(ShapeExpr(Array<PrimExpr>{d[0], w[0], out_hw[0], out_hw[1]}), out_dtype);
}

static auto& reg_conv2d = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.nn.conv2d")
                   .set_num_inputs(2)
                   .describe("2-D convolution (NCHW data, OIHW weight)."),
               InferConv2D, true),
    {{"strides", nn_attrs::DefaultInts({1, 1})},
     {"padding", nn_attrs::DefaultInts({0, 0, 0, 0})},
     {"dilation", nn_attrs::DefaultInts({1, 1})},
     {"groups", AttrDefaultInt(1)},
     {"data_layout", nn_attrs::DefaultStr("NCHW")},
     {"kernel_layout", nn_attrs::DefaultStr("OIHW")},
     {"out_layout", nn_attrs::DefaultStr("NCHW")},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

}  // namespace

}  // namespace relax
}  // namespace tessera
