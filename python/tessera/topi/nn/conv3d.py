"""3-D convolution in NCDHW/OIDHW written in TE: ``topi.nn.conv3d_ncdhw`` (TVM's name
and argument order) with stride, padding (an int, (d, h, w) or the six before/after
values) and dilation per spatial dim, and groups; the legalization of relax.nn.conv3d."""
from ...error import TVMValueError
from ... import te
from .pad import pad


def _triple(name, what, v, lo):
    v = [v] * 3 if isinstance(v, int) else list(v)
    if len(v) == 1:
        v = v * 3
    if len(v) != 3 or any(not isinstance(x, int) or x < lo for x in v):
        raise TVMValueError(f"topi.nn.{name}: {what} must be an int >= {lo} or three of them, got {v!r}")
    return v


def _padding6(name, padding):
    """(front, top, left, back, bottom, right) from an int, three values or six."""
    p = [padding] if isinstance(padding, int) else list(padding)
    if len(p) in (1, 3):
        p = _triple(name, "padding", p, 0) * 2
    if len(p) != 6 or any(not isinstance(x, int) or x < 0 for x in p):
        raise TVMValueError(f"topi.nn.{name}: padding must be non-negative ints (1, 3 or 6 of them), got {padding!r}")
    return p


def conv3d_ncdhw(Input, Filter, stride, padding, dilation, groups=1, out_dtype=None):
    """out[n, k, z, y, x] = sum over the channels of k's group and the kernel window."""
    name = "conv3d_ncdhw"
    for what, t in (("Input", Input), ("Filter", Filter)):
        if not isinstance(t, te.Tensor) or len(t.shape) != 5:
            raise TVMValueError(f"topi.nn.{name}: {what} must be a 5-D te.Tensor")
    strides = _triple(name, "stride", stride, 1)
    dils = _triple(name, "dilation", dilation, 1)
    pads = _padding6(name, padding)
    n = Input.shape[0]  # may be symbolic
    c, *spatial = [int(d) for d in Input.shape[1:]]
    k, cpg, *kernel = [int(d) for d in Filter.shape]
    if not isinstance(groups, int) or groups < 1 or c % groups or k % groups:
        raise TVMValueError(f"topi.nn.{name}: groups={groups!r} must divide the {c} input and {k} output channels")
    if cpg != c // groups:
        raise TVMValueError(f"topi.nn.{name}: Filter {Filter.name} has {cpg} input channels per group, expected "
                            f"{c // groups} ({c} channels, groups={groups})")
    out = [(spatial[i] + pads[i] + pads[i + 3] - ((kernel[i] - 1) * dils[i] + 1)) // strides[i] + 1 for i in range(3)]
    if min(out) < 1:
        raise TVMValueError(f"topi.nn.{name}: the kernel window is larger than the padded input")
    out_dtype = str(out_dtype) if out_dtype is not None else Input.dtype
    data = pad(Input, [0, 0] + pads[:3], [0, 0] + pads[3:], name="pad_temp")
    rc = te.reduce_axis((0, cpg), name="rc")
    rz, ry, rx = (te.reduce_axis((0, kernel[i]), name=nm) for i, nm in enumerate(("rz", "ry", "rx")))
    opg = k // groups
    (sd, sh, sw), (dd, dh, dw) = strides, dils

    def fcompute(b, f, z, y, x):
        ch = rc if groups == 1 else f // opg * cpg + rc
        return te.sum(data[b, ch, z * sd + rz * dd, y * sh + ry * dh, x * sw + rx * dw].astype(out_dtype)
                      * Filter[f, rc, rz, ry, rx].astype(out_dtype), axis=[rc, rz, ry, rx])

    return te.compute((n, k, *out), fcompute, name=name, tag=name)


__all__ = ["conv3d_ncdhw"]
