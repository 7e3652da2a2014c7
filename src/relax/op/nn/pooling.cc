// 2-D pooling Relax operators (TVM's relax/op/nn/pooling.cc): relax.nn.max_pool2d,
// avg_pool2d (pool_size, strides, padding in 1/2/4 values, dilation, ceil_mode,
// count_include_pad) and adaptive_avg_pool2d (output_size), with their struct-info
// inference; layout/out_layout may be any permutation of NCHW, packed sub-axes included
// (NHWC, NCHW16c: nn_layout.h). With ceil_mode a window that would start in the
// bottom/right padding is dropped, as PyTorch does. Relax IR layer; legalization
// is registered next to the Python constructors (python/tessera/relax/op/nn/pooling.py).
#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "relax/op/nn/nn_layout.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

// The data operand of a pooling call with its layout and out_layout (NCHW permutations).
struct PoolData {
  const TensorStructInfoNode* sinfo;
  NNLayout layout, out_layout;
  // The data shape in NCHW; nullopt when unknown.
  std::optional<Array<PrimExpr>> Shape() const {
    auto s = sinfo->GetShape();
    if (!s) return std::nullopt;
    return layout.ToCanonical(*s);
  }
};

PoolData Data4D(const Call& call) {
  CheckNumArgs(call, 1, 1);
  const auto* data = ArgSInfoAs<TensorStructInfoNode>(call, 0, "data", "a tensor");
  std::string layout = nn_attrs::Str(call, "layout");
  std::string out_layout = nn_attrs::Str(call, "out_layout");  // none: layout's
  PoolData p{data, NNLayout::Parse(call, "layout", layout, "NCHW"),
             NNLayout::Parse(call, "out_layout", out_layout.empty() ? layout : out_layout, "NCHW")};
  if (!data->IsUnknownNdim() && data->ndim != p.layout.ndim()) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'data' must be " << p.layout.ndim() << "-D ("
                              << p.layout.text() << "), got " << data->ndim << " dimensions";
  }
  return p;
}

StructInfo InferPool2D(const Call& call, const BlockBuilder&) {
  using namespace tir;  // NOLINT: PrimExpr arithmetic
  PoolData p = Data4D(call);
  const auto* data = p.sinfo;
  std::vector<int64_t> pool = nn_attrs::PositivePair(call, "pool_size");
  std::vector<int64_t> strides = nn_attrs::PositivePair(call, "strides");
  std::vector<int64_t> dilation = nn_attrs::PositivePair(call, "dilation");
  std::vector<int64_t> pad = nn_attrs::Ints(call, "padding", {1, 2, 4});
  if (pad.size() == 1) pad = {pad[0], pad[0], pad[0], pad[0]};
  if (pad.size() == 2) pad = {pad[0], pad[1], pad[0], pad[1]};
  for (int64_t v : pad) {
    if (v < 0) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'padding' must be >= 0, got " << v;
  }
  bool ceil_mode = nn_attrs::Bool(call, "ceil_mode");
  nn_attrs::Bool(call, "count_include_pad");  // type-checked; used by the avg legalization
  auto ds = p.Shape();
  if (!ds) return TensorStructInfo(data->dtype, p.out_layout.ndim());
  const Array<PrimExpr>& d = *ds;
  arith::Analyzer analyzer;
  PrimExpr out_hw[2];
  for (int k = 0; k < 2; ++k) {
    PrimExpr span = d[2 + k] + Dim(pad[k] + pad[k + 2] - (pool[k] - 1) * dilation[k] - 1);
    if (ceil_mode) span = span + Dim(strides[k] - 1);
    PrimExpr out = analyzer.Simplify(floordiv(span, Dim(strides[k])) + Dim(1));
    if (ceil_mode) {
      // The last window must start inside the input or its top/left padding.
      PrimExpr starts_late = (out - Dim(1)) * Dim(strides[k]) >= d[2 + k] + Dim(pad[k]);
      if (analyzer.CanProve(starts_late)) {
        out = analyzer.Simplify(out - Dim(1));
      } else if (!analyzer.CanProve(!starts_late)) {
        return TensorStructInfo(data->dtype, p.out_layout.ndim());  // depends on the symbolic size
      }
    }
    if (const auto* v = out.as<IntImmNode>(); v && v->value < 1) {
      TESSERA_THROW(ValueError) << OpName(call) << ": the pooling window (" << pool[k] << " taps, dilation "
                                << dilation[k] << ") is larger than the padded input "
                                << (k == 0 ? "height" : "width") << " of operand 'data'";
    }
    out_hw[k] = out;
  }
  return TensorStructInfo(ShapeExpr(p.out_layout.FromCanonical(call, {d[0], d[1], out_hw[0], out_hw[1]})), data->dtype);
}

