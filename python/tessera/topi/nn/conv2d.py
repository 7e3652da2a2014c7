"""2-D convolution in NCHW/OIHW written in TE: ``topi.nn.conv2d`` (layout
NCHW only), ``conv2d_nchw`` and ``group_conv2d_nchw`` with stride, padding
(int, (h, w) or (top, left, bottom, right)) and dilation."""
from ...error import OpNotImplemented, TVMTypeError, TVMValueError
from ... import te
from .pad import pad


def _pair(name, what, v):
    v = [v, v] if isinstance(v, int) else list(v)
    if len(v) != 2 or any(not isinstance(x, int) or x < 1 for x in v):
        raise TVMValueError(f"topi.nn.{name}: {what} must be a positive int or a pair of them, got {v!r}")
    return v


def get_pad_tuple(name, padding):
    """(top, left, bottom, right) from an int, a pair or a 4-tuple."""
    p = [padding] * 4 if isinstance(padding, int) else list(padding)
    if len(p) == 2:
        p = [p[0], p[1], p[0], p[1]]
    if len(p) != 4 or any(not isinstance(x, int) or x < 0 for x in p):
        raise TVMValueError(f"topi.nn.{name}: padding must be non-negative ints (1, 2 or 4 of them), got {padding!r}")
    return p


def _static(t):
    return [int(d) for d in t.shape]


def group_conv2d_nchw(Input, Filter, stride, padding, dilation, groups, out_dtype=None):
    """out[n, k, y, x] = sum over the channels of k's group and the kernel window."""
    name = "group_conv2d_nchw" if groups != 1 else "conv2d_nchw"
    for what, t in (("Input", Input), ("Filter", Filter)):
        if not isinstance(t, te.Tensor) or len(t.shape) != 4:
            raise TVMValueError(f"topi.nn.{name}: {what} must be a 4-D te.Tensor")
    sh, sw = _pair(name, "stride", stride)
    dh, dw = _pair(name, "dilation", dilation)
    pt, pl, pb, pr = get_pad_tuple(name, padding)
    n = Input.shape[0]  # may be symbolic
    c, h, w = [int(d) for d in Input.shape[1:]]
    k, cpg, kh, kw = _static(Filter)
    if not isinstance(groups, int) or groups < 1 or c % groups or k % groups:
        raise TVMValueError(f"topi.nn.{name}: groups={groups!r} must divide the {c} input and {k} output channels")
    if cpg != c // groups:
        raise TVMValueError(f"topi.nn.{name}: Filter {Filter.name} has {cpg} input channels per group, expected "
                            f"{c // groups} ({c} channels, groups={groups})")
    oh = (h + pt + pb - ((kh - 1) * dh + 1)) // sh + 1
    ow = (w + pl + pr - ((kw - 1) * dw + 1)) // sw + 1
    if oh < 1 or ow < 1:
        raise TVMValueError(f"topi.nn.{name}: the kernel window is larger than the padded input")
    out_dtype = str(out_dtype) if out_dtype is not None else Input.dtype
    data = pad(Input, [0, 0, pt, pl], [0, 0, pb, pr], name="pad_temp")
    rc = te.reduce_axis((0, cpg), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    opg = k // groups

    def fcompute(b, f, y, x):
        ch = rc if groups == 1 else f // opg * cpg + rc
        return te.sum(data[b, ch, y * sh + ry * dh, x * sw + rx * dw].astype(out_dtype)
                      * Filter[f, rc, ry, rx].astype(out_dtype), axis=[rc, ry, rx])

    return te.compute((n, k, oh, ow), fcompute, name=name, tag=name)


def conv2d_nchw(Input, Filter, stride, padding, dilation, out_dtype=None):
    return group_conv2d_nchw(Input, Filter, stride, padding, dilation, 1, out_dtype)


def conv2d(input, filter, strides, padding, dilation, data_layout="NCHW", kernel_layout="",  # pylint: disable=redefined-builtin
           out_dtype=None):
    """2-D convolution; only data_layout="NCHW" (kernel OIHW) is supported."""
    if data_layout != "NCHW" or kernel_layout not in ("", "OIHW"):
        raise OpNotImplemented(f"topi.nn.conv2d: layout {data_layout}/{kernel_layout or 'default'} is not "
                                  "supported (only NCHW/OIHW)")
    return conv2d_nchw(input, filter, strides, padding, dilation, out_dtype)


__all__ = ["conv2d", "conv2d_nchw", "group_conv2d_nchw", "get_pad_tuple"]
