"""ONNX neural-network operators: Conv (1-D, 2-D; groups, pads, strides, dilations,
auto_pad), ConvTranspose (a TE kernel), BatchNormalization, LayerNormalization,
Softmax / LogSoftmax (both opset semantics), MaxPool / AveragePool / Global*Pool,
Gemm, MatMul, Einsum (a TE kernel). Emitted through the builders shared with the
PyTorch importer (frontend/common.py)."""
# pylint: disable=unused-argument
import numpy as np

from .... import te, tir
from ... import op as _op
from ...expr import const
from ..common import emit_batch_norm, emit_conv, emit_conv_transpose, emit_layer_norm, emit_softmax
from .registry import register

_AUTO_PAD = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def spatial_pads(ctx, attrs, in_spatial, kernel, strides, dilations):
    """ONNX ``pads`` as (begins, ends), with ``auto_pad`` resolved on static sizes."""
    rank = len(kernel)
    auto_pad = attrs.get("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        begins, ends = [], []
        for size, k, s, d in zip(in_spatial, kernel, strides, dilations):
            if not isinstance(size, int):
                raise ctx.unsupported(f"auto_pad={auto_pad} over the symbolic dimension {size}")
            out = -(-size // s)
            total = max(0, (out - 1) * s + (k - 1) * d + 1 - size)
            small, large = total // 2, total - total // 2
            begins.append(small if auto_pad == "SAME_UPPER" else large)
            ends.append(large if auto_pad == "SAME_UPPER" else small)
        return begins, ends
    if auto_pad == "VALID":
        return [0] * rank, [0] * rank
    pads = [int(p) for p in attrs.get("pads", [0] * (2 * rank))]
    if len(pads) != 2 * rank:
        raise ctx.unsupported(f"pads={pads} for a {rank}-d kernel")
    return pads[:rank], pads[rank:]


def _ints(attrs, name, default):
    return [int(v) for v in attrs.get(name, default)]


def _lift_1d(ctx, x, what):
    """A rank-3 NCL tensor as NCL1 (1-d convolutions and pools run as 2-d)."""
    return ctx.emit(_op.expand_dims(x, 3))


def _pool_nd_te(data, kind, kernel, strides, dilations, begins, ends, out_spatial, count_include_pad):
    """N-d max / average pool (average divides by the window's in-bounds size unless
    count_include_pad)."""
    in_spatial = [int(d) for d in data.shape[2:]]
    ks = [te.reduce_axis((0, k), name=f"k{i}") for i, k in enumerate(kernel)]

    def window(pos):
        conds, idx = [], []
        for p, k, s, d, b, size in zip(pos, ks, strides, dilations, begins, in_spatial):
            i = p * s + k.var * d - b
            conds += [i >= 0, i < size]
            idx.append(tir.max(tir.min(i, size - 1), 0))
        return tir.all(*conds), idx

    if kind == "max":
        def compute(n, c, *pos):
            inside, idx = window(pos)
            return te.max(tir.if_then_else(inside, data[(n, c, *idx)], tir.min_value(data.dtype)), axis=ks)
        return te.compute([data.shape[0], data.shape[1]] + list(out_spatial), compute, name="max_pool_nd")

    def total(n, c, *pos):
        inside, idx = window(pos)
        return te.sum(tir.if_then_else(inside, data[(n, c, *idx)], tir.const(0, data.dtype)), axis=ks)
    sums = te.compute([data.shape[0], data.shape[1]] + list(out_spatial), total, name="sum_pool_nd")

    def average(n, c, *pos):
        count = tir.const(1, "int64")
        for p, k, s, d, b, e, size in zip(pos, kernel, strides, dilations, begins, ends, in_spatial):
            lo = p * s - b
            hi = lo + (k - 1) * d + 1
            if count_include_pad:  # the window within the padded input
                count = count * tir.Cast("int64", tir.floordiv(tir.min(hi, size + e) - lo + d - 1, d))
            else:  # taps inside the input
                first = tir.max(lo, 0)
                last = tir.min(hi, size)
                taps = tir.floordiv(last - lo + d - 1, d) - tir.floordiv(first - lo + d - 1, d)
                count = count * tir.max(tir.Cast("int64", taps), 1)
        return sums[(n, c, *pos)] / tir.Cast(data.dtype, count)
    return te.compute([data.shape[0], data.shape[1]] + list(out_spatial), average, name="avg_pool_nd")


def _out_size(size, k, s, d, b, e, ceil_mode=False):
    span = size + b + e - ((k - 1) * d + 1)
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + b:  # the last window must start inside the input or left pad
        out -= 1
    return out


def _conv_args(ctx, inputs, attrs):
    """X, W, B (or None), the spatial rank, kernel, strides and dilations of a Conv / ConvTranspose."""
    x, w = ctx.expr(inputs[0], "X"), ctx.expr(inputs[1], "W")
    bias = ctx.expr(inputs[2], "B") if len(inputs) > 2 and inputs[2] is not None else None
    rank = ctx.ndim(x, "X") - 2
    return (x, w, bias, rank, ctx.shape(w, "W")[2:], _ints(attrs, "strides", [1] * rank),
            _ints(attrs, "dilations", [1] * rank))


@register("Conv", attr_values={"auto_pad": _AUTO_PAD})
def _conv(ctx, inputs, attrs):
    x, w, bias, _, kernel, strides, dilations = _conv_args(ctx, inputs, attrs)
    begins, ends = spatial_pads(ctx, attrs, ctx.dims(x)[2:], kernel, strides, dilations)
    return emit_conv(ctx, x, w, bias, strides, begins, ends, dilations, attrs.get("group", 1))


@register("ConvTranspose", attr_values={"auto_pad": _AUTO_PAD})
def _conv_transpose(ctx, inputs, attrs):
    x, w, bias, rank, kernel, strides, dilations = _conv_args(ctx, inputs, attrs)
    in_spatial = ctx.shape(x, "X")[2:]
    out_pad = _ints(attrs, "output_padding", [0] * rank)
    groups = int(attrs.get("group", 1))
    full = [s * (i - 1) + op + (k - 1) * d + 1 for s, i, op, k, d in zip(strides, in_spatial, out_pad, kernel,
                                                                         dilations)]
    auto_pad = attrs.get("auto_pad", "NOTSET")
    if "output_shape" in attrs or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out_spatial = [int(v) for v in attrs["output_shape"]][-rank:] if "output_shape" in attrs \
            else [i * s for i, s in zip(in_spatial, strides)]
        totals = [f - o for f, o in zip(full, out_spatial)]
        begins = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in totals]
    else:
        begins, ends = spatial_pads(ctx, attrs, in_spatial, kernel, strides, dilations)
        out_spatial = [f - b - e for f, b, e in zip(full, begins, ends)]
    if any(o <= 0 for o in out_spatial):
        raise ctx.unsupported(f"ConvTranspose with an empty output {out_spatial}")
    return emit_conv_transpose(ctx, x, w, bias, strides, dilations, begins, out_spatial, groups)


@register("BatchNormalization", attr_values={"training_mode": (0,), "spatial": (1,)})
def _batch_norm(ctx, inputs, attrs):
    x, scale, bias, mean, var = (ctx.expr(v, n) for v, n in zip(inputs[:5], ("X", "scale", "B", "mean", "var")))
    return emit_batch_norm(ctx, x, scale, bias, mean, var, attrs.get("epsilon", 1e-5), axis=1)


@register("LayerNormalization")
def _layer_norm(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "X")
    ndim = ctx.ndim(x, "X")
    axis = ctx.normalize_axis(attrs.get("axis", -1), ndim, "axis")
    norm_shape = ctx.dims(x)[axis:]
    params = []
    for value, what in ((inputs[1], "Scale"), (inputs[2] if len(inputs) > 2 else None, "B")):
        if value is None:
            params.append(None)
            continue
        value = ctx.expr(value, what)
        if ctx.dims(value, what) != norm_shape:
            value = ctx.emit(_op.broadcast_to(value, norm_shape))
        params.append(value)
    return emit_layer_norm(ctx, x, params[0], params[1], axis, attrs.get("epsilon", 1e-5))


@register("Softmax", "LogSoftmax")
def _softmax(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    log = ctx.node.op_type == "LogSoftmax"
    ndim = ctx.ndim(x)
    if ctx.opset >= 13:
        return emit_softmax(ctx, x, attrs.get("axis", -1), log)
    axis = ctx.normalize_axis(attrs.get("axis", 1), ndim, "axis")
    if axis == ndim - 1:
        return emit_softmax(ctx, x, -1, log)
    # opset < 13: the input is coerced to 2-d at axis
    dims = ctx.dims(x)
    flat = ctx.emit(_op.reshape(x, [_prod(dims[:axis]), _prod(dims[axis:])]))
    return ctx.emit(_op.reshape(emit_softmax(ctx, flat, 1, log), dims))


def _prod(dims):
    result = 1
    for d in dims:
        result = result * d
    return result


def _pool(ctx, inputs, attrs, kind):
    x = ctx.expr(inputs[0], "X")
    rank = ctx.ndim(x, "X") - 2
    kernel = _ints(attrs, "kernel_shape", [])
    if len(kernel) != rank:
        raise ctx.unsupported(f"kernel_shape={kernel} for a rank-{rank + 2} input")
    strides = _ints(attrs, "strides", [1] * rank)
    dilations = _ints(attrs, "dilations", [1] * rank)
    begins, ends = spatial_pads(ctx, attrs, ctx.dims(x)[2:], kernel, strides, dilations)
    if rank > 2:
        ceil_mode = bool(attrs.get("ceil_mode", 0))
        out = [_out_size(i, k, s, d, b, e, ceil_mode) for i, k, s, d, b, e in zip(ctx.shape(x)[2:], kernel, strides,
                                                                                   dilations, begins, ends)]
        return ctx.bb.emit_te(_pool_nd_te, x, kind, kernel, strides, dilations, begins, ends, out,
                              bool(attrs.get("count_include_pad", 0)), primfunc_name_hint=f"{kind}_pool_nd")
    if rank == 1:
        x = _lift_1d(ctx, x, "X")
        kernel, strides, dilations, begins, ends = kernel + [1], strides + [1], dilations + [1], begins + [0], \
            ends + [0]
    ceil_mode = bool(attrs.get("ceil_mode", 0))
    if kind == "max":
        out = ctx.emit(_op.nn.max_pool2d(x, pool_size=kernel, strides=strides, padding=begins + ends,
                                         dilation=dilations, ceil_mode=ceil_mode))
    else:
        out = ctx.emit(_op.nn.avg_pool2d(x, pool_size=kernel, strides=strides, padding=begins + ends,
                                         dilation=dilations, ceil_mode=ceil_mode,
                                         count_include_pad=bool(attrs.get("count_include_pad", 0))))
    return ctx.emit(_op.squeeze(out, [3])) if rank == 1 else out


@register("MaxPool", attr_values={"auto_pad": _AUTO_PAD, "storage_order": (0,)})
def _max_pool(ctx, inputs, attrs):
    return _pool(ctx, inputs, attrs, "max")


@register("AveragePool", attr_values={"auto_pad": _AUTO_PAD})
def _avg_pool(ctx, inputs, attrs):
    return _pool(ctx, inputs, attrs, "avg")


@register("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "X")
    axes = list(range(2, ctx.ndim(x, "X")))
    fn = _op.mean if ctx.node.op_type == "GlobalAveragePool" else _op.max
    return ctx.emit(fn(x, axis=axes, keepdims=True))


@register("MatMul")
def _matmul(ctx, inputs, attrs):
    return ctx.emit(_op.matmul(ctx.expr(inputs[0], "A"), ctx.expr(inputs[1], "B")))


@register("Gemm")
def _gemm(ctx, inputs, attrs):
    a, b = ctx.expr(inputs[0], "A"), ctx.expr(inputs[1], "B")
    dtype = ctx.dtype(a)
    if attrs.get("transA", 0):
        a = ctx.emit(_op.permute_dims(a, [1, 0]))
    if attrs.get("transB", 0):
        b = ctx.emit(_op.permute_dims(b, [1, 0]))
    out = ctx.emit(_op.matmul(a, b))
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    if alpha != 1.0:
        out = ctx.emit(_op.multiply(out, const(np.asarray(alpha, dtype), dtype)))
    if len(inputs) > 2 and inputs[2] is not None and beta != 0.0:
        c = ctx.expr(inputs[2], "C")
        if beta != 1.0:
            c = ctx.emit(_op.multiply(c, const(np.asarray(beta, dtype), dtype)))
        out = ctx.emit(_op.add(out, c))
    return out


def _einsum_te(*operands, terms, out_term, sizes):
    reduce_letters = sorted({c for t in terms for c in t} - set(out_term))
    raxes = {c: te.reduce_axis((0, sizes[c]), name=f"r_{c}") for c in reduce_letters}

    def compute(*idx):
        where = dict(zip(out_term, idx))
        where.update({c: ax.var for c, ax in raxes.items()})
        value = None
        for op, term in zip(operands, terms):
            load = op[tuple(where[c] for c in term)]
            value = load if value is None else value * load
        return te.sum(value, axis=list(raxes.values())) if raxes else value

    return te.compute([sizes[c] for c in out_term], compute, name="einsum")


@register("Einsum")
def _einsum(ctx, inputs, attrs):
    equation = attrs.get("equation", "").replace(" ", "")
    if "..." in equation:
        raise ctx.unsupported(f"Einsum with an ellipsis (equation {equation!r})")
    lhs, _, out_term = equation.partition("->")
    terms = lhs.split(",")
    operands = [ctx.expr(v, f"input {i}") for i, v in enumerate(inputs)]
    if len(terms) != len(operands):
        raise ctx.unsupported(f"equation {equation!r} for {len(operands)} inputs")
    if "->" not in equation:
        counts = {}
        for c in lhs.replace(",", ""):
            counts[c] = counts.get(c, 0) + 1
        out_term = "".join(sorted(c for c, n in counts.items() if n == 1))
    sizes = {}
    for term, operand in zip(terms, operands):
        shape = ctx.shape(operand, "input")
        if len(term) != len(shape):
            raise ctx.unsupported(f"equation term {term!r} for an input of rank {len(shape)}")
        for c, d in zip(term, shape):
            if sizes.setdefault(c, d) != d:
                raise ctx.unsupported(f"equation letter {c!r} with sizes {sizes[c]} and {d}")
    return ctx.bb.emit_te(_einsum_te, *operands, terms=terms, out_term=out_term, sizes=sizes,
                          primfunc_name_hint="einsum")


__all__ = ["spatial_pads"]
