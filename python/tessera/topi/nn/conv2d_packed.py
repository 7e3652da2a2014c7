"""conv2d (NCHW data, any groups) over a weight packed by blocks of output
channels, the form relax.nn.conv2d legalizes to for the default CPU schedule:
``conv2d_pack_weight`` turns OIHW into OIHW[b]o (a separate kernel for a
weight that is not a constant; a constant is packed with NumPy by the legalizer) and ``conv2d_nchw_packed``
computes a [b output channels x width] tile per step (block
"conv2d_nchw_packed", scheduled by src/tir/transform/default_schedule_conv.cc)
and writes NCHW back (block "conv2d_nchw_unpack"). Grouped: each block reads
the input channels of the groups it covers (``conv2d_group_block``: one group's
channels, or several narrow groups with zero weights off the block diagonal)."""
from ... import te, tir
from ...error import TVMValueError
from .conv2d import _pair, get_pad_tuple
from .pad import pad


def conv2d_channel_block(out_channels):
    """The output-channel block the packed kernel uses for ``out_channels``
    (16, else 8), or None when neither divides it."""
    for block in (16, 8):
        if out_channels % block == 0:
            return block
    return None


# Narrow groups (fewer output channels per group than a block) share a block
# only down to this many per group: a block of 8 over groups of 4 computes
# twice the products (zeros off the diagonal), which still beats the generic
# kernel (docs/performance.md, "Grouped conv2d"); narrower ones stay generic.
_MIN_NARROW_GROUP = 4


def conv2d_group_block(out_channels, groups):
    """The output-channel block of the packed kernel for a grouped conv2d with
    ``out_channels`` and ``groups`` (16 or 8 dividing the channels per group, else
    8 over whole narrow groups of at least _MIN_NARROW_GROUP), or None."""
    per_group = out_channels // groups
    block = conv2d_channel_block(per_group)
    if block is None and per_group >= _MIN_NARROW_GROUP and 8 % per_group == 0:
        block = 8
    return block


def _group_span(in_per_group, out_per_group, block):
    """Input channels one output-channel block reads: a group's, or those of the
    block // out_per_group narrow groups it covers."""
    return in_per_group * max(1, block // out_per_group)


def _check_groups(name, groups, out_channels, block, in_channels=None):
    """ValueError naming ``name`` unless ``groups`` divides the channels and each
    block of ``block`` output channels holds whole groups or lies in one group."""
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or out_channels % groups or \
            (in_channels is not None and in_channels % groups):
        chans = f"the {in_channels} input and {out_channels} output" if in_channels is not None else \
            f"the {out_channels} output"
        raise TVMValueError(f"{name}: groups={groups!r} must divide {chans} channels")
    opg = out_channels // groups
    if block < 1 or out_channels % block or (opg % block and block % opg):
        raise TVMValueError(f"{name}: block={block} must divide the {out_channels} output channels and "
                            f"either divide or be a multiple of the {opg} output channels per group "
                            f"(groups={groups})")


def conv2d_pack_weight(Filter, block, groups=1):
    """OIHW (I = input channels per group) -> (O/block, span, H, W, block); with
    groups whose output channels are fewer than ``block``, the span covers the
    block's groups and the weight is zero where an output channel's group does
    not read the input channel."""
    k, c, kh, kw = [int(d) for d in Filter.shape]
    _check_groups("topi.nn.conv2d_pack_weight", groups, k, block)
    opg = k // groups
    if opg % block == 0:
        return te.compute((k // block, c, kh, kw, block),
                          lambda ko, ci, r, s, ki: Filter[ko * block + ki, ci, r, s], name="conv2d_weight_pack")

    def narrow(ko, j, r, s, ki):
        f = ko * block + ki
        own = j // c == ki // opg  # the block starts a group: ki // opg is f's group within it
        return tir.if_then_else(own, Filter[f, j % c, r, s], tir.const(0, Filter.dtype))
    return te.compute((k // block, _group_span(c, opg, block), kh, kw, block), narrow, name="conv2d_weight_pack")


def conv2d_pack_weight_numpy(w, block, groups=1):
    """conv2d_pack_weight for a constant (NumPy OIHW array)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    k, c, kh, kw = w.shape
    _check_groups("topi.nn.conv2d_pack_weight_numpy", groups, k, block)
    opg = k // groups
    if opg % block == 0:
        return np.ascontiguousarray(w.reshape(k // block, block, c, kh, kw).transpose(0, 2, 3, 4, 1))
    packed = np.zeros((k // block, _group_span(c, opg, block), kh, kw, block), w.dtype)
    for ki in range(block):
        g = ki // opg
        packed[:, g * c:(g + 1) * c, :, :, ki] = w[ki::block]
    return packed


def conv2d_nchw_packed(Input, Packed, stride, padding, dilation, out_dtype=None, groups=1):
    """NCHW convolution with the packed weight of conv2d_pack_weight (same groups)."""
    name = "topi.nn.conv2d_nchw_packed"
    for what, t, rank in (("Input", Input, 4), ("Packed", Packed, 5)):
        if not isinstance(t, te.Tensor) or len(t.shape) != rank:
            raise TVMValueError(f"{name}: {what} must be a {rank}-D te.Tensor")
    ko, span, _, _, block = [int(d) for d in Packed.shape]
    channels = int(Input.shape[1])
    _check_groups(name, groups, ko * block, block, channels)
    want = _group_span(channels // groups, ko * block // groups, block)
    if span != want:
        raise TVMValueError(f"{name}: Packed {Packed.name} reads {span} input channels per block, expected {want} "
                            f"({channels} channels, groups={groups}, block {block})")
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
    if groups == 1:
        channel = lambda fo: rc  # noqa: E731
    else:  # the first input channel of block fo's groups
        opg, ipg = ko * block // groups, int(Input.shape[1]) // groups
        channel = (lambda fo: fo // (opg // block) * ipg + rc) if opg % block == 0 else (lambda fo: fo * c + rc)
    tile = te.compute(
        (n, ko, oh, ow, block),
        lambda b, fo, y, x, fi: te.sum(data[b, channel(fo), y * sh + ry * dh, x * sw + rx * dw].astype(out_dtype)
                                       * Packed[fo, rc, ry, rx, fi].astype(out_dtype), axis=[rc, ry, rx]),
        name="conv2d_nchw_packed")
    return te.compute((n, ko * block, oh, ow), lambda b, f, y, x: tile[b, f // block, y, x, f % block],
                      name="conv2d_nchw_unpack", tag="conv2d_nchw")


__all__ = ["conv2d_channel_block", "conv2d_group_block", "conv2d_pack_weight", "conv2d_pack_weight_numpy",
           "conv2d_nchw_packed"]
