"""ONNX reductions and scans: ReduceMean / Sum / Max / Min / Prod (axes as the
attribute or, from ReduceSum-13 and opset 18, the input), ArgMax / ArgMin, TopK and
CumSum (TE kernels: Relax has no operator for them). ReduceProd and ReduceSum of
Known values fold (element counts in shape computations)."""
# pylint: disable=unused-argument
import numpy as np

from .... import te, tir
from ... import op as _op
from ..common import cumsum_te
from .registry import register
from .values import Known, simplify

_REDUCE = {"ReduceMean": (_op.mean, np.mean), "ReduceSum": (_op.sum, np.sum), "ReduceMax": (_op.max, np.max),
           "ReduceMin": (_op.min, np.min), "ReduceProd": (_op.prod, np.prod)}


def _pre_post(ctx, op_type, x):
    """The elementwise step before, and the one after, the sum of the composite reductions."""
    if op_type == "ReduceSumSquare":
        return ctx.emit(_op.multiply(x, x)), None
    if op_type == "ReduceL1":
        return ctx.emit(_op.abs(x)), None
    if op_type == "ReduceL2":
        return ctx.emit(_op.multiply(x, x)), _op.sqrt
    if op_type == "ReduceLogSum":
        return x, _op.log
    return ctx.emit(_op.exp(x)), _op.log  # ReduceLogSumExp (see the max-shifted form below)


_COMPOSITE = ("ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp")


@register(*_REDUCE, *_COMPOSITE)
def _reduce(ctx, inputs, attrs):
    x = inputs[0]
    ndim = ctx.vndim(x, "data")
    keepdims = bool(attrs.get("keepdims", 1))
    if "axes" in attrs:
        axes = [int(a) for a in attrs["axes"]]
    elif len(inputs) > 1 and inputs[1] is not None:
        axes = [int(a) for a in ctx.known_ints(inputs[1], "axes")]
    else:
        axes = []
    if not axes:
        if attrs.get("noop_with_empty_axes", 0):
            return x
        axes = list(range(ndim))
    axes = sorted({ctx.normalize_axis(a, ndim, "axes") for a in axes})
    op_type = ctx.node.op_type
    if op_type in _COMPOSITE:
        x = ctx.expr(x, "data")
        if op_type == "ReduceLogSumExp":  # log(sum(exp(x - max))) + max, stable
            peak = ctx.emit(_op.max(x, axis=axes, keepdims=True))
            shifted = ctx.emit(_op.exp(ctx.emit(_op.subtract(x, peak))))
            total = ctx.emit(_op.log(ctx.emit(_op.sum(shifted, axis=axes, keepdims=keepdims))))
            if not keepdims:
                peak = ctx.emit(_op.squeeze(peak, axes))
            return ctx.emit(_op.add(total, peak))
        pre, post = _pre_post(ctx, op_type, x)
        total = ctx.emit(_op.sum(pre, axis=axes, keepdims=keepdims))
        return ctx.emit(post(total)) if post is not None else total
    relax_fn, np_fn = _REDUCE[op_type]
    if isinstance(x, Known):
        if not x.symbolic:
            return Known(np.asarray(np_fn(x.numeric(), axis=tuple(axes), keepdims=keepdims)).astype(x.dtype), x.dtype)
        if ctx.node.op_type in ("ReduceProd", "ReduceSum") and ndim == 1:
            total = x.array[0]
            for v in x.array[1:]:
                total = total * v if ctx.node.op_type == "ReduceProd" else total + v
            out = np.empty([1] if keepdims else [], dtype=object)
            out[...] = simplify(total)
            return Known(out, x.dtype)
    return ctx.emit(relax_fn(ctx.expr(x, "data"), axis=axes, keepdims=keepdims))


@register("ArgMax", "ArgMin", attr_values={"select_last_index": (0,)})
def _argmax(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "data")
    axis = ctx.normalize_axis(int(attrs.get("axis", 0)), ctx.ndim(x), "axis")
    fn = _op.argmax if ctx.node.op_type == "ArgMax" else _op.argmin
    return ctx.emit(fn(x, axis=axis, keepdims=bool(attrs.get("keepdims", 1))))


def _topk_te(data, k, axis, largest):
    """Rank-based top-k: rank(i) counts the elements ordered before element i (ties
    by index, as ONNX), then output r is the element of rank r."""
    n = data.shape[axis]
    j = te.reduce_axis((0, n), name="j")

    def before(idx, other):
        a, b = data[idx], data[tuple(other if d == axis else v for d, v in enumerate(idx))]
        better = (b > a) if largest else (b < a)
        return tir.Or(better, tir.And(b == a, other < idx[axis]))

    rank = te.compute(data.shape, lambda *idx: te.sum(tir.Cast("int64", before(idx, j.var)), axis=j), name="rank")
    out_shape = [k if d == axis else s for d, s in enumerate(data.shape)]
    i2 = te.reduce_axis((0, n), name="i")

    def pick(value_of):
        def compute(*idx):
            src = tuple(i2.var if d == axis else v for d, v in enumerate(idx))
            hit = rank[src] == idx[axis]
            return te.sum(tir.if_then_else(hit, value_of(src), tir.const(0, value_of(src).dtype)), axis=i2)
        return compute

    values = te.compute(out_shape, pick(lambda src: data[src]), name="topk_values")
    i3 = te.reduce_axis((0, n), name="i")

    def index_compute(*idx):
        src = tuple(i3.var if d == axis else v for d, v in enumerate(idx))
        return te.sum(tir.if_then_else(rank[src] == idx[axis], i3.var, tir.const(0, "int64")), axis=i3)
    indices = te.compute(out_shape, index_compute, name="topk_indices")
    return [values, indices]


@register("TopK", max_outputs=2, attr_values={"sorted": (1,)})
def _topk(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "X")
    shape = ctx.shape(x, "X")
    axis = ctx.normalize_axis(int(attrs.get("axis", -1)), len(shape), "axis")
    k = int(attrs["k"]) if ctx.opset < 10 else int(ctx.known_ints(inputs[1], "K")[0])
    if not 0 <= k <= shape[axis]:
        raise ctx.unsupported(f"K={k} for an axis of size {shape[axis]}")
    out = ctx.bb.emit_te(_topk_te, x, k, axis, bool(attrs.get("largest", 1)), primfunc_name_hint="topk")
    return [ctx.emit(out[0]), ctx.emit(out[1])]


@register("CumSum")
def _cumsum(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "x")
    axis = ctx.normalize_axis(int(ctx.known_ints(inputs[1], "axis")[0]), ctx.ndim(x), "axis")
    return ctx.bb.emit_te(cumsum_te, x, axis, bool(attrs.get("exclusive", 0)), bool(attrs.get("reverse", 0)),
                          primfunc_name_hint="cumsum")


__all__ = []
