"""ONNX tensor-manipulation and shape operators: Shape, Size, Reshape, Flatten,
Transpose, Concat, Split, Slice, Gather, GatherElements, Unsqueeze, Squeeze, Expand,
Tile, ConstantOfShape, Range, Pad, Resize, Trilu. On Known inputs (constants, shape
values) they compute at import time, so exporters' Shape -> Gather -> Concat ->
Reshape chains fold, keeping symbolic dimensions as tir expressions."""
# pylint: disable=unused-argument
import numpy as np

from .... import te, tir
from ....error import TVMIndexError
from ....ir import PrimExpr
from ... import op as _op
from ...expr import const
from ..common import resize_te
from .registry import register
from .values import Known, simplify


def _axes_arg(ctx, inputs, attrs, index, what="axes"):
    """An op's axes: the attribute (older opsets) or the optional input ``index``."""
    if "axes" in attrs:
        return [int(a) for a in attrs["axes"]]
    if len(inputs) > index and inputs[index] is not None:
        return [int(a) for a in ctx.known_ints(inputs[index], what)]
    return None


def _as_int(value):
    return int(value) if not isinstance(value, PrimExpr) else value


@register("Shape")
def _shape(ctx, inputs, attrs):
    dims = ctx.vdims(inputs[0], "data")
    n = len(dims)
    start, end = int(attrs.get("start", 0)), int(attrs.get("end", n))
    start, end = (start + n if start < 0 else start), (end + n if end < 0 else end)
    picked = dims[max(0, min(start, n)):max(0, min(end, n))]
    array = np.empty(len(picked), dtype=object)
    for i, d in enumerate(picked):
        array[i] = d
    if not any(isinstance(d, PrimExpr) for d in picked):
        return Known(np.asarray(picked, dtype="int64"), "int64")
    return Known(array, "int64")


@register("Size")
def _size(ctx, inputs, attrs):
    total = 1
    for d in ctx.vdims(inputs[0], "data"):
        total = total * d
    total = simplify(total)
    return Known(np.asarray(total, dtype="int64" if isinstance(total, int) else object), "int64")


def reshape_target(ctx, dims, target, allowzero=0):
    """ONNX Reshape's output shape: 0 copies the input dim (unless allowzero), -1 is inferred."""
    target = [_as_int(simplify(t)) for t in target]
    out = []
    for i, t in enumerate(target):
        if isinstance(t, int) and t == 0 and not allowzero:
            if i >= len(dims):
                raise ctx.unsupported(f"shape {target}: a 0 at position {i} past the input's rank {len(dims)}")
            out.append(dims[i])
        else:
            out.append(t)
    unknown = [i for i, t in enumerate(out) if isinstance(t, int) and t == -1]
    if len(unknown) > 1:
        raise ctx.unsupported(f"shape {target} with more than one -1")
    if unknown:
        out[unknown[0]] = _quotient(ctx, list(dims), [t for i, t in enumerate(out) if i != unknown[0]], target)
    return out


def _quotient(ctx, numer, denom, target):
    """prod(numer) // prod(denom), cancelling equal symbolic factors first, so that
    (batch, seq, 16) reshaped to (batch, seq, 2, -1) infers 8, not an expression."""
    from ....ir import structural_equal  # pylint: disable=import-outside-toplevel
    numer_sym = [d for d in numer if isinstance(d, PrimExpr)]
    denom_rest = []
    for d in denom:
        if isinstance(d, PrimExpr):
            match = next((k for k, n in enumerate(numer_sym) if structural_equal(n, d)), None)
            if match is not None:
                numer_sym.pop(match)
                continue
        denom_rest.append(d)
    numer_int = int(np.prod([d for d in numer if not isinstance(d, PrimExpr)], dtype=np.int64))
    denom_int = int(np.prod([d for d in denom_rest if not isinstance(d, PrimExpr)], dtype=np.int64))
    denom_sym = [d for d in denom_rest if isinstance(d, PrimExpr)]
    if not denom_sym and denom_int and numer_int % denom_int == 0:
        result = numer_int // denom_int
        for d in numer_sym:
            result = result * d
        return simplify(result)
    if not denom_int:
        raise ctx.unsupported(f"shape {target}: -1 with a 0 elsewhere in the shape")
    total, known = numer_int, denom_int
    for d in numer_sym:
        total = total * d
    for d in denom_sym:
        known = known * d
    if isinstance(total, int) and isinstance(known, int):
        if total % known:
            raise ctx.unsupported(f"shape {target} for an input of {total} elements")
        return total // known
    return simplify(tir.floordiv(total, known))


