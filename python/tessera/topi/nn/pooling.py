"""2-D pooling in NCHW written in TE: ``topi.nn.pool2d`` (pool_type "max"
or "avg", with padding, dilation, ceil_mode, count_include_pad; output sizes
and divisors as PyTorch's), the ``max_pool2d`` / ``avg_pool2d`` shorthands and
``adaptive_pool`` (window i covers [floor(i*H/oh), ceil((i+1)*H/oh)))."""
from ...error import OpNotImplemented, TVMValueError
from ...tir import op as _tir_op
from ... import te
from .conv2d import _pair, get_pad_tuple
from .pad import pad


def pool2d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCHW",
           count_include_pad=True):
    if layout != "NCHW":
        raise OpNotImplemented(f"topi.nn.pool2d: layout {layout} is not supported (only NCHW)")
    if pool_type not in ("max", "avg"):
        raise TVMValueError(f"topi.nn.pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    if not isinstance(data, te.Tensor) or len(data.shape) != 4:
        raise TVMValueError("topi.nn.pool2d: data must be a 4-D te.Tensor")
    kh, kw = _pair("pool2d", "kernel", kernel)
    sh, sw = _pair("pool2d", "stride", stride)
    dh, dw = _pair("pool2d", "dilation", dilation)
    pt, pl, pb, pr = get_pad_tuple("pool2d", padding)
    n = data.shape[0]  # may be symbolic
    c, h, w = [int(d) for d in data.shape[1:]]

    def out_len(size, k, s, d, lo, hi):
        span = size + lo + hi - ((k - 1) * d + 1)
        out = (span + (s - 1 if ceil_mode else 0)) // s + 1
        # PyTorch's rule: with ceil_mode the last window must start inside the input or the top/left padding.
        if ceil_mode and (out - 1) * s >= size + lo:
            out -= 1
        return out

    oh, ow = out_len(h, kh, sh, dh, pt, pb), out_len(w, kw, sw, dw, pl, pr)
    if oh < 1 or ow < 1:
        raise TVMValueError("topi.nn.pool2d: the pooling window is larger than the padded input")
    # ceil_mode may read past the padded end: pad enough, the extra counts as padding.
    eb = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - (h + pt + pb))
    er = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - (w + pl + pr))
    ry = te.reduce_axis((0, kh), name="rv0")
    rx = te.reduce_axis((0, kw), name="rv1")
    if pool_type == "max":
        padded = pad(data, [0, 0, pt, pl], [0, 0, pb + eb, pr + er], pad_value=_min_value(data.dtype),
                     name="pad_temp")
        return te.compute((n, c, oh, ow), lambda b, ch, y, x: te.max(
            padded[b, ch, y * sh + ry * dh, x * sw + rx * dw], axis=[ry, rx]), name="pool_max", tag="pool_max")
    padded = pad(data, [0, 0, pt, pl], [0, 0, pb + eb, pr + er], pad_value=0.0, name="pad_temp")
    total = te.compute((n, c, oh, ow), lambda b, ch, y, x: te.sum(
        padded[b, ch, y * sh + ry * dh, x * sw + rx * dw], axis=[ry, rx]), name="pool_sum", tag="pool_sum")

    def avg(b, ch, y, x):
        if count_include_pad and eb == 0 and er == 0:
            return total[b, ch, y, x] / _tir_op.const(kh * kw, data.dtype)
        # window positions inside the input (or inside the declared padding when counted)
        lo_y, hi_y = (0, h + pt + pb) if count_include_pad else (pt, pt + h)
        lo_x, hi_x = (0, w + pl + pr) if count_include_pad else (pl, pl + w)
        cy = _count(y * sh, kh, dh, lo_y, hi_y)
        cx = _count(x * sw, kw, dw, lo_x, hi_x)
        return total[b, ch, y, x] / _tir_op.max(cy * cx, 1).astype(data.dtype)

    return te.compute((n, c, oh, ow), avg, name="pool_avg", tag="elemwise")


def _count(start, k, d, lo, hi):
    """Number of taps start + t*d (t < k) inside [lo, hi)."""
    cnt = 0
    for t in range(k):
        pos = start + t * d
        cnt = cnt + _tir_op.if_then_else(_tir_op.all(pos >= lo, pos < hi), 1, 0)
    return cnt


def _min_value(dtype):
    return float("-inf") if str(dtype).startswith("float") else int(_tir_op.min_value(dtype).value)


def max_pool2d(data, pool_size, strides=1, dilation=1, padding=0, layout="NCHW", ceil_mode=False):
    return pool2d(data, pool_size, strides, dilation, padding, "max", ceil_mode, layout)


def avg_pool2d(data, pool_size, strides=1, dilation=1, padding=0, layout="NCHW", ceil_mode=False,
               count_include_pad=False):
    return pool2d(data, pool_size, strides, dilation, padding, "avg", ceil_mode, layout, count_include_pad)


def adaptive_pool(data, output_size, pool_type, layout="NCHW"):
    """Adaptive pooling of NCHW ``data`` to ``output_size`` (oh, ow): output (y, x) pools rows
    [floor(y*H/oh), ceil((y+1)*H/oh)) and the matching columns (max or average)."""
    if layout != "NCHW":
        raise OpNotImplemented(f"topi.nn.adaptive_pool: layout {layout} is not supported (only NCHW)")
    if pool_type not in ("max", "avg"):
        raise TVMValueError(f"topi.nn.adaptive_pool: pool_type must be 'max' or 'avg', got {pool_type!r}")
    if not isinstance(data, te.Tensor) or len(data.shape) != 4:
        raise TVMValueError("topi.nn.adaptive_pool: data must be a 4-D te.Tensor")
    oh, ow = _pair("adaptive_pool", "output_size", output_size)
    n = data.shape[0]
    c, h, w = [int(d) for d in data.shape[1:]]

    def bounds(size, out):
        starts = [i * size // out for i in range(out)]
        ends = [-((-(i + 1) * size) // out) for i in range(out)]
        return starts, ends, max(e - s for s, e in zip(starts, ends))

    sy, ey, kh = bounds(h, oh)
    sx, ex, kw = bounds(w, ow)
    ry = te.reduce_axis((0, kh), name="rv0")
    rx = te.reduce_axis((0, kw), name="rv1")

    def start(i, size, out):
        return _tir_op.floordiv(i * size, out)

    def end(i, size, out):
        return _tir_op.floordiv((i + 1) * size + out - 1, out)

    def window(b, ch, y, x, reducer):
        y0, x0 = start(y, h, oh), start(x, w, ow)
        cond = _tir_op.all(y0 + ry < end(y, h, oh), x0 + rx < end(x, w, ow))
        return reducer(data[b, ch, y0 + ry, x0 + rx], axis=[ry, rx], where=cond)

    if pool_type == "max":
        return te.compute((n, c, oh, ow), lambda b, ch, y, x: window(b, ch, y, x, te.max), name="adaptive_pool_max",
                          tag="adaptive_pool_max")
    total = te.compute((n, c, oh, ow), lambda b, ch, y, x: window(b, ch, y, x, te.sum), name="adaptive_pool_sum",
                       tag="adaptive_pool_sum")

    def avg(b, ch, y, x):
        cnt = (end(y, h, oh) - start(y, h, oh)) * (end(x, w, ow) - start(x, w, ow))
        return total[b, ch, y, x] / cnt.astype(data.dtype)

    return te.compute((n, c, oh, ow), avg, name="adaptive_pool_avg", tag="elemwise")


__all__ = ["pool2d", "max_pool2d", "avg_pool2d", "adaptive_pool"]
