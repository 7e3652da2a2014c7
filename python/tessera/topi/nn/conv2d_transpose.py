"""2-D transposed convolution in NCHW/IOHW written in TE:
``topi.nn.conv2d_transpose_nchw`` and ``group_conv2d_transpose_nchw`` with
strides, padding (int, (h, w) or (top, left, bottom, right)), output_padding,
dilation and groups: each output pixel gathers the input pixels whose strided
position the (dilated) kernel tap lands on."""
from ...error import TVMValueError
from ...tir import op as _tir_op
from ... import te, tir
from .conv2d import _pair, get_pad_tuple


def group_conv2d_transpose_nchw(data, kernel, strides, padding, out_dtype=None, output_padding=(0, 0),
                                groups=1, dilation=(1, 1)):
    """out[n, f, y, x] = sum over the input channels of f's group and the kernel taps
    (ry, rx) of data[n, c, (y + pad_top - ry*dh) / sh, ...] * kernel[c, f % opg, ry, rx],
    where the division is exact and in range."""
    name = "conv2d_transpose_nchw"
    for what, t in (("data", data), ("kernel", kernel)):
        if not isinstance(t, te.Tensor) or len(t.shape) != 4:
            raise TVMValueError(f"topi.nn.{name}: {what} must be a 4-D te.Tensor")
    sh, sw = _pair(name, "strides", strides)
    dh, dw = _pair(name, "dilation", dilation)
    pt, pl, pb, pr = get_pad_tuple(name, padding)
    oph, opw = [output_padding] * 2 if isinstance(output_padding, int) else list(output_padding)
    n = data.shape[0]
    c, h, w = [int(d) for d in data.shape[1:]]
    kc, opg, kh, kw = [int(d) for d in kernel.shape]
    if not isinstance(groups, int) or groups < 1 or c % groups:
        raise TVMValueError(f"topi.nn.{name}: groups={groups!r} must divide the {c} input channels")
    if kc != c:
        raise TVMValueError(f"topi.nn.{name}: kernel {kernel.name} has {kc} input channels, data has {c}")
    oh = (h - 1) * sh - pt - pb + (kh - 1) * dh + 1 + oph
    ow = (w - 1) * sw - pl - pr + (kw - 1) * dw + 1 + opw
    if oh < 1 or ow < 1:
        raise TVMValueError(f"topi.nn.{name}: the output would be empty ({oh} x {ow})")
    out_dtype = str(out_dtype) if out_dtype is not None else data.dtype
    cpg = c // groups
    rc = te.reduce_axis((0, cpg), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")

    def tap(v, pad, dil, r, stride, extent):
        t = v + pad - r * dil
        ok = tir.all(t >= 0, tir.floormod(t, stride) == 0, tir.floordiv(t, stride) < extent)
        idx = tir.max(tir.min(tir.floordiv(t, stride), extent - 1), 0)
        return ok, idx

    def fcompute(b, f, y, x):
        ch = f // opg * cpg + rc
        oky, iy = tap(y, pt, dh, ry, sh, h)
        okx, ix = tap(x, pl, dw, rx, sw, w)
        v = data[b, ch, iy, ix].astype(out_dtype) * kernel[ch, f % opg, ry, rx].astype(out_dtype)
        return te.sum(tir.if_then_else(tir.all(oky, okx), v, _tir_op.const(0, out_dtype)), axis=[rc, ry, rx])

    return te.compute((n, opg * groups, oh, ow), fcompute, name=name, tag=name)


def conv2d_transpose_nchw(data, kernel, strides, padding, out_dtype=None, output_padding=(0, 0)):
    return group_conv2d_transpose_nchw(data, kernel, strides, padding, out_dtype, output_padding)


__all__ = ["conv2d_transpose_nchw", "group_conv2d_transpose_nchw"]
