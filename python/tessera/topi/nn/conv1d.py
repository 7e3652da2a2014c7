"""1-D convolution in NCW/OIW written in TE: ``topi.nn.conv1d_ncw`` and
``group_conv1d_ncw`` (stride, padding as one int or (left, right), dilation),
computed as the 2-D convolution of a height-1 image (conv2d.py)."""
from ...error import TVMValueError
from ... import te
from .conv2d import group_conv2d_nchw


def _one(name, what, v):
    v = [v] if isinstance(v, int) else list(v)
    if len(v) != 1 or not isinstance(v[0], int):
        raise TVMValueError(f"topi.nn.{name}: {what} must be an int or a list of one int, got {v!r}")
    return v[0]


def group_conv1d_ncw(data, kernel, strides=1, padding=0, dilation=1, groups=1, out_dtype=None):
    """out[n, k, x] = sum over the channels of k's group and the kernel window."""
    name = "group_conv1d_ncw" if groups != 1 else "conv1d_ncw"
    for what, t in (("data", data), ("kernel", kernel)):
        if not isinstance(t, te.Tensor) or len(t.shape) != 3:
            raise TVMValueError(f"topi.nn.{name}: {what} must be a 3-D te.Tensor")
    pad = [padding] * 2 if isinstance(padding, int) else list(padding)
    if len(pad) == 1:
        pad = pad * 2
    if len(pad) != 2:
        raise TVMValueError(f"topi.nn.{name}: padding must be an int or (left, right), got {padding!r}")
    stride, dil = _one(name, "strides", strides), _one(name, "dilation", dilation)
    d4 = te.compute((data.shape[0], data.shape[1], 1, data.shape[2]), lambda b, c, _, x: data[b, c, x], name="data_2d")
    k4 = te.compute((kernel.shape[0], kernel.shape[1], 1, kernel.shape[2]), lambda o, i, _, x: kernel[o, i, x],
                    name="kernel_2d")
    out = group_conv2d_nchw(d4, k4, (1, stride), (0, pad[0], 0, pad[1]), (1, dil), groups, out_dtype)
    return te.compute((out.shape[0], out.shape[1], out.shape[3]), lambda b, f, x: out[b, f, 0, x], name=name, tag=name)


def conv1d_ncw(data, kernel, strides=1, padding=0, dilation=1, out_dtype=None):
    return group_conv1d_ncw(data, kernel, strides, padding, dilation, 1, out_dtype)


__all__ = ["conv1d_ncw", "group_conv1d_ncw"]
