// Relax neural-network operators other than convolution and pooling
// (TVM's relax/op/nn/nn.cc): relax.nn.relu, leakyrelu, gelu, gelu_tanh, silu, softmax,
// log_softmax, layer_norm, group_norm, batch_norm (inference) and dropout (inference),
// with their struct-info inference. Relax IR layer; the legalization to TOPI
// is registered next to the Python constructors (python/tessera/relax/op/nn/nn.py).
#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"
#include "tir/op.h"

namespace tessera {
namespace relax {

namespace {

const TensorStructInfoNode* Tensor(const Call& call, size_t i, const char* operand) {
  return ArgSInfoAs<TensorStructInfoNode>(call, i, operand, "a tensor");
}

StructInfo SameAs(const TensorStructInfoNode* x) {
  if (x->shape) return TensorStructInfo(*x->shape, x->dtype);
  return TensorStructInfo(x->dtype, x->ndim);
}

void CheckFloat(const Call& call, const TensorStructInfoNode* x, const char* operand) {
  if (!x->IsUnknownDtype() && !x->dtype.is_float()) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand '" << operand << "' must have a float dtype, got "
                             << x->dtype;
  }
}

void CheckSameDtype(const Call& call, const TensorStructInfoNode* x, const TensorStructInfoNode* y, const char* operand) {
  // As TVM: a parameter of unknown dtype does not pass for data of a known one.
  if (!x->IsUnknownDtype() && x->dtype != y->dtype) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand '" << operand << "' must have the dtype of 'data' ("
                             << x->dtype << "), got " << (y->IsUnknownDtype() ? std::string("an unknown dtype")
                                                                                 : y->dtype.str());
  }
}

// `axis` in [-ndim, ndim) as a non-negative index (unchecked when ndim is unknown).
int64_t NormalizeAxis(const Call& call, const char* attr, int64_t axis, int ndim) {
  if (ndim == StructInfoNode::kUnknownNDim) return axis;
  if (axis < -ndim || axis >= ndim) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute '" << attr << "' = " << axis
                              << " is out of range for operand 'data' with " << ndim << " dimensions";
  }
  return axis < 0 ? axis + ndim : axis;
}

// ValueError when `a` and `b` are provably different dimensions.
void CheckDimEqual(const Call& call, const PrimExpr& a, const PrimExpr& b, const std::string& what) {
  arith::Analyzer analyzer;
  const auto* ia = a.as<IntImmNode>();
  const auto* ib = b.as<IntImmNode>();
  if ((ia && ib && ia->value != ib->value) || analyzer.CanProve(tir::not_equal(a, b))) {
    TESSERA_THROW(ValueError) << OpName(call) << ": " << what << " (" << nn_attrs::DimText(a) << " vs " << nn_attrs::DimText(b) << ")";
  }
}

// A per-channel parameter (gamma, beta, moving statistics): data's dtype, 1-D, of the
// length of data's dimension `axis` (`what` names that dimension in the message).
const TensorStructInfoNode* CheckChannelParam(const Call& call, const TensorStructInfoNode* data, size_t arg,
                                              const char* name, int64_t axis, const std::string& what) {
  const auto* p = Tensor(call, arg, name);
  CheckSameDtype(call, data, p, name);
  if (!p->IsUnknownNdim() && p->ndim != 1) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << name << "' must be 1-D, got " << p->ndim
                              << " dimensions";
  }
  auto dshape = data->GetShape();
  auto pshape = p->GetShape();
  if (dshape && pshape) {
    CheckDimEqual(call, (*pshape)[0], (*dshape)[axis],
                  std::string("the length of operand '") + name + "' must equal " + what);
  }
  return p;
}

// Elementwise activations: relu accepts any numeric dtype, the others only floats.
StructInfo InferActivation(const Call& call, const BlockBuilder&, bool float_only) {
  CheckNumArgs(call, 1, 1);
  const auto* x = Tensor(call, 0, "data");
  if (float_only) CheckFloat(call, x, "data");
  return SameAs(x);
}

StructInfo InferSoftmax(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = Tensor(call, 0, "data");
  CheckFloat(call, x, "data");
  if (x->ndim == 0) TESSERA_THROW(ValueError) << OpName(call) << ": operand 'data' must have at least one dimension";
  NormalizeAxis(call, "axis", nn_attrs::Int(call, "axis"), x->ndim);
  return SameAs(x);
}

