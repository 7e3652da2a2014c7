"""conv2d (NCHW data, groups 1) over a weight packed by blocks of output
channels, the form relax.nn.conv2d legalizes to for the default CPU schedule:
``conv2d_pack_weight`` turns OIHW into OIHW[b]o (a separate kernel for a
weight that is not a constant; a constant is packed with NumPy by the legalizer) and ``conv2d_nchw_packed``
computes a [b output channels x width] tile per step (block
"conv2d_nchw_packed", scheduled by src/tir/transform/default_schedule_conv.cc)
and writes NCHW back (block "conv2d_nchw_unpack")."""
from ... import te
from .conv2d import _pair, get_pad_tuple
from .pad import pad


def conv2d_channel_block(out_channels):
    """The output-channel block the packed kernel uses for ``out_channels``
    (16, else 8), or None when neither divides it."""
    for block in (16, 8):
        if out_channels % block == 0:
            return block
    return None


def conv2d_pack_weight(Filter, block):
    """OIHW -> (O/block, I, H, W, block)."""
    k, c, kh, kw = [int(d) for d in Filter.shape]
    return te.compute((k // block, c, kh, kw, block), lambda ko, ci, r, s, ki: Filter[ko * block + ki, ci, r, s],
                      name="conv2d_weight_pack")


def conv2d_nchw_packed(Input, Packed, stride, padding, dilation, out_dtype=None):
    """NCHW convolution with the packed weight of conv2d_pack_weight."""
    sh, sw = _pair("conv2d_nchw_packed", "stride", stride)
    dh, dw = _pair("conv2d_nchw_packed", "dilation", dilation)
    pt, pl, pb, pr = get_pad_tuple("conv2d_nchw_packed", padding)
    n = Input.shape[0]
    h, w = [int(d) for d in Input.shape[2:]]
    ko, c, kh, kw, block = [int(d) for d in Packed.shape]
    oh = (h + pt + pb - ((kh - 1) * dh + 1)) // sh + 1
    ow = (w + pl + pr - ((kw - 1) * dw + 1)) // sw + 1
    out_dtype = str(out_dtype) if out_dtype is not None else Input.dtype
    data = pad(Input, [0, 0, pt, pl], [0, 0, pb, pr], name="pad_temp")
    rc = te.reduce_axis((0, c), name="rc")
    ry = te.reduce_axis((0, kh), name="ry")
    rx = te.reduce_axis((0, kw), name="rx")
    tile = te.compute(
        (n, ko, oh, ow, block),
        lambda b, fo, y, x, fi: te.sum(data[b, rc, y * sh + ry * dh, x * sw + rx * dw].astype(out_dtype)
                                       * Packed[fo, rc, ry, rx, fi].astype(out_dtype), axis=[rc, ry, rx]),
        name="conv2d_nchw_packed")
    return te.compute((n, ko * block, oh, ow), lambda b, f, y, x: tile[b, f // block, y, x, f % block],
                      name="conv2d_nchw_unpack", tag="conv2d_nchw")


__all__ = ["conv2d_channel_block", "conv2d_pack_weight", "conv2d_nchw_packed"]