def reshape(ctx, x, shape):
    if isinstance(x, Known):
        if x.symbolic or any(isinstance(s, PrimExpr) for s in shape):
            return Known(x.array.reshape([int(s) for s in shape]), x.dtype)
        return Known(x.numeric().reshape([int(s) for s in shape]), x.dtype)
    if list(shape) == ctx.dims(x):
        return x
    return ctx.emit(_op.reshape(x, list(shape)))


@register("Reshape")
def _reshape(ctx, inputs, attrs):
    data = inputs[0]
    target = [int(s) for s in attrs["shape"]] if "shape" in attrs else ctx.known_ints(inputs[1], "shape")
    return reshape(ctx, data, reshape_target(ctx, ctx.vdims(data, "data"), target, attrs.get("allowzero", 0)))


@register("Flatten")
def _flatten(ctx, inputs, attrs):
    dims = ctx.vdims(inputs[0], "input")
    axis = int(attrs.get("axis", 1))
    axis = axis + len(dims) if axis < 0 else axis
    if not 0 <= axis <= len(dims):
        raise ctx.unsupported(f"axis={attrs.get('axis')} for a rank-{len(dims)} input")
    outer, inner = 1, 1
    for d in dims[:axis]:
        outer = outer * d
    for d in dims[axis:]:
        inner = inner * d
    return reshape(ctx, inputs[0], [simplify(outer), simplify(inner)])


@register("Transpose")
def _transpose(ctx, inputs, attrs):
    x = inputs[0]
    ndim = ctx.vndim(x, "data")
    perm = [int(p) for p in attrs.get("perm", list(range(ndim))[::-1])]
    if sorted(perm) != list(range(ndim)):
        raise ctx.unsupported(f"perm={perm} for a rank-{ndim} input")
    if isinstance(x, Known):
        return Known(np.transpose(x.array, perm), x.dtype)
    return ctx.emit(_op.permute_dims(x, perm))


@register("Concat")
def _concat(ctx, inputs, attrs):
    values = [v for v in inputs if v is not None]
    ndim = ctx.vndim(values[0], "input 0")
    axis = ctx.normalize_axis(int(attrs.get("axis", 0)), ndim, "axis")
    if all(isinstance(v, Known) for v in values):
        if any(v.symbolic for v in values):
            return Known(np.concatenate([v.array.astype(object) for v in values], axis=axis), values[0].dtype)
        return Known(np.concatenate([v.numeric() for v in values], axis=axis), values[0].dtype)
    values = [ctx.expr(v, f"input {i}") for i, v in enumerate(values)
              if not (isinstance(v, Known) and 0 in v.shape)]
    return values[0] if len(values) == 1 else ctx.emit(_op.concat(values, axis=axis))


