// relax.nn.conv1d, conv2d, conv3d, conv1d_transpose and conv2d_transpose (TVM's relax/op/nn/convolution.cc):
// struct-info inference for NCW/NCHW/NCDHW data and OIW/OIHW/OIDHW (transposed: IOHW) weights
// with strides, padding, dilation, output_padding and groups (depthwise included);
// data/kernel/out layouts may be any permutation of those letters, packed sub-axes
// included (NHWC, HWIO, NCHW16c: nn_layout.h). Relax
// IR layer; legalization to TOPI is registered next to the Python
// constructor (python/tessera/relax/op/nn/convolution.py).
#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "relax/op/nn/nn_layout.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

// The layouts of an `nd`-D convolution (1: NCW/OIW, 2: NCHW/OIHW, 3: NCDHW/OIDHW; a
// transposed convolution's weight is IOW/IOHW).
struct ConvLayouts {
  std::string data, kernel;
};
ConvLayouts LayoutsOf(int nd, bool transpose) {
  std::string sp = nd == 1 ? "W" : nd == 2 ? "HW" : "DHW";
  return {"NC" + sp, (transpose ? "IO" : "OI") + sp};
}

// `nd` ints given as 1 or nd values, each >= `lo`; errors name op and attribute.
std::vector<int64_t> PerDim(const Call& call, const char* attr, int nd, int64_t lo) {
  std::vector<int64_t> v = nn_attrs::Ints(call, attr, {1, static_cast<size_t>(nd)});
  if (v.size() == 1) v.assign(nd, v[0]);
  for (int64_t x : v) {
    if (x < lo) TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' must be >= " << lo << ", got " << x;
  }
  return v;
}

// Padding before and after each spatial dim: (before..., after...), from 1, nd or 2*nd values.
std::vector<int64_t> Padding(const Call& call, int nd) {
  std::vector<int64_t> p = nn_attrs::Ints(call, "padding", {1, static_cast<size_t>(nd), static_cast<size_t>(2 * nd)});
  if (p.size() == 1) p.assign(2 * nd, p[0]);
  if (static_cast<int>(p.size()) == nd) p.insert(p.end(), p.begin(), p.end());
  for (int64_t v : p) {
    if (v < 0) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'padding' must be >= 0, got " << v;
  }
  return p;
}

