"""2-D pooling in NCHW written in TE: ``topi.nn.pool2d`` (pool_type "max"
or "avg", with padding, dilation, ceil_mode, count_include_pad) and the
``max_pool2d`` / ``avg_pool2d`` shorthands."""
from ...error import TVMValueError
from ...tir import op as _tir_op
from ... import te
from .conv2d import _pair, get_pad_tuple
from .pad import pad


def pool2d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False, layout="NCHW",
           count_include_pad=True):
    if layout != "NCHW":
        raise NotImplementedError(f"topi.nn.pool2d: layout {layout} is not supported (only NCHW)")
    if pool_type not in ("max", "avg"):
        raise TVMValueError(f"topi.nn.pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    if not isinstance(data, te.Tensor) or len(data.shape) != 4:
        raise TVMValueError("topi.nn.pool2d: data must be a 4-D te.Tensor")
    kh, kw = _pair("pool2d", "kernel", kernel)
    sh, sw = _pair("pool2d", "stride", stride)
    dh, dw = _pair("pool2d", "dilation", dilation)
    pt, pl, pb, pr = get_pad_tuple("pool2d", padding)
    n, c, h, w = [int(d) for d in data.shape]

    def out_len(size, k, s, d, lo, hi):
        span = size + lo + hi - ((k - 1) * d + 1)
        return (span + (s - 1 if ceil_mode else 0)) // s + 1

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


__all__ = ["pool2d", "max_pool2d", "avg_pool2d"]
