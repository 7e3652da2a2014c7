"""More ONNX operators: normalizations beyond batch / layer norm (InstanceNormalization,
MeanVarianceNormalization), GlobalLpPool, OneHot, ScatterElements and ScatterND (TE
kernels: the last update to a position wins, or add / mul / max / min reductions), and the
com.microsoft fusions exporters of transformers emit (Gelu, BiasGelu,
SkipLayerNormalization)."""
# pylint: disable=unused-argument
import numpy as np

from .... import te, tir
from ... import op as _op
from ...expr import const
from ..common import emit_layer_norm
from .registry import register


def _scalar(value, dtype):
    return const(np.asarray(value, dtype=dtype), dtype)


@register("InstanceNormalization")
def _instance_norm(ctx, inputs, attrs):
    x, scale, bias = (ctx.expr(v, n) for v, n in zip(inputs, ("input", "scale", "B")))
    shape = ctx.shape(x, "input")
    n, c = shape[:2]
    flat = ctx.emit(_op.reshape(x, [n, c, -1]))
    normed = ctx.emit(_op.reshape(emit_layer_norm(ctx, flat, None, None, 2, attrs.get("epsilon", 1e-5)), shape))
    affine = [c] + [1] * (len(shape) - 2)
    normed = ctx.emit(_op.multiply(normed, ctx.emit(_op.reshape(scale, affine))))
    return ctx.emit(_op.add(normed, ctx.emit(_op.reshape(bias, affine))))