// Struct info of conv1d/conv2d (transpose=false) and conv2d_transpose (true): data NC<sp>,
// weight OI<sp> (transposed: IO<sp>, O per group), output NC<sp>.
StructInfo InferConv(const Call& call, int nd, bool transpose) {
  using namespace tir;  // NOLINT: PrimExpr arithmetic
  CheckNumArgs(call, 2, 2);
  const auto* data = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  const auto* weight = ArgSInfoAs<TensorStructInfoNode>(call, 1, "weight", "a tensor");
  ConvLayouts l = LayoutsOf(nd, transpose);
  NNLayout data_layout = NNLayout::Parse(call, "data_layout", nn_attrs::Str(call, "data_layout"), l.data);
  NNLayout kernel_layout = NNLayout::Parse(call, "kernel_layout", nn_attrs::Str(call, "kernel_layout"), l.kernel);
  std::string out_text = nn_attrs::Str(call, "out_layout");  // none: data_layout's
  NNLayout out_layout = NNLayout::Parse(call, "out_layout", out_text.empty() ? data_layout.text() : out_text, l.data);
  std::vector<int64_t> strides = PerDim(call, "strides", nd, 1);
  std::vector<int64_t> dilation = PerDim(call, "dilation", nd, 1);
  std::vector<int64_t> pad = Padding(call, nd);
  std::vector<int64_t> out_pad(nd, 0);
  if (transpose) {
    out_pad = PerDim(call, "output_padding", nd, 0);
    for (int k = 0; k < nd; ++k) {
      if (out_pad[k] >= strides[k] && out_pad[k] >= dilation[k]) {
        TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'output_padding' (" << out_pad[k]
                                  << ") must be smaller than the stride (" << strides[k] << ") or the dilation ("
                                  << dilation[k] << ")";
      }
    }
  }
  int64_t groups = nn_attrs::Int(call, "groups");
  if (groups < 1) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'groups' must be >= 1, got " << groups;
  for (auto [t, name, layout] : {std::tuple{data, "data", &data_layout}, std::tuple{weight, "weight", &kernel_layout}}) {
    if (!t->IsUnknownNdim() && t->ndim != layout->ndim()) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << name << "' must be " << layout->ndim() << "-D ("
                                << layout->text() << "), got " << t->ndim << " dimensions";
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
  if (!ds || !ws) return TensorStructInfo(out_dtype, out_layout.ndim());
  const Array<PrimExpr> d = data_layout.ToCanonical(*ds);
  const Array<PrimExpr> w = kernel_layout.ToCanonical(*ws);
  arith::Analyzer analyzer;
  PrimExpr out_channels;
  if (transpose) {
    if (analyzer.CanProve(not_equal(w[0], d[1]))) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand 'weight' has " << nn_attrs::DimText(w[0])
                                << " input channels, but operand 'data' has " << nn_attrs::DimText(d[1]);
    }
    if (analyzer.CanProve(not_equal(floormod(d[1], Dim(groups)), Dim(0)))) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand 'data' has " << nn_attrs::DimText(d[1])
                                << " channels, not divisible by groups=" << groups;
    }
    out_channels = analyzer.Simplify(w[1] * Dim(groups));
  } else {
    PrimExpr in_channels = analyzer.Simplify(w[1] * Dim(groups));
    if (analyzer.CanProve(not_equal(in_channels, d[1]))) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand 'weight' has " << nn_attrs::DimText(w[1])
                                << " input channels per group; with groups=" << groups << " that is "
                                << nn_attrs::DimText(in_channels) << " channels, but operand 'data' has "
                                << nn_attrs::DimText(d[1]);
    }
    if (analyzer.CanProve(not_equal(floormod(w[0], Dim(groups)), Dim(0)))) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand 'weight' has " << nn_attrs::DimText(w[0])
                                << " output channels, not divisible by groups=" << groups;
    }
    out_channels = w[0];
  }
  Array<PrimExpr> out{d[0], out_channels};
  for (int k = 0; k < nd; ++k) {
    PrimExpr dilated_kernel = (w[2 + k] - Dim(1)) * Dim(dilation[k]) + Dim(1);
    PrimExpr e;
    if (transpose) {
      e = (d[2 + k] - Dim(1)) * Dim(strides[k]) - Dim(pad[k] + pad[k + nd]) + dilated_kernel + Dim(out_pad[k]);
    } else {
      e = floordiv(d[2 + k] + Dim(pad[k] + pad[k + nd]) - dilated_kernel, Dim(strides[k])) + Dim(1);
    }
    e = analyzer.Simplify(e);
    if (const auto* v = e.as<IntImmNode>(); v && v->value < 1) {
      TESSERA_THROW(ValueError) << OpName(call) << ": the dilated kernel of operand 'weight' ("
                                << nn_attrs::DimText(w[2 + k]) << " taps, dilation " << dilation[k]
                                << ") and operand 'data' (" << nn_attrs::DimText(d[2 + k])
                                << ") give spatial output dimension " << k << " the extent " << v->value;
    }
    out.push_back(e);
  }
  return TensorStructInfo(ShapeExpr(out_layout.FromCanonical(call, out)), out_dtype);
}

// The registry entry of convolution op `name`: two operands, out_layout=None is data_layout.
OpRegEntry& ConvEntry(const char* name) {
  return SetDefaultFrom(OpRegEntry::RegisterOrGet(name).set_num_inputs(2), {{"out_layout", "data_layout"}});
}

StructInfo InferConv1D(const Call& call, const BlockBuilder&) { return InferConv(call, 1, false); }
StructInfo InferConv2D(const Call& call, const BlockBuilder&) { return InferConv(call, 2, false); }
StructInfo InferConv3D(const Call& call, const BlockBuilder&) { return InferConv(call, 3, false); }
StructInfo InferConv1DTranspose(const Call& call, const BlockBuilder&) { return InferConv(call, 1, true); }
StructInfo InferConv2DTranspose(const Call& call, const BlockBuilder&) { return InferConv(call, 2, true); }

