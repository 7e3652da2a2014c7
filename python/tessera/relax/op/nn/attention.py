"""``relax.op.nn.attention(query, key, value, bias=None, scale=None, causal_mask=None)``
(TVM v0.18's signature; struct-info inference in src/relax/op/nn/attention.cc) and its
legalization: one TE function computing the scores Q K^T * scale (+ bias, dims of 1
broadcast), the causal mask ("TopLeft": key j visible from query i when j <= i;
"BottomRight": when j <= i + seq_kv - seq), the softmax over the keys and the product
with V, on (batch, seq, heads, head_dim) tensors."""
import math

from .._legalize_registry import register_legalize
from ....error import TVMValueError
from ._common import call_attrs, float_attr, make_call, str_attr


def attention(query, key, value, bias=None, scale=None, causal_mask=None, window_size=None):
    """softmax(query key^T * scale + bias) value per batch and head; ``scale`` None is
    1 / sqrt(head_dim); ``causal_mask`` None, "TopLeft" or "BottomRight"."""
    name = "relax.nn.attention"
    if window_size is not None:
        raise TVMValueError(f"{name}: window_size is not supported (only None)")
    args = [("query", query), ("key", key), ("value", value)] + ([("bias", bias)] if bias is not None else [])
    return make_call(name, args, {"scale": None if scale is None else float_attr(name, "scale", scale),
                                  "causal_mask": None if causal_mask is None else str_attr(name, "causal_mask",
                                                                                           causal_mask),
                                  "window_size": None})


def _attention_te(query, key, value, bias=None, scale=None, causal_mask=None):
    from .... import te, tir, topi  # pylint: disable=import-outside-toplevel
    batch, seq, heads, head_dim = query.shape
    seq_kv, head_dim_v = key.shape[1], value.shape[3]
    dtype = query.dtype
    if scale is None:
        scale = 1.0 / math.sqrt(int(head_dim))
    rk = te.reduce_axis((0, head_dim), name="rk")
    scores = te.compute((batch, heads, seq, seq_kv),
                        lambda b, n, i, j: te.sum(query[b, i, n, rk] * key[b, j, n, rk], axis=rk), name="T_scores")

    def biased(b, n, i, j):
        value_ = scores[b, n, i, j] * tir.const(scale, dtype)
        if bias is not None:
            idx = [0 if isinstance(d, tir.IntImm) and d.value == 1 else v for d, v in zip(bias.shape, (b, n, i, j))]
            value_ = value_ + bias[tuple(idx)]
        if causal_mask is not None:
            limit = i if causal_mask == "TopLeft" else i + seq_kv - seq
            value_ = tir.Select(j <= limit, value_, tir.const(-math.inf, dtype))
        return value_

    logits = te.compute((batch, heads, seq, seq_kv), biased, name="T_logits")
    probs = topi.nn.softmax(logits, axis=3)
    rj = te.reduce_axis((0, seq_kv), name="rj")
    return te.compute((batch, seq, heads, head_dim_v),
                      lambda b, i, n, h: te.sum(probs[b, n, i, rj] * value[b, rj, n, h], axis=rj),
                      name="T_attention")


@register_legalize("relax.nn.attention")
def _legalize_attention(bb, call):
    a = call_attrs(call)
    scale = a.get("scale")
    return bb.call_te(_attention_te, *call.args, scale=None if scale is None else float(scale),
                      causal_mask=a.get("causal_mask"), primfunc_name_hint="attention")


__all__ = ["attention"]
