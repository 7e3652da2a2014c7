"""``relax.op.nn.conv1d``, ``conv1d_transpose``, ``conv2d_transpose``, ``conv2d`` and ``conv3d`` with TVM v0.18's signatures (data,
kernel and out layouts: any permutation of NCHW / OIHW (transposed: IOHW), packed sub-axes included;
strides, padding in 1/2/4-value forms, dilation, groups). Struct-info
inference is in src/relax/op/nn/convolution.cc; the legalization to
topi.nn.conv2d is registered here (other layouts through layout transforms: _layout.py)."""
import logging

import numpy as np

from .._legalize_registry import register_legalize
from ....error import TVMValueError
from ._layout import in_canonical_layouts
from ._common import make_call, int_attr, int_list, pair, padding4, str_attr, call_attrs, expand_pair, expand_padding, signature_defaults


def _canonical(nd, transpose):
    """in_canonical_layouts' canonical layouts of an nd-D (transposed) convolution."""
    sp = {1: "W", 2: "HW", 3: "DHW"}[nd]
    layouts = {"data_layout": "NC" + sp, "kernel_layout": ("IO" if transpose else "OI") + sp, "out_layout": "NC" + sp}
    return in_canonical_layouts([("data_layout", 0), ("kernel_layout", 1)], "out_layout", layouts)


def _conv_call(name, nd, data, weight, strides, padding, dilation, groups, data_layout, kernel_layout, out_layout,
               out_dtype, output_padding=None):
    """The call of convolution op ``name`` over ``nd`` spatial dims, its attributes in the stored form:
    per-dim lists (1 value or nd), padding before/after each dim, ``out_layout=None`` as
    ``data_layout`` and ``out_dtype=None`` as "void" (TVM's None)."""
    per_dim = {1: lambda what, v: int_list(name, what, v, (1,)), 2: lambda what, v: pair(name, what, v),
               3: lambda what, v: _triple(name, what, v)}[nd]
    attrs = {"strides": per_dim("strides", strides),
             "padding": {1: _pad2, 2: padding4, 3: _pad6}[nd](name, padding)}
    if output_padding is not None:
        attrs["output_padding"] = per_dim("output_padding", output_padding)
    attrs.update({"dilation": per_dim("dilation", dilation), "groups": _groups(name, groups),
                  "data_layout": str_attr(name, "data_layout", data_layout),
                  "kernel_layout": str_attr(name, "kernel_layout", kernel_layout),
                  "out_layout": str_attr(name, "out_layout", data_layout if out_layout is None else out_layout),
                  "out_dtype": "void" if out_dtype is None else str(out_dtype)})
    return make_call(name, [("data", data), ("weight", weight)], attrs)


def _triple(name, what, v):
    vals = int_list(name, what, v, (1, 3))
    return vals * 3 if len(vals) == 1 else vals


def _pad6(name, padding):
    """(front, top, left, back, bottom, right) from an int, (d, h, w) or the six values."""
    padding = int_list(name, "padding", padding, (1, 3, 6))
    return padding * 6 if len(padding) == 1 else padding * 2 if len(padding) == 3 else padding


def _pad2(name, padding):
    padding = int_list(name, "padding", padding, (1, 2))
    return padding * 2 if len(padding) == 1 else padding


@signature_defaults("relax.nn.conv2d")
def conv2d(data, weight, strides, padding, dilation, groups, data_layout, kernel_layout, out_layout, out_dtype):
    """2-D convolution. ``padding`` is one value, (h, w) or (top, left, bottom, right);
    ``out_layout=None`` is ``data_layout``; ``out_dtype`` None or "void" keeps the input
    dtype. Layouts: any permutation of NCHW (data, out) and OIHW (kernel), e.g. NHWC / HWIO,
    packed sub-axes included (NCHW16c); legalized through layout transforms around the
    NCHW kernel. Defaults: the op's signature
    (src/relax/op/nn/convolution.cc)."""
    return _conv_call("relax.nn.conv2d", 2, data, weight, strides, padding, dilation, groups, data_layout,
                      kernel_layout, out_layout, out_dtype)


@signature_defaults("relax.nn.conv3d")
def conv3d(data, weight, strides, padding, dilation, groups, data_layout, kernel_layout, out_layout, out_dtype):
    """3-D convolution (default NCDHW data, OIDHW weight; any permutation, as conv2d). ``strides`` / ``dilation`` are one value
    or (d, h, w), ``padding`` one value, (d, h, w) or the six before/after values;
    ``out_layout=None`` is ``data_layout``; ``out_dtype`` None keeps the input dtype."""
    return _conv_call("relax.nn.conv3d", 3, data, weight, strides, padding, dilation, groups, data_layout,
                      kernel_layout, out_layout, out_dtype)