@register("MeanVarianceNormalization")
def _mvn(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    dtype = ctx.dtype(x)
    axes = [ctx.normalize_axis(a, ctx.ndim(x), "axes") for a in attrs.get("axes", [0, 2, 3])]
    mean = ctx.emit(_op.mean(x, axis=axes, keepdims=True))
    centered = ctx.emit(_op.subtract(x, mean))
    var = ctx.emit(_op.mean(ctx.emit(_op.multiply(centered, centered)), axis=axes, keepdims=True))
    std = ctx.emit(_op.sqrt(var))
    return ctx.emit(_op.divide(centered, ctx.emit(_op.add(std, _scalar(1e-9, dtype)))))


@register("GlobalLpPool")
def _global_lp_pool(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    dtype = ctx.dtype(x)
    p = float(attrs.get("p", 2))
    axes = list(range(2, ctx.ndim(x)))
    powered = ctx.emit(_op.power(ctx.emit(_op.abs(x)), _scalar(p, dtype)))
    total = ctx.emit(_op.sum(powered, axis=axes, keepdims=True))
    return ctx.emit(_op.power(total, _scalar(1.0 / p, dtype)))


def _one_hot_te(indices, values, depth, axis):
    def compute(*idx):
        pos = idx[axis]
        src = tuple(v for d, v in enumerate(idx) if d != axis)
        i = indices[src]
        i = tir.if_then_else(i < 0, i + depth, i)
        return tir.if_then_else(tir.Cast("int64", i) == pos, values[1], values[0])
    shape = list(indices.shape)
    shape.insert(axis, depth)
    return te.compute(shape, compute, name="one_hot")


@register("OneHot")
def _one_hot(ctx, inputs, attrs):
    indices, values = ctx.expr(inputs[0], "indices"), ctx.expr(inputs[2], "values")
    depth = ctx.known(inputs[1])
    if depth is None:
        raise ctx.unsupported("a depth computed at run time")
    depth = int(np.asarray(depth.numeric()).reshape(-1)[0])
    axis = ctx.normalize_axis(int(attrs.get("axis", -1)), ctx.ndim(indices) + 1, "axis")
    if ctx.dtype(indices) != "int64":
        indices = ctx.emit(_op.astype(indices, "int64"))
    return ctx.bb.emit_te(_one_hot_te, indices, values, depth, axis, primfunc_name_hint="one_hot")


_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _reduce_hits(reduction, hit, value, axis):
    """The updates that hit one position, folded by ``reduction`` (its identity where none hit)."""
    dtype = value.dtype
    if reduction == "add":
        return te.sum(tir.if_then_else(hit, value, tir.const(0, dtype)), axis=axis)
    if reduction == "max":
        return te.max(tir.if_then_else(hit, value, tir.min_value(dtype)), axis=axis)
    if reduction == "min":
        return te.min(tir.if_then_else(hit, value, tir.max_value(dtype)), axis=axis)
    product = te.comm_reducer(lambda a, b: a * b, lambda t: tir.const(1, t), name="product")
    return product(tir.if_then_else(hit, value, tir.const(1, dtype)), axis=axis)


def _hits(mode, hit, r, value):
    """Over reduce axis ``r``: the last hitting index ("none"), the number of hits
    ("count"), or the hitting ``value``s folded by the reduction ``mode``."""
    if mode == "none":
        return te.max(tir.if_then_else(hit, r.var, tir.const(-1, "int64")), axis=r)
    if mode == "count":
        return te.sum(tir.if_then_else(hit, tir.const(1, "int64"), tir.const(0, "int64")), axis=r)
    return _reduce_hits(mode, hit, value, r)


def _scatter(data, fold, reduction, update_at, name):
    """The scatter's result: with a reduction, data folded with the hitting updates;
    without, the last hitting update (``update_at(idx, last)`` loads it) or data."""
    if reduction != "none":
        return _apply(reduction, data, te.compute(data.shape, fold(reduction), name=f"{name}_fold"),
                      te.compute(data.shape, fold("count"), name=f"{name}_count"))
    found = te.compute(data.shape, fold("none"), name=f"{name}_find")

    def pick(*idx):
        last = found[idx]
        return tir.if_then_else(last >= 0, update_at(idx, last), data[idx])
    return te.compute(data.shape, pick, name=name)


def _apply(reduction, data, folded, count):
    """``data`` combined with the folded updates where ``count`` > 0 hit it."""
    def compute(*idx):
        old, new = data[idx], folded[idx]
        combined = {"add": old + new, "mul": old * new, "max": tir.max(old, new), "min": tir.min(old, new)}[reduction]
        return tir.if_then_else(count[idx] > 0, combined, old)
    return te.compute(data.shape, compute, name="scatter_apply")


def _scatter_elements_te(data, indices, updates, axis, reduction):
    dshape, ushape = list(data.shape), [int(d) for d in indices.shape]
    size = dshape[axis]

    def fold(mode):
        """The updates hitting each position: the last one's index ("none"), how many
        ("count"), or folded by the reduction."""
        return lambda *idx: _fold_elements(idx, mode)

    def _fold_elements(idx, mode):
        inside = [idx[d] < ushape[d] for d in range(len(dshape)) if d != axis]
        clamp = [tir.min(v, ushape[d] - 1) if d != axis else v for d, v in enumerate(idx)]
        r = te.reduce_axis((0, ushape[axis]), name="r")
        at = tuple(r.var if d == axis else v for d, v in enumerate(clamp))
        target = indices[at]
        target = tir.if_then_else(target < 0, target + size, target)
        hit = tir.all(*(inside + [target == idx[axis]])) if inside else target == idx[axis]
        return _hits(mode, hit, r, updates[at])

    def update_at(idx, last):
        return updates[tuple(tir.max(last, 0) if d == axis else tir.min(v, ushape[d] - 1) for d, v in enumerate(idx))]
    return _scatter(data, fold, reduction, update_at, "scatter_elements")


@register("ScatterElements", "Scatter", attr_values={"reduction": _REDUCTIONS})
def _scatter_elements(ctx, inputs, attrs):
    data, indices, updates = (ctx.expr(v, n) for v, n in zip(inputs, ("data", "indices", "updates")))
    axis = ctx.normalize_axis(int(attrs.get("axis", 0)), ctx.ndim(data), "axis")
    if ctx.dtype(indices) != "int64":
        indices = ctx.emit(_op.astype(indices, "int64"))
    return ctx.bb.emit_te(_scatter_elements_te, data, indices, updates, axis, attrs.get("reduction", "none"),
                          primfunc_name_hint="scatter_elements")


def _scatter_nd_te(data, indices, updates, reduction):
    dshape = list(data.shape)
    ishape = [int(d) for d in indices.shape]
    k = ishape[-1]
    qshape = ishape[:-1]
    strides = [int(np.prod(qshape[i + 1:], dtype=np.int64)) for i in range(len(qshape))]
    total = int(np.prod(qshape, dtype=np.int64))

    def unflatten(q):
        return [tir.floormod(tir.floordiv(q, s), n) for s, n in zip(strides, qshape)]

    def fold(mode):
        return lambda *idx: _fold_nd(idx, mode)

    def _fold_nd(idx, mode):
        r = te.reduce_axis((0, total), name="q")
        qs = unflatten(r.var)
        conds = []
        for m in range(k):
            t = indices[tuple(qs + [m])]
            t = tir.if_then_else(t < 0, t + dshape[m], t)
            conds.append(t == idx[m])
        return _hits(mode, tir.all(*conds), r, updates[tuple(qs + list(idx[k:]))])

    def update_at(idx, last):
        return updates[tuple(unflatten(tir.max(last, 0)) + list(idx[k:]))]
    return _scatter(data, fold, reduction, update_at, "scatter_nd")


@register("ScatterND", attr_values={"reduction": _REDUCTIONS})
def _scatter_nd(ctx, inputs, attrs):
    data, indices, updates = (ctx.expr(v, n) for v, n in zip(inputs, ("data", "indices", "updates")))
    if ctx.dtype(indices) != "int64":
        indices = ctx.emit(_op.astype(indices, "int64"))
    return ctx.bb.emit_te(_scatter_nd_te, data, indices, updates, attrs.get("reduction", "none"),
                          primfunc_name_hint="scatter_nd")


# -- com.microsoft fusions -----------------------------------------------------------------
@register("Gelu", domain="com.microsoft")
def _ms_gelu(ctx, inputs, attrs):
    return ctx.emit(_op.nn.gelu(ctx.expr(inputs[0])))


@register("BiasGelu", domain="com.microsoft")
def _ms_bias_gelu(ctx, inputs, attrs):
    return ctx.emit(_op.nn.gelu(ctx.emit(_op.add(ctx.expr(inputs[0]), ctx.expr(inputs[1], "bias")))))


@register("SkipLayerNormalization", domain="com.microsoft")
def _ms_skip_layer_norm(ctx, inputs, attrs):
    x = ctx.emit(_op.add(ctx.expr(inputs[0], "input"), ctx.expr(inputs[1], "skip")))
    gamma = ctx.expr(inputs[2], "gamma")
    beta = ctx.expr(inputs[3], "beta") if len(inputs) > 3 and inputs[3] is not None else None
    if len(inputs) > 4 and inputs[4] is not None:
        x = ctx.emit(_op.add(x, ctx.expr(inputs[4], "bias")))
    return emit_layer_norm(ctx, x, gamma, beta, ctx.ndim(x) - 1, attrs.get("epsilon", 1e-12))


__all__ = []