@register("Split", max_outputs=1 << 30)
def _split(ctx, inputs, attrs):
    x = inputs[0]
    dims = ctx.vdims(x, "input")
    axis = ctx.normalize_axis(int(attrs.get("axis", 0)), len(dims), "axis")
    outputs = len(ctx.node.output)
    if "split" in attrs:
        sizes = [int(s) for s in attrs["split"]]
    elif len(inputs) > 1 and inputs[1] is not None:
        sizes = [int(s) for s in ctx.known_ints(inputs[1], "split")]
    else:
        size = dims[axis]
        if not isinstance(size, int):
            raise ctx.unsupported(f"splitting the symbolic dimension {size}")
        parts = int(attrs.get("num_outputs", outputs))
        chunk = -(-size // parts)
        sizes = [min(chunk, size - i * chunk) for i in range(parts)]
    bounds = list(np.cumsum(sizes)[:-1])
    if isinstance(x, Known):
        return [Known(a, x.dtype) for a in np.split(x.array, bounds, axis=axis)]
    if len(sizes) == 1:
        return [x]
    parts = ctx.emit(_op.split(ctx.expr(x), [int(b) for b in bounds], axis=axis))
    return [ctx.emit(parts[i]) for i in range(len(sizes))]


@register("Slice")
def _slice(ctx, inputs, attrs):
    x = inputs[0]
    dims = ctx.vdims(x, "data")
    if ctx.opset < 10:
        starts, ends = [int(v) for v in attrs["starts"]], [int(v) for v in attrs["ends"]]
        axes = [int(v) for v in attrs.get("axes", range(len(starts)))]
        steps = [1] * len(starts)
    else:
        starts, ends = ctx.known_ints(inputs[1], "starts"), ctx.known_ints(inputs[2], "ends")
        axes = ctx.known_ints(inputs[3], "axes") if len(inputs) > 3 and inputs[3] is not None \
            else list(range(len(starts)))
        steps = ctx.known_ints(inputs[4], "steps") if len(inputs) > 4 and inputs[4] is not None \
            else [1] * len(starts)
    axes = [ctx.normalize_axis(int(a), len(dims), "axes") for a in axes]
    if isinstance(x, Known):
        index = [slice(None)] * len(dims)
        for a, b, e, s in zip(axes, starts, ends, steps):
            big = np.iinfo(np.int64).max
            index[a] = slice(int(b), None if (s > 0 and e >= big) or (s < 0 and e <= -big) else int(e), int(s))
        return Known(x.array[tuple(index)], x.dtype)
    clamp = 1 << 62
    begin = [int(max(min(b, clamp), -clamp)) for b in starts]
    end = [int(max(min(e, clamp), -clamp)) for e in ends]
    if any(s == 0 for s in steps):
        raise ctx.unsupported("a Slice step of 0")
    return ctx.emit(_op.strided_slice(x, axes=axes, begin=begin, end=end, strides=[int(s) for s in steps]))


@register("Gather")
def _gather(ctx, inputs, attrs):
    data, indices = inputs
    dims = ctx.vdims(data, "data")
    axis = ctx.normalize_axis(int(attrs.get("axis", 0)), len(dims), "axis")
    size = dims[axis]
    if isinstance(data, Known) and isinstance(indices, Known):
        idx = indices.numeric().astype("int64")
        if isinstance(size, int):
            idx = np.where(idx < 0, idx + size, idx)
        return Known(np.take(data.array, idx, axis=axis), data.dtype)
    data = ctx.expr(data, "data")
    if isinstance(indices, Known):
        idx = indices.numeric().astype("int64")
        if isinstance(size, int):
            bad = idx[(idx < -size) | (idx >= size)]
            if bad.size:
                raise TVMIndexError(f"{ctx.node_desc()}: index {int(bad.reshape(-1)[0])} out of range for axis "
                                    f"{axis} of size {size}")
            idx = np.where(idx < 0, idx + size, idx)
        elif (idx < 0).any():
            raise ctx.unsupported(f"negative indices into the symbolic dimension {size}")
        return ctx.emit(_op.take(data, const(idx, "int64"), axis=axis))
    indices = ctx.expr(indices, "indices")
    if ctx.dtype(indices) != "int64":
        indices = ctx.emit(_op.astype(indices, "int64"))
    # ONNX Runtime refuses an index outside [-size, size); so does the kernel
    # (take's "raise" mode: negative indices count from the end).
    return ctx.emit(_op.take(data, indices, axis=axis, mode="raise"))


def _gather_elements_te(data, indices, axis):
    size = data.shape[axis]

    def compute(*idx):
        # Checked at run time as ONNX Runtime does: [-size, size), negative from the end.
        i = tir.call_intrin("int64", "tir.checked_index", indices[idx], tir.Cast("int64", size),
                            tir.StringImm(f"GatherElements along axis {axis}"), tir.const(1, "int32"))
        return data[tuple(i if k == axis else v for k, v in enumerate(idx))]
    return te.compute(indices.shape, compute, name="gather_elements")


@register("GatherElements")
def _gather_elements(ctx, inputs, attrs):
    data, indices = ctx.expr(inputs[0], "data"), ctx.expr(inputs[1], "indices")
    axis = ctx.normalize_axis(int(attrs.get("axis", 0)), ctx.ndim(data), "axis")
    if ctx.dtype(indices) != "int64":
        indices = ctx.emit(_op.astype(indices, "int64"))
    return ctx.bb.emit_te(_gather_elements_te, data, indices, axis, primfunc_name_hint="gather_elements")


@register("Unsqueeze")
def _unsqueeze(ctx, inputs, attrs):
    x = inputs[0]
    axes = _axes_arg(ctx, inputs, attrs, 1)
    dims = list(ctx.vdims(x, "data"))
    out_rank = len(dims) + len(axes)
    axes = sorted(ctx.normalize_axis(a, out_rank, "axes") for a in axes)
    for a in axes:
        dims.insert(a, 1)
    if isinstance(x, Known):
        return Known(x.array.reshape(dims), x.dtype)
    result = x
    for a in axes:
        result = ctx.emit(_op.expand_dims(result, a))
    return result


@register("Squeeze")
def _squeeze(ctx, inputs, attrs):
    x = inputs[0]
    dims = ctx.vdims(x, "data")
    axes = _axes_arg(ctx, inputs, attrs, 1)
    if axes is None:
        axes = [i for i, d in enumerate(dims) if isinstance(d, int) and d == 1]
    axes = sorted(ctx.normalize_axis(a, len(dims), "axes") for a in axes)
    if isinstance(x, Known):
        return Known(x.array.reshape([d for i, d in enumerate(dims) if i not in axes]), x.dtype)
    return ctx.emit(_op.squeeze(x, axes)) if axes else x


def broadcast_dims(ctx, a, b):
    """Numpy-style broadcast of two shapes (elements ints or PrimExprs)."""
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if isinstance(x, int) and x == 1:
            out.append(y)
        elif isinstance(y, int) and y == 1:
            out.append(x)
        elif isinstance(x, int) and isinstance(y, int) and x != y:
            raise ctx.unsupported(f"broadcasting dims {x} and {y}")
        else:
            out.append(x)
    return out


@register("Expand")
def _expand(ctx, inputs, attrs):
    x = inputs[0]
    target = broadcast_dims(ctx, ctx.vdims(x, "input"), [_as_int(simplify(s))
                                                         for s in ctx.known_ints(inputs[1], "shape")])
    if isinstance(x, Known) and not any(isinstance(d, PrimExpr) for d in target):
        return Known(np.broadcast_to(x.array, target).copy(), x.dtype)
    x = ctx.expr(x, "input")
    if target == ctx.dims(x):
        return x
    return ctx.emit(_op.broadcast_to(x, target))


def _tile_te(data, repeats):
    def compute(*idx):
        return data[tuple(tir.floormod(i, d) for i, d in zip(idx, data.shape))]
    return te.compute([d * r for d, r in zip(data.shape, repeats)], compute, name="tile")


@register("Tile")
def _tile(ctx, inputs, attrs):
    x = inputs[0]
    repeats = [int(r) for r in ctx.known_ints(inputs[1], "repeats")]
    if isinstance(x, Known) and not x.symbolic:
        return Known(np.tile(x.numeric(), repeats), x.dtype)
    x = ctx.expr(x, "input")
    if len(repeats) != ctx.ndim(x):
        raise ctx.unsupported(f"repeats {repeats} for a rank-{ctx.ndim(x)} input")
    return ctx.bb.emit_te(_tile_te, x, repeats, primfunc_name_hint="tile")


@register("ConstantOfShape")
def _constant_of_shape(ctx, inputs, attrs):
    value = np.asarray(attrs.get("value", np.zeros(1, "float32"))).reshape(-1)
    dtype = "bool" if value.dtype == np.bool_ else str(value.dtype)
    shape = [_as_int(simplify(s)) for s in ctx.known_ints(inputs[0], "shape")]
    if not any(isinstance(s, PrimExpr) for s in shape):
        return Known(np.full(shape, value[0], dtype=value.dtype), dtype)
    fill = tir.const(value[0].item(), dtype)
    return ctx.emit_generated(shape, lambda *idx: fill, "constant_of_shape")


@register("Range")
def _range(ctx, inputs, attrs):
    start, limit, delta = (ctx.known_ints(v, n) if ctx.vdtype(v).startswith("int") else
                           (ctx.known(v).numeric().reshape(-1).tolist() if ctx.known(v) else
                            ctx.known_ints(v, n)) for v, n in zip(inputs, ("start", "limit", "delta")))
    start, limit, delta = start[0], limit[0], delta[0]
    dtype = ctx.vdtype(inputs[0])
    if not any(isinstance(v, PrimExpr) for v in (start, limit, delta)):
        return Known(np.arange(start, limit, delta).astype(dtype), dtype)
    if isinstance(start, PrimExpr) or isinstance(delta, PrimExpr) or not dtype.startswith("int") or delta == 0:
        raise ctx.unsupported("Range over a symbolic start or step (a symbolic limit is supported)")
    # a symbolic limit is a size here (limit >= start is assumed, as exporters emit it)
    length = simplify(limit - start if delta == 1 else tir.floordiv(limit - start + (delta - 1 if delta > 0 else
                                                                                     delta + 1), delta))
    return ctx.emit_generated([length], lambda i: tir.Cast(dtype, i * delta + start), "range")


def _pad_te(data, begins, ends, mode, value):
    shape = [d + b + e for d, b, e in zip(data.shape, begins, ends)]

    def compute(*idx):
        src, conds = [], []
        for i, d, b in zip(idx, data.shape, begins):
            j = i - b
            if mode == "constant":
                conds += [j >= 0, j < d]
                src.append(tir.max(tir.min(j, d - 1), 0))
            elif mode == "edge":
                src.append(tir.max(tir.min(j, d - 1), 0))
            else:  # reflect
                j = tir.if_then_else(j < 0, -j, j)
                j = tir.if_then_else(j >= d, 2 * (d - 1) - j, j)
                src.append(tir.max(tir.min(j, d - 1), 0))
        load = data[tuple(src)]
        if mode == "constant" and conds:
            fill = tir.const(value, data.dtype) if not isinstance(value, te.Tensor) else \
                value[tuple(0 for _ in value.shape)]
            return tir.if_then_else(tir.all(*conds), load, fill)
        return load
    return te.compute(shape, compute, name=f"pad_{mode}")


@register("Pad", attr_values={"mode": ("constant", "reflect", "edge")})
def _pad(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "data")
    ndim = ctx.ndim(x)
    mode = attrs.get("mode", "constant")
    if ctx.opset < 11:
        pads, value = [int(p) for p in attrs.get("pads", attrs.get("paddings", []))], float(attrs.get("value", 0.0))
        axes = list(range(ndim))
    else:
        pads = [int(p) for p in ctx.known_ints(inputs[1], "pads")]
        value = 0
        if len(inputs) > 2 and inputs[2] is not None:
            if ctx.known(inputs[2]) is not None:
                value = ctx.known(inputs[2]).numeric().reshape(-1)[0].item()
            else:  # a run-time scalar tensor: the kernel reads it
                value = ctx.expr(inputs[2], "constant_value")
                if ctx.dims(value) not in ([], [1]):
                    raise ctx.unsupported(f"a constant_value of shape {ctx.dims(value)}")
        axes = [ctx.normalize_axis(a, ndim, "axes") for a in ctx.known_ints(inputs[3], "axes")] \
            if len(inputs) > 3 and inputs[3] is not None else list(range(ndim))
    if len(pads) != 2 * len(axes):
        raise ctx.unsupported(f"pads={pads} for {len(axes)} axes")
    if any(p < 0 for p in pads):
        raise ctx.unsupported(f"negative pads {pads}")
    begins, ends = [0] * ndim, [0] * ndim
    for i, a in enumerate(axes):
        begins[a], ends[a] = pads[i], pads[len(axes) + i]
    if mode == "reflect":
        for a, d in enumerate(ctx.shape(x)):
            if begins[a] >= d or ends[a] >= d:
                raise ctx.unsupported(f"reflect padding of {max(begins[a], ends[a])} on a dimension of size {d}")
    if not any(begins) and not any(ends):
        return x
    return ctx.bb.emit_te(_pad_te, x, begins, ends, mode, value, primfunc_name_hint=f"pad_{mode}")


_COORD_MODES = ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel")
_NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


@register("Resize", attr_values={"mode": ("nearest", "linear"), "coordinate_transformation_mode": _COORD_MODES,
                                 "nearest_mode": _NEAREST_MODES, "exclude_outside": (0,),
                                 "antialias": (0,), "keep_aspect_ratio_policy": ("stretch",)})
def _resize(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "X")
    in_shape = ctx.shape(x, "X")
    if ctx.opset < 11:
        scales = ctx.known(inputs[1]).numeric().reshape(-1).tolist()
        sizes = None
    else:
        scales = ctx.known(inputs[2]).numeric().reshape(-1).tolist() if len(inputs) > 2 and inputs[2] is not None \
            and ctx.known(inputs[2]) is not None else []
        sizes = ctx.known_ints(inputs[3], "sizes") if len(inputs) > 3 and inputs[3] is not None else None
    if "axes" in attrs:
        raise ctx.unsupported("Resize with the axes attribute")
    if sizes:
        out_shape = [int(s) for s in sizes]
        scales = [o / i for o, i in zip(out_shape, in_shape)]
    elif scales:
        out_shape = [int(np.floor(i * s)) for i, s in zip(in_shape, scales)]
    else:
        raise ctx.unsupported("Resize without scales or sizes")
    if len(out_shape) != len(in_shape):
        raise ctx.unsupported(f"Resize to {out_shape} for a rank-{len(in_shape)} input")
    coord = attrs.get("coordinate_transformation_mode", "half_pixel" if ctx.opset >= 11 else "asymmetric")
    nearest_mode = attrs.get("nearest_mode", "round_prefer_floor")
    return ctx.bb.emit_te(resize_te, x, out_shape, [float(s) for s in scales], attrs.get("mode", "nearest"),
                          coord, nearest_mode, primfunc_name_hint="resize")


def _trilu_te(data, k, upper):
    def compute(*idx):
        row, col = idx[-2], idx[-1]
        keep = (col - row >= k) if upper else (col - row <= k)
        return tir.if_then_else(keep, data[idx], tir.const(0, data.dtype))
    return te.compute(data.shape, compute, name="trilu")


@register("Trilu")
def _trilu(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "input")
    k = int(ctx.known_ints(inputs[1], "k")[0]) if len(inputs) > 1 and inputs[1] is not None else 0
    return ctx.bb.emit_te(_trilu_te, x, k, bool(attrs.get("upper", 1)), primfunc_name_hint="trilu")


@register("DepthToSpace", attr_values={"mode": ("DCR", "CRD")})
def _depth_to_space(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "input")
    n, c, h, w = ctx.shape(x, "input")
    b = int(attrs["blocksize"])
    if c % (b * b):
        raise ctx.unsupported(f"blocksize {b} for {c} channels")
    if attrs.get("mode", "DCR") == "DCR":
        y = ctx.emit(_op.reshape(x, [n, b, b, c // (b * b), h, w]))
        y = ctx.emit(_op.permute_dims(y, [0, 3, 4, 1, 5, 2]))
    else:
        y = ctx.emit(_op.reshape(x, [n, c // (b * b), b, b, h, w]))
        y = ctx.emit(_op.permute_dims(y, [0, 1, 4, 2, 5, 3]))
    return ctx.emit(_op.reshape(y, [n, c // (b * b), h * b, w * b]))


@register("SpaceToDepth")
def _space_to_depth(ctx, inputs, attrs):
    x = ctx.expr(inputs[0], "input")
    n, c, h, w = ctx.shape(x, "input")
    b = int(attrs["blocksize"])
    if h % b or w % b:
        raise ctx.unsupported(f"blocksize {b} for a {h}x{w} input")
    y = ctx.emit(_op.reshape(x, [n, c, h // b, b, w // b, b]))
    y = ctx.emit(_op.permute_dims(y, [0, 3, 5, 1, 2, 4]))
    return ctx.emit(_op.reshape(y, [n, c * b * b, h // b, w // b]))


__all__ = ["reshape", "reshape_target", "broadcast_dims"]