static auto& reg_conv1d = SetAttrSignature(
    SetRelaxOp(ConvEntry("relax.nn.conv1d")
                   .describe("1-D convolution (NCW data, OIW weight)."),
               InferConv1D, true),
    {{"strides", nn_attrs::DefaultInts({1})},
     {"padding", nn_attrs::DefaultInts({0, 0})},
     {"dilation", nn_attrs::DefaultInts({1})},
     {"groups", AttrDefaultInt(1)},
     {"data_layout", nn_attrs::DefaultStr("NCW")},
     {"kernel_layout", nn_attrs::DefaultStr("OIW")},
     {"out_layout", Any()},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

static auto& reg_conv1d_transpose = SetAttrSignature(
    SetRelaxOp(ConvEntry("relax.nn.conv1d_transpose")
                   .describe("1-D transposed convolution (NCW data, IOW weight)."),
               InferConv1DTranspose, true),
    {{"strides", nn_attrs::DefaultInts({1})},
     {"padding", nn_attrs::DefaultInts({0, 0})},
     {"output_padding", nn_attrs::DefaultInts({0})},
     {"dilation", nn_attrs::DefaultInts({1})},
     {"groups", AttrDefaultInt(1)},
     {"data_layout", nn_attrs::DefaultStr("NCW")},
     {"kernel_layout", nn_attrs::DefaultStr("IOW")},
     {"out_layout", Any()},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

static auto& reg_conv2d_transpose = SetAttrSignature(
    SetRelaxOp(ConvEntry("relax.nn.conv2d_transpose")
                   .describe("2-D transposed convolution (NCHW data, IOHW weight)."),
               InferConv2DTranspose, true),
    {{"strides", nn_attrs::DefaultInts({1, 1})},
     {"padding", nn_attrs::DefaultInts({0, 0, 0, 0})},
     {"output_padding", nn_attrs::DefaultInts({0, 0})},
     {"dilation", nn_attrs::DefaultInts({1, 1})},
     {"groups", AttrDefaultInt(1)},
     {"data_layout", nn_attrs::DefaultStr("NCHW")},
     {"kernel_layout", nn_attrs::DefaultStr("IOHW")},
     {"out_layout", Any()},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

static auto& reg_conv2d = SetAttrSignature(
    SetRelaxOp(SetExpandAttrs(ConvEntry("relax.nn.conv2d"), {{"strides", 2}, {"dilation", 2}, {"padding", 4}})
                   .describe("2-D convolution (NCHW data, OIHW weight)."),
               InferConv2D, true),
    {{"strides", nn_attrs::DefaultInts({1, 1})},
     {"padding", nn_attrs::DefaultInts({0, 0, 0, 0})},
     {"dilation", nn_attrs::DefaultInts({1, 1})},
     {"groups", AttrDefaultInt(1)},
     {"data_layout", nn_attrs::DefaultStr("NCHW")},
     {"kernel_layout", nn_attrs::DefaultStr("OIHW")},
     {"out_layout", Any()},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

static auto& expand_conv3d =
    SetExpandAttrs(OpRegEntry::RegisterOrGet("relax.nn.conv3d"), {{"strides", 3}, {"dilation", 3}, {"padding", 6}});
static auto& reg_conv3d = SetAttrSignature(
    SetRelaxOp(ConvEntry("relax.nn.conv3d")
                   .describe("3-D convolution (NCDHW data, OIDHW weight)."),
               InferConv3D, true),
    {{"strides", nn_attrs::DefaultInts({1, 1, 1})},
     {"padding", nn_attrs::DefaultInts({0, 0, 0, 0, 0, 0})},
     {"dilation", nn_attrs::DefaultInts({1, 1, 1})},
     {"groups", AttrDefaultInt(1)},
     {"data_layout", nn_attrs::DefaultStr("NCDHW")},
     {"kernel_layout", nn_attrs::DefaultStr("OIDHW")},
     {"out_layout", Any()},
     {"out_dtype", nn_attrs::DefaultStr("void")}});

}  // namespace

}  // namespace relax
}  // namespace tessera