// layer_norm(data, gamma, beta; axes, epsilon, center, scale): gamma and beta
// have the shape of data's normalized dimensions.
StructInfo InferLayerNorm(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 3);
  const auto* data = Tensor(call, 0, "data");
  const TensorStructInfoNode* params[2] = {Tensor(call, 1, "gamma"), Tensor(call, 2, "beta")};
  const char* names[2] = {"gamma", "beta"};
  CheckFloat(call, data, "data");
  std::vector<int64_t> axes = nn_attrs::Ints(call, "axes", {});  // required: no signature default
  if (axes.empty()) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'axes' must not be empty";
  for (int64_t& a : axes) a = NormalizeAxis(call, "axes", a, data->ndim);
  for (size_t i = 0; i < axes.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (axes[i] == axes[j] && data->ndim != StructInfoNode::kUnknownNDim) {
        TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'axes' repeats axis " << axes[i];
      }
    }
  }
  auto dshape = data->GetShape();
  for (int k = 0; k < 2; ++k) {
    const auto* p = params[k];
    CheckSameDtype(call, data, p, names[k]);
    if (!p->IsUnknownNdim() && p->ndim != static_cast<int>(axes.size())) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand '" << names[k] << "' must have " << axes.size()
                                << " dimension(s) (one per normalized axis), got " << p->ndim;
    }
    auto pshape = p->GetShape();
    if (dshape && pshape) {
      for (size_t i = 0; i < axes.size(); ++i) {
        CheckDimEqual(call, (*pshape)[i], (*dshape)[axes[i]],
                      std::string("dimension ") + std::to_string(i) + " of operand '" + names[k] +
                          "' must equal dimension " + std::to_string(axes[i]) + " of 'data'");
      }
    }
  }
  return SameAs(data);
}

// group_norm(data, gamma, beta; num_groups, channel_axis, axes, epsilon, center,
// scale): gamma and beta are 1-D of data's channel count, which num_groups divides.
StructInfo InferGroupNorm(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 3, 3);
  const auto* data = Tensor(call, 0, "data");
  CheckFloat(call, data, "data");
  int64_t groups = nn_attrs::Int(call, "num_groups");
  if (groups < 1) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'num_groups' must be >= 1, got " << groups;
  int64_t channel_axis = NormalizeAxis(call, "channel_axis", nn_attrs::Int(call, "channel_axis"), data->ndim);
  for (int64_t a : nn_attrs::Ints(call, "axes", {})) {
    if (NormalizeAxis(call, "axes", a, data->ndim) == channel_axis && data->ndim != StructInfoNode::kUnknownNDim) {
      TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'axes' must not contain the channel axis " << channel_axis;
    }
  }
  auto dshape = data->GetShape();
  if (dshape) {
    if (const auto* c = (*dshape)[channel_axis].as<IntImmNode>(); c && c->value % groups != 0) {
      TESSERA_THROW(ValueError) << OpName(call) << ": the " << c->value << " channels of operand 'data' are not "
                                << "divisible by num_groups=" << groups;
    }
  }
  CheckChannelParam(call, data, 1, "gamma", channel_axis, "the channel count of 'data'");
  CheckChannelParam(call, data, 2, "beta", channel_axis, "the channel count of 'data'");
  return SameAs(data);
}

// batch_norm(data, gamma, beta, moving_mean, moving_var; axis, epsilon, center,
// scale, momentum) -> (out, moving_mean, moving_var) as TVM's.
StructInfo InferBatchNorm(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 5, 5);
  const auto* data = Tensor(call, 0, "data");
  CheckFloat(call, data, "data");
  if (data->ndim == 0) TESSERA_THROW(ValueError) << OpName(call) << ": operand 'data' must have at least one dimension";
  int64_t axis = NormalizeAxis(call, "axis", nn_attrs::Int(call, "axis"), data->ndim);  // required: no default
  double eps = nn_attrs::Float(call, "epsilon");
  if (!(eps >= 0)) TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'epsilon' must be >= 0, got " << eps;
  const char* names[4] = {"gamma", "beta", "moving_mean", "moving_var"};
  auto dshape = data->GetShape();
  Array<StructInfo> fields{SameAs(data)};
  for (int k = 0; k < 4; ++k) {
    const auto* p = CheckChannelParam(call, data, k + 1, names[k], axis,
                                      "dimension " + std::to_string(axis) + " (the channel axis) of 'data'");
    if (k >= 2) {
      if (dshape) {
        fields.push_back(TensorStructInfo(ShapeExpr(Array<PrimExpr>{(*dshape)[axis]}), data->dtype));
      } else {
        fields.push_back(SameAs(p));
      }
    }
  }
  return TupleStructInfo(fields);
}