@register_legalize("relax.nn.conv3d")
@_canonical(3, False)
def _legalize_conv3d(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = call_attrs(call)
    return bb.call_te(topi.nn.conv3d_ncdhw, call.args[0], call.args[1], list(a["strides"]), list(a["padding"]),
                      list(a["dilation"]), a["groups"], out_dtype=_out_dtype(a), primfunc_name_hint="conv3d")


@signature_defaults("relax.nn.conv1d")
def conv1d(data, weight, strides, padding, dilation, groups, data_layout, kernel_layout, out_layout, out_dtype):
    """1-D convolution (default NCW data, OIW weight; any permutation, as conv2d). ``padding`` is one value or (left, right);
    ``out_layout=None`` is ``data_layout``; ``out_dtype`` None keeps the input dtype."""
    return _conv_call("relax.nn.conv1d", 1, data, weight, strides, padding, dilation, groups, data_layout,
                      kernel_layout, out_layout, out_dtype)


@signature_defaults("relax.nn.conv1d_transpose")
def conv1d_transpose(data, weight, strides, padding, output_padding, dilation, groups, data_layout, kernel_layout,
                     out_layout, out_dtype):
    """1-D transposed convolution (default NCW data, IOW weight; any permutation, as conv2d)."""
    return _conv_call("relax.nn.conv1d_transpose", 1, data, weight, strides, padding, dilation, groups, data_layout,
                      kernel_layout, out_layout, out_dtype, output_padding)


@signature_defaults("relax.nn.conv2d_transpose")
def conv2d_transpose(data, weight, strides, padding, output_padding, dilation, groups, data_layout, kernel_layout,
                     out_layout, out_dtype):
    """2-D transposed convolution (default NCHW data, IOHW weight; any permutation, as conv2d)."""
    return _conv_call("relax.nn.conv2d_transpose", 2, data, weight, strides, padding, dilation, groups, data_layout,
                      kernel_layout, out_layout, out_dtype, output_padding)


def _groups(name, groups):
    groups = int_attr(name, "groups", groups)
    if groups < 1:
        raise TVMValueError(f"{name}: attribute 'groups' must be >= 1, got {groups}")
    return groups


def _out_dtype(a):
    return None if a["out_dtype"] in ("", "void") else a["out_dtype"]


@register_legalize("relax.nn.conv1d")
@_canonical(1, False)
def _legalize_conv1d(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = call_attrs(call)
    pad = [a["padding"]] if isinstance(a["padding"], int) else list(a["padding"])
    return bb.call_te(topi.nn.group_conv1d_ncw, call.args[0], call.args[1], a["strides"], pad * 2 if len(pad) == 1 else pad,
                      a["dilation"], a["groups"], out_dtype=_out_dtype(a), primfunc_name_hint="conv1d")


def _conv1d_transpose_te(data, weight, strides, padding, output_padding, dilation, groups, out_dtype):
    """conv1d_transpose as conv2d_transpose of height-1 images."""
    from .... import te, topi  # pylint: disable=import-outside-toplevel
    d4 = te.compute((data.shape[0], data.shape[1], 1, data.shape[2]), lambda b, c, _, x: data[b, c, x], name="data_2d")
    w4 = te.compute((weight.shape[0], weight.shape[1], 1, weight.shape[2]), lambda i, o, _, x: weight[i, o, x],
                    name="weight_2d")
    out = topi.nn.group_conv2d_transpose_nchw(d4, w4, (1, strides[0]), (0, padding[0], 0, padding[1]), out_dtype,
                                              (0, output_padding[0]), groups, (1, dilation[0]))
    return te.compute((out.shape[0], out.shape[1], out.shape[3]), lambda b, f, x: out[b, f, 0, x],
                      name="conv1d_transpose")


@register_legalize("relax.nn.conv1d_transpose")
@_canonical(1, True)
def _legalize_conv1d_transpose(bb, call):
    a = call_attrs(call)
    one = lambda v: [v] if isinstance(v, int) else list(v)  # noqa: E731
    pad = one(a["padding"])
    return bb.call_te(_conv1d_transpose_te, call.args[0], call.args[1], one(a["strides"]),
                      pad * 2 if len(pad) == 1 else pad, one(a["output_padding"]), one(a["dilation"]), a["groups"],
                      _out_dtype(a), primfunc_name_hint="conv1d_transpose")


@register_legalize("relax.nn.conv2d_transpose")
@_canonical(2, True)
def _legalize_conv2d_transpose(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = call_attrs(call)
    return bb.call_te(topi.nn.group_conv2d_transpose_nchw, call.args[0], call.args[1], expand_pair(a["strides"]),
                      expand_padding(a["padding"]), out_dtype=_out_dtype(a),
                      output_padding=expand_pair(a["output_padding"]), groups=a["groups"],
                      dilation=expand_pair(a["dilation"]), primfunc_name_hint="conv2d_transpose")


def _blockable(call, a, grouped=False):
    """Whether a conv2d may take a default CPU kernel of its own (packed or 1x1
    GEMM): groups 1 (or any with ``grouped``), float32, static shapes."""
    if a["groups"] != 1 and not grouped:
        return False
    sinfos = [arg.struct_info for arg in call.args]
    if any(getattr(s, "dtype", None) != "float32" or getattr(s, "shape", None) is None for s in sinfos):
        return False
    try:
        [int(d) for d in list(sinfos[0].shape)[1:] + list(sinfos[1].shape)]  # noqa: expression-not-assigned
    except (TypeError, ValueError):
        return False
    return True


def _packed_block(call, a):
    """The output-channel block of the packed-weight kernel (topi.nn.conv2d_nchw_packed)
    for this call, or None: groups 1, float32, static shapes, channels a multiple of 8, a CPU
    layout allowed (not for a device target such as cuda, whose default schedule takes the plain
    NCHW conv; PassContext config "relax.conv2d_packed" forces it either way: vm_build.cpu_layout_allowed)."""
    from .... import topi  # pylint: disable=import-outside-toplevel
    from ...vm_build import cpu_layout_allowed  # pylint: disable=import-outside-toplevel
    if not cpu_layout_allowed("relax.conv2d_packed", outside_build=True) or not _blockable(call, a, grouped=True):
        return None
    k, groups = int(call.args[1].struct_info.shape[0]), a["groups"]
    if groups == 1:
        return topi.nn.conv2d_channel_block(k)
    return _grouped_block(call, a, k, groups)


def _grouped_block(call, a, k, groups):
    """The packed kernel's block for a grouped (not depthwise) conv2d, or None
    (topi.nn.conv2d_group_block); PassContext config "relax.conv2d_grouped_packed"
    False keeps it on the generic kernel (topi.nn.group_conv2d_nchw). Shapes the
    op checks (channels not divisible by groups) stay for the generic kernel's errors."""
    from .... import topi  # pylint: disable=import-outside-toplevel
    from ....ir.transform import PassContext  # pylint: disable=import-outside-toplevel
    c = int(call.args[0].struct_info.shape[1])
    cpg = int(call.args[1].struct_info.shape[1])
    if not PassContext.current().config.get("relax.conv2d_grouped_packed", True) or \
            c % groups or k % groups or cpg != c // groups or groups == c:
        return None
    block = topi.nn.conv2d_group_block(k, groups)
    if block is not None and block > k // groups and _generic_rows_whole(call, a):
        return None  # narrow groups over rows of whole vectors: the generic kernel is faster
    return block


# Narrow groups (two or more per packed block, computing the zeros off the diagonal) at
# stride 1 over output rows of whole 16-lane vectors, at least two of them, measured
# faster on the generic kernel (vectorized along the row, no tail: 67-77 GFLOP/s against
# the packed kernel's 37-42 at widths 32-112; docs/performance.md, "Grouped conv2d").
_GENERIC_ROW_VECTOR = 16


def _generic_rows_whole(call, a):
    kw = int(call.args[1].struct_info.shape[3])
    w = int(call.args[0].struct_info.shape[3])
    _, left, _, right = [int(p) for p in expand_padding(a["padding"])]
    sh, sw = [int(s) for s in expand_pair(a["strides"])]
    ow = w + left + right - (kw - 1) * int(expand_pair(a["dilation"])[1])
    return (sh, sw) == (1, 1) and ow % _GENERIC_ROW_VECTOR == 0 and ow >= 2 * _GENERIC_ROW_VECTOR


# Below this many output pixels (14 x 14, 7 x 7) the packed kernel measured as
# fast or faster in whole models (MobileNetV2's 960-channel 7 x 7 convs: the
# GEMM's vector tail and its eight strided weight rows cost more than the
# transposing write-back saves); from 28 x 28 up the GEMM is 1.3-3.5x faster.
_GEMM_1X1_MIN_PIXELS = 256


def _is_gemm_1x1(call, a):
    """Whether a conv2d is a 1x1, stride-1, unpadded one over at least
    _GEMM_1X1_MIN_PIXELS pixels, which the default CPU path takes as a GEMM over
    NCHW (topi.nn.conv2d_nchw_1x1: no weight packing, no transposing write-back);
    PassContext config "relax.conv2d_1x1_gemm" (or "relax.conv2d_packed") False
    keeps it off; a CPU layout like the packed one: not for a device target (vm_build.cpu_layout_allowed)."""
    from ....ir.transform import PassContext  # pylint: disable=import-outside-toplevel
    from ...vm_build import cpu_layout_allowed  # pylint: disable=import-outside-toplevel
    config = PassContext.current().config
    layouts = (a["data_layout"], a["kernel_layout"], a["out_layout"] or a["data_layout"])
    if not cpu_layout_allowed("relax.conv2d_1x1_gemm", outside_build=True) or \
            not config.get("relax.conv2d_packed", True) or \
            not _blockable(call, a) or layouts != ("NCHW", "OIHW", "NCHW"):
        return False
    kh, kw = [int(d) for d in call.args[1].struct_info.shape[2:]]
    h, w = [int(d) for d in call.args[0].struct_info.shape[2:]]
    return (kh, kw) == (1, 1) and h * w >= _GEMM_1X1_MIN_PIXELS and \
        [int(s) for s in expand_pair(a["strides"])] == [1, 1] and all(int(p) == 0 for p in expand_padding(a["padding"]))


def _packed_weight(bb, weight, block, groups):
    """The weight packed by blocks of output channels (OIHW -> O/b I H W b): a
    constant is packed here with NumPy (no kernel to compile per conv shape),
    any other weight by its own kernel (topi.nn.conv2d_pack_weight)."""
    from .... import relax, topi  # pylint: disable=import-outside-toplevel
    if isinstance(weight, relax.Constant):
        w = weight.data.numpy()
        return relax.const(topi.nn.conv2d_pack_weight_numpy(w, block, groups), str(w.dtype))
    return bb.emit(bb.call_te(topi.nn.conv2d_pack_weight, weight, block, groups,
                              primfunc_name_hint="conv2d_weight_pack"))


# Where Winograd measured slower than the packed kernel (benchmarks/winograd_layers.py,
# docs/performance.md), the packed kernel stays: under 16 channels in or out the
# transforms (per tile, O(C + K)) outweigh what the GEMM saves (O(C * K)); and
# when the transformed input or the GEMM's output (alpha^2 x channels x tiles)
# passes 16 MiB they stream through memory (32 -> 32 channels at 112 x 112, batch 8:
# 0.82x; 64 -> 64 at 56 x 56, batch 8, 14 MiB: 1.33x).
_WINOGRAD_MIN_CHANNELS = 16
_WINOGRAD_MAX_TRANSFORMED_BYTES = 16 << 20
_LOG = logging.getLogger("tvm.relax.op.nn")


def _winograd_by_shape(n, c, k, oh, ow):
    """The default's output tile m for a static 3x3 conv2d shape, or None (the
    packed kernel): 4, or 2 for an output under 8 x 8 (a 7 x 7 one would compute 8 x 8
    with m = 4), within the bounds above and where the batched GEMM gets the matmul
    rule's register tile."""
    m = 2 if min(oh, ow) < 8 else 4
    tiles = n * -(-oh // m) * -(-ow // m)
    if min(c, k) < _WINOGRAD_MIN_CHANNELS or (m + 2) ** 2 * max(c, k) * tiles * 4 > _WINOGRAD_MAX_TRANSFORMED_BYTES:
        return None
    # The batched GEMM (tiles x C @ C x K) must get the matmul rule's register tile, else
    # it runs under the generic schedule, slower than the packed kernel: K a multiple of
    # two 8-lane vectors, and the tile rows either divisible by 4 or at least 16 (a
    # predicated last row tile); 12 x 12 outputs (9 tiles) stay packed.
    if k % 16 or (tiles % 4 and tiles < 16):
        return None
    return m


def _winograd_tile(call, a):
    """The output tile m of Winograd F(m x m, 3 x 3) (topi.nn.conv2d_nchw_winograd)
    for this conv2d, or None: a 3x3, stride-1, undilated float32 conv with groups 1,
    NCHW/OIHW layouts, static shapes and a constant weight (transformed here once), a
    CPU layout allowed. PassContext config "relax.conv2d_winograd" True takes it
    wherever legal (m 4, or 2 for an output under 8 x 8), False never, unset by shape
    (_winograd_by_shape); "relax.conv2d_packed" False turns it off too."""
    from .... import relax  # pylint: disable=import-outside-toplevel
    from ....ir.transform import PassContext  # pylint: disable=import-outside-toplevel
    from ...vm_build import cpu_layout_allowed  # pylint: disable=import-outside-toplevel
    config = PassContext.current().config
    forced = config.get("relax.conv2d_winograd", None)
    if forced is False or not config.get("relax.conv2d_packed", True) or \
            not cpu_layout_allowed("relax.conv2d_packed", outside_build=True):
        return None
    if not isinstance(call.args[1], relax.Constant) or not _blockable(call, a) or \
            (a["data_layout"], a["kernel_layout"], a["out_layout"]) != ("NCHW", "OIHW", "NCHW") or \
            _out_dtype(a) not in (None, "float32"):
        return None
    try:
        n = int(call.args[0].struct_info.shape[0])
    except (TypeError, ValueError):
        return None  # a symbolic batch: the packed kernel
    k, c, kh, kw = [int(d) for d in call.args[1].struct_info.shape]
    if (kh, kw) != (3, 3) or [int(s) for s in expand_pair(a["strides"])] != [1, 1] or \
            [int(d) for d in expand_pair(a["dilation"])] != [1, 1]:
        return None
    pt, pl, pb, pr = [int(p) for p in expand_padding(a["padding"])]
    h, w = [int(d) for d in call.args[0].struct_info.shape[2:]]
    oh, ow = h + pt + pb - 2, w + pl + pr - 2
    if oh < 1 or ow < 1:
        return None  # no output: the packed kernel's checks report it
    m = (2 if min(oh, ow) < 8 else 4) if forced else _winograd_by_shape(n, c, k, oh, ow)
    if m and not np.isfinite(call.args[1].data.numpy()).all():
        # The weight transform mixes each tap into every entry of U (G w G^T), and the
        # inverse multiplies products by A^T's zeros: inf * 0 makes NaN wherever a
        # non-finite tap reaches, where the direct conv gives +-inf or NaN only in the
        # outputs that tap touches. Winograd is not legal for such a weight.
        if forced:
            _LOG.info("relax.conv2d_winograd: conv2d keeps the direct kernel: its constant weight has "
                      "non-finite values (Winograd's transforms would turn inf into NaN)")
        return None
    return m


def _legalize_winograd(bb, call, a, m):
    from .... import relax, topi  # pylint: disable=import-outside-toplevel
    u = topi.nn.conv2d_winograd_weight_transform(call.args[1].data.numpy(), m)
    bt, at = topi.nn.winograd_transform_constants(m)
    return bb.call_te(topi.nn.conv2d_nchw_winograd, call.args[0], relax.const(u, "float32"),
                      relax.const(bt, "float32"), relax.const(at, "float32"), expand_padding(a["padding"]),
                      primfunc_name_hint="conv2d_winograd")


@register_legalize("relax.nn.conv2d")
@_canonical(2, False)
def _legalize_conv2d(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = call_attrs(call)
    out_dtype = None if a["out_dtype"] in ("", "void") else a["out_dtype"]
    winograd = _winograd_tile(call, a)
    if winograd:
        return _legalize_winograd(bb, call, a, winograd)
    if _is_gemm_1x1(call, a):
        return bb.call_te(topi.nn.conv2d_nchw_1x1, call.args[0], call.args[1], out_dtype=out_dtype,
                          primfunc_name_hint="conv2d")
    packed = _packed_block(call, a)
    if packed:
        weight = _packed_weight(bb, call.args[1], packed, a["groups"])
        return bb.call_te(topi.nn.conv2d_nchw_packed, call.args[0], weight, expand_pair(a["strides"]),
                          expand_padding(a["padding"]), expand_pair(a["dilation"]), out_dtype=out_dtype,
                          groups=a["groups"], primfunc_name_hint="conv2d")
    return bb.call_te(topi.nn.group_conv2d_nchw, call.args[0], call.args[1], expand_pair(a["strides"]),
                      expand_padding(a["padding"]), expand_pair(a["dilation"]), a["groups"],
                      out_dtype=out_dtype, primfunc_name_hint="conv2d")


__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose"]