StructInfo InferAdaptivePool2D(const Call& call, const BlockBuilder&) {
  PoolData p = Data4D(call);
  const auto* data = p.sinfo;
  if (!data->IsUnknownDtype() && !data->dtype.is_float()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'data' must have a float dtype, got " << data->dtype;
  }
  bool has_size = nn_attrs::Find(call, "output_size").has_value();
  std::vector<int64_t> size;
  if (has_size) size = nn_attrs::PositivePair(call, "output_size");
  auto ds = p.Shape();
  if (!ds) return TensorStructInfo(data->dtype, p.out_layout.ndim());
  const Array<PrimExpr>& d = *ds;
  Array<PrimExpr> out = has_size ? Array<PrimExpr>{d[0], d[1], Dim(size[0]), Dim(size[1])} : d;
  return TensorStructInfo(ShapeExpr(p.out_layout.FromCanonical(call, out)), data->dtype);
}

// The registry entry of pooling op `name`: one operand, out_layout=None is layout, per-dim lists
// completed as TVM's constructor does (padding=[1, 2] is [1, 2, 1, 2]).
OpRegEntry& PoolEntry(const char* name) {
  OpRegEntry& entry = SetDefaultFrom(OpRegEntry::RegisterOrGet(name).set_num_inputs(1), {{"out_layout", "layout"}});
  if (std::string(name) == "relax.nn.adaptive_avg_pool2d") return entry;
  return SetExpandAttrs(entry, {{"pool_size", 2}, {"strides", 2}, {"dilation", 2}, {"padding", 4}});
}

const std::vector<AttrParam>& Pool2DSignature() {
  static const std::vector<AttrParam> sig = {
      {"pool_size", nn_attrs::DefaultInts({1, 1})},  {"strides", nn_attrs::DefaultInts({1, 1})},
      {"padding", nn_attrs::DefaultInts({0, 0, 0, 0})}, {"dilation", nn_attrs::DefaultInts({1, 1})},
      {"ceil_mode", AttrDefaultBool(false)},           {"count_include_pad", AttrDefaultBool(false)},
      {"layout", nn_attrs::DefaultStr("NCHW")},        {"out_layout", Any()}};
  return sig;
}

static auto& reg_max_pool2d = SetAttrSignature(
    SetRelaxOp(PoolEntry("relax.nn.max_pool2d").describe("2-D max pooling."),
               InferPool2D, true),
    Pool2DSignature());
static auto& reg_avg_pool2d = SetAttrSignature(
    SetRelaxOp(
        PoolEntry("relax.nn.avg_pool2d").describe("2-D average pooling."),
        InferPool2D, true),
    Pool2DSignature());
static auto& reg_adaptive_avg_pool2d = SetAttrSignature(
    SetRelaxOp(PoolEntry("relax.nn.adaptive_avg_pool2d")
                   .describe("2-D adaptive average pooling to attribute 'output_size'."),
               InferAdaptivePool2D, true),
    {{"output_size", Any()}, {"layout", nn_attrs::DefaultStr("NCHW")}, {"out_layout", Any()}});

}  // namespace

}  // namespace relax
}  // namespace tessera