// dropout(data; rate) -> (out, mask), both shaped like data (TVM's).
StructInfo InferDropout(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 1, 1);
  const auto* x = Tensor(call, 0, "data");  // any dtype, as TVM's (inference dropout is the identity)
  double rate = nn_attrs::Float(call, "rate");
  if (!(rate >= 0 && rate < 1)) {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'rate' must be in [0, 1), got " << rate;
  }
  return TupleStructInfo(Array<StructInfo>{SameAs(x), SameAs(x)});
}

#define TESSERA_RELAX_NN_OP(VAR, NAME, N, INFER, DESC, ...)                                                  \
  static auto& reg_nn_##VAR = SetAttrSignature(                                                             \
      SetRelaxOp(OpRegEntry::RegisterOrGet("relax.nn." NAME).set_num_inputs(N).describe(DESC), INFER, true), \
      std::vector<AttrParam>{__VA_ARGS__})

StructInfo InferFloatActivation(const Call& c, const BlockBuilder& b) { return InferActivation(c, b, true); }
StructInfo InferAnyActivation(const Call& c, const BlockBuilder& b) { return InferActivation(c, b, false); }

TESSERA_RELAX_NN_OP(relu, "relu", 1, InferAnyActivation, "Elementwise max(data, 0).");
TESSERA_RELAX_NN_OP(leakyrelu, "leakyrelu", 1, InferFloatActivation, "Elementwise data if data > 0 else alpha * data.",
                    {"alpha", nn_attrs::DefaultFloat(0.01)});
TESSERA_RELAX_NN_OP(gelu, "gelu", 1, InferFloatActivation, "Elementwise GELU, erf form: 0.5 x (1 + erf(x / sqrt(2))).");
TESSERA_RELAX_NN_OP(gelu_tanh, "gelu_tanh", 1, InferFloatActivation, "Elementwise GELU, tanh approximation.");
TESSERA_RELAX_NN_OP(silu, "silu", 1, InferFloatActivation, "Elementwise x * sigmoid(x).");
TESSERA_RELAX_NN_OP(softmax, "softmax", 1, InferSoftmax, "Softmax along attribute 'axis'.", {"axis", AttrDefaultInt(-1)});
TESSERA_RELAX_NN_OP(log_softmax, "log_softmax", 1, InferSoftmax, "Log-softmax along attribute 'axis'.",
                    {"axis", AttrDefaultInt(-1)});
TESSERA_RELAX_NN_OP(layer_norm, "layer_norm", 3, InferLayerNorm, "Layer normalization over attribute 'axes'.",
                    {"axes", std::nullopt}, {"epsilon", nn_attrs::DefaultFloat(1e-5)},
                    {"center", AttrDefaultBool(true)}, {"scale", AttrDefaultBool(true)});
TESSERA_RELAX_NN_OP(group_norm, "group_norm", 3, InferGroupNorm,
                    "Group normalization: channels in num_groups groups, normalized over each group and 'axes'.",
                    {"num_groups", std::nullopt}, {"channel_axis", std::nullopt}, {"axes", std::nullopt},
                    {"epsilon", nn_attrs::DefaultFloat(1e-5)}, {"center", AttrDefaultBool(true)},
                    {"scale", AttrDefaultBool(true)});
TESSERA_RELAX_NN_OP(batch_norm, "batch_norm", 5, InferBatchNorm,
                    "Batch normalization with the moving statistics (inference): (out, moving_mean, moving_var).",
                    {"axis", std::nullopt}, {"epsilon", nn_attrs::DefaultFloat(1e-5)},
                    {"center", AttrDefaultBool(true)}, {"scale", AttrDefaultBool(true)},
                    {"momentum", nn_attrs::DefaultFloat(0.1)});
TESSERA_RELAX_NN_OP(dropout, "dropout", 1, InferDropout, "Dropout (inference: identity): (out, mask).",
                    {"rate", nn_attrs::DefaultFloat(0.5)});

}  // namespace

}  // namespace relax
}  // namespace tessera
