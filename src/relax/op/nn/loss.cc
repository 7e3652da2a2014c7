// Relax loss operators (TVM's relax/op/nn/nn.cc loss part):
// relax.nn.cross_entropy_with_logits(predictions, labels) -> a scalar, and
// relax.nn.nll_loss(predictions, targets[, weights]; reduction, ignore_index)
// -> a scalar ("mean", "sum") or one loss per target ("none"), with their
// struct-info inference and the errors naming op and operand. Relax IR layer;
// legalization in python/tessera/relax/op/nn/loss.py.
#include "arith/analyzer.h"
#include "relax/op/nn/nn_attrs.h"

namespace tessera {
namespace relax {

namespace {

const TensorStructInfoNode* Tensor(const Call& call, size_t i, const char* operand) {
  return ArgSInfoAs<TensorStructInfoNode>(call, i, operand, "a tensor");
}

// The dims of a tensor whose shape is a ShapeExpr (TVM reads no other for these ops).
std::optional<Array<PrimExpr>> LiteralShape(const TensorStructInfoNode* t) {
  if (!t->shape) return std::nullopt;
  if (const auto* s = t->shape->as<ShapeExprNode>()) return s->values;
  return std::nullopt;
}

// Dims `a` and `b` must agree when both are constants; ValueError otherwise.
void CheckSameDim(const Call& call, const PrimExpr& a, const PrimExpr& b, const std::string& what) {
  auto x = ConstDim(a), y = ConstDim(b);
  if (x && y && *x != *y) {
    TESSERA_THROW(ValueError) << OpName(call) << ": " << what << " (" << *x << " vs " << *y << ")";
  }
}

StructInfo InferCrossEntropy(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 2);
  const auto* pred = Tensor(call, 0, "predictions");
  const auto* labels = Tensor(call, 1, "labels");
  if (!pred->IsUnknownNdim() && !labels->IsUnknownNdim() && pred->ndim != labels->ndim) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operands 'predictions' (" << pred->ndim
                              << " dimensions) and 'labels' (" << labels->ndim << ") must have the same shape";
  }
  DataType dtype = DataType::Void();
  if (!pred->IsUnknownDtype() && !labels->IsUnknownDtype()) {
    if (pred->dtype != labels->dtype) {
      TESSERA_THROW(TypeError) << OpName(call) << ": operands 'predictions' (" << pred->dtype << ") and 'labels' ("
                               << labels->dtype << ") must have the same dtype";
    }
    dtype = pred->dtype;
  }
  auto ps = LiteralShape(pred), ls = LiteralShape(labels);
  if (ps && ls) {
    for (size_t i = 0; i < ps->size(); ++i) {
      CheckSameDim(call, (*ps)[i], (*ls)[i],
                   "dimension " + std::to_string(i) + " of operands 'predictions' and 'labels' differs");
    }
  }
  return TensorStructInfo(ShapeExpr(Array<PrimExpr>()), dtype);
}

// nll_loss: predictions (N, C, d1..dk) or (C,), targets (N, d1..dk) or (), weights (C,).
StructInfo InferNLLLoss(const Call& call, const BlockBuilder&) {
  CheckNumArgs(call, 2, 3);
  const auto* pred = Tensor(call, 0, "predictions");
  const auto* tgt = Tensor(call, 1, "targets");
  const TensorStructInfoNode* w = call->args.size() == 3 ? Tensor(call, 2, "weights") : nullptr;
  std::string reduction = nn_attrs::Str(call, "reduction");
  if (reduction != "none" && reduction != "mean" && reduction != "sum") {
    TESSERA_THROW(ValueError) << OpName(call) << ": attribute 'reduction' must be \"none\", \"mean\" or \"sum\", got \""
                              << reduction << "\"";
  }
  if (!tgt->IsUnknownDtype() && !(tgt->dtype.is_int() || tgt->dtype.is_uint() || tgt->dtype.is_bool())) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operand 'targets' must have an integer dtype (class indices), got "
                             << tgt->dtype;
  }
  DataType dtype = pred->dtype;
  if (w && !w->IsUnknownDtype() && !pred->IsUnknownDtype() && w->dtype != pred->dtype) {
    TESSERA_THROW(TypeError) << OpName(call) << ": operands 'predictions' (" << pred->dtype << ") and 'weights' ("
                             << w->dtype << ") must have the same dtype";
  }
  if (w && w->IsUnknownDtype()) dtype = DataType::Void();
  if (!pred->IsUnknownNdim()) {
    if (pred->ndim == 0) TESSERA_THROW(ValueError) << OpName(call) << ": operand 'predictions' must have at least 1 dimension";
    int want = pred->ndim == 1 ? 0 : pred->ndim - 1;
    if (!tgt->IsUnknownNdim() && tgt->ndim != want) {
      TESSERA_THROW(ValueError) << OpName(call) << ": operand 'targets' must have " << want
                                << " dimensions for predictions of " << pred->ndim << ", got " << tgt->ndim;
    }
  }
  if (w && !w->IsUnknownNdim() && w->ndim != 1) {
    TESSERA_THROW(ValueError) << OpName(call) << ": operand 'weights' must be 1-D (one weight per class), got "
                              << w->ndim << " dimensions";
  }
  auto ps = LiteralShape(pred);
  if (ps) {
    bool batched = ps->size() >= 2;
    PrimExpr classes = batched ? (*ps)[1] : (*ps)[0];
    if (w) {
      if (auto ws = LiteralShape(w); ws && ws->size() == 1) {
        CheckSameDim(call, classes, (*ws)[0], "operand 'weights' must have one weight per class of 'predictions'");
      }
    }
    if (auto ts = LiteralShape(tgt); ts && batched && ts->size() + 1 == ps->size()) {
      CheckSameDim(call, (*ps)[0], (*ts)[0], "the batch of operands 'predictions' and 'targets' differs");
      for (size_t i = 1; i < ts->size(); ++i) {
        CheckSameDim(call, (*ps)[i + 1], (*ts)[i],
                     "dimension " + std::to_string(i) + " of operand 'targets' differs from 'predictions'");
      }
    }
  }
  if (reduction != "none") return TensorStructInfo(ShapeExpr(Array<PrimExpr>()), dtype);
  if (ps) {
    Array<PrimExpr> out;
    if (ps->size() >= 2) {
      out.push_back((*ps)[0]);
      for (size_t i = 2; i < ps->size(); ++i) out.push_back((*ps)[i]);
    }
    return TensorStructInfo(ShapeExpr(out), dtype);
  }
  if (pred->IsUnknownNdim()) return TensorStructInfo(dtype, StructInfoNode::kUnknownNDim);
  return TensorStructInfo(dtype, pred->ndim == 1 ? 0 : pred->ndim - 1);
}

static auto& reg_cross_entropy = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.nn.cross_entropy_with_logits")
                   .set_num_inputs(2)
                   .describe("-sum(predictions * labels) / batch (no division for 1-D inputs): a scalar."),
               InferCrossEntropy, true),
    std::vector<AttrParam>{});

static auto& reg_nll_loss = SetAttrSignature(
    SetRelaxOp(OpRegEntry::RegisterOrGet("relax.nn.nll_loss")
                   .set_num_inputs(3)
                   .describe("Negative log likelihood of the targets' classes in predictions (log-probabilities), "
                             "weighted; reduced by 'mean' (weighted), 'sum' or 'none'."),
               InferNLLLoss, true),
    std::vector<AttrParam>{{"reduction", nn_attrs::DefaultStr("mean")}, {"ignore_index", AttrDefaultInt(-100)}});

}  // namespace

}  // namespace relax
}  // namespace tessera
