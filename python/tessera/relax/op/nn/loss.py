"""Relax loss operators with TVM v0.18's signatures:
``relax.op.nn.cross_entropy_with_logits(predictions, labels)`` and
``relax.op.nn.nll_loss(predictions, targets, weights=None, reduction="mean",
ignore_index=-100)``. Struct-info inference in src/relax/op/nn/loss.cc; the
legalization to TE (written here, as TVM's TOPI formulas) beside the
constructors."""
from .._legalize_registry import register_legalize
from ._common import make_call, int_attr, call_attrs
from ....error import TVMValueError


def cross_entropy_with_logits(predictions, labels):
    """``-sum(predictions * labels) / N`` for (N, C) inputs (no division for 1-D ones): a scalar."""
    return make_call("relax.nn.cross_entropy_with_logits", [("predictions", predictions), ("labels", labels)], None)


def nll_loss(predictions, targets, weights=None, reduction="mean", ignore_index=-100):
    """Negative log likelihood: predictions (N, C, d1..dk) or (C,) of log-probabilities, targets
    (N, d1..dk) or () of class indices, weights (C,) (default ones); ``reduction`` "mean" (weighted
    mean over the targets not equal to ``ignore_index``), "sum" or "none"."""
    op_name = "relax.nn.nll_loss"
    if reduction not in ("mean", "sum", "none"):
        raise TVMValueError(f'{op_name}: reduction must be "mean", "sum" or "none", got {reduction!r}')
    args = [("predictions", predictions), ("targets", targets)] + ([("weights", weights)] if weights is not None
                                                                   else [])
    return make_call(op_name, args, {"reduction": reduction,
                                     "ignore_index": int_attr(op_name, "ignore_index", ignore_index)})


def _te():
    from .... import te, tir, topi  # pylint: disable=import-outside-toplevel
    return te, tir, topi


@register_legalize("relax.nn.cross_entropy_with_logits")
def _legalize_cross_entropy(bb, call):
    te, _, topi = _te()

    def compute(x, y):
        total = topi.sum(topi.multiply(x, y))
        if len(x.shape) == 1:
            return te.compute((), lambda: -total(), name="T_cross_entropy")
        return te.compute((), lambda: -total() / x.shape[0].astype(x.dtype), name="T_cross_entropy")

    return bb.call_te(compute, call.args[0], call.args[1], primfunc_name_hint="cross_entropy_with_logits")


@register_legalize("relax.nn.nll_loss")
def _legalize_nll_loss(bb, call):
    te, tir, topi = _te()
    attrs = call_attrs(call)
    reduction, ignore_index = attrs["reduction"], int(attrs["ignore_index"])

    def compute(pred, tgt, weights=None):
        batched = len(pred.shape) >= 2
        zero = tir.const(0, pred.dtype)

        def weight_of(t):
            return weights(t) if weights is not None else tir.const(1, pred.dtype)

        def loss_at(*idx):
            t = tgt(*idx).astype("int64")
            p = pred(idx[0], t, *idx[1:]) if batched else pred(t)
            return tir.Select(t != tir.const(ignore_index, "int64"), -p * weight_of(t), zero)

        def weight_at(*idx):
            t = tgt(*idx).astype("int64")
            return tir.Select(t != tir.const(ignore_index, "int64"), weight_of(t), zero)

        loss = te.compute(tgt.shape, loss_at, name="T_nll_loss")
        if reduction == "none":
            return loss
        total = topi.sum(loss)
        if reduction == "sum":
            return total
        weight = topi.sum(te.compute(tgt.shape, weight_at, name="T_nll_weight"))
        return te.compute((), lambda: total() / weight(), name="T_nll_mean")

    return bb.call_te(compute, *call.args, primfunc_name_hint="nll_loss")


__all__ = ["cross_entropy_with_logits", "nll_loss"]
