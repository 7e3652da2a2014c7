"""``relax.op.nn.conv2d`` with TVM v0.18's signature (NCHW data, OIHW weight;
strides, padding in 1/2/4-value forms, dilation, groups). Struct-info
inference is in src/relax/op/nn/convolution.cc; the legalization to
topi.nn.conv2d is registered here."""
from .._legalize_registry import register_legalize
from ._common import make_call, int_attr, pair, padding4, str_attr, call_attrs, expand_pair, expand_padding, signature_defaults


@signature_defaults("relax.nn.conv2d")
def conv2d(data, weight, strides, padding, dilation, groups, data_layout, kernel_layout, out_layout, out_dtype):
    """2-D convolution. ``padding`` is one value, (h, w) or (top, left, bottom, right);
    ``out_layout=None`` is ``data_layout``; ``out_dtype`` None or "void" keeps the input
    dtype. Layouts other than NCHW/OIHW are refused. Defaults: the op's signature
    (src/relax/op/nn/convolution.cc)."""
    name = "relax.nn.conv2d"
    out_dtype = "void" if out_dtype is None else str(out_dtype)  # TVM's None
    attrs = {"strides": pair(name, "strides", strides), "padding": padding4(name, padding),
             "dilation": pair(name, "dilation", dilation), "groups": int_attr(name, "groups", groups),
             "data_layout": str_attr(name, "data_layout", data_layout),
             "kernel_layout": str_attr(name, "kernel_layout", kernel_layout),
             "out_layout": str_attr(name, "out_layout", data_layout if out_layout is None else out_layout),
             "out_dtype": out_dtype}
    return make_call(name, [("data", data), ("weight", weight)], attrs)


def _packed_block(call, a):
    """The output-channel block of the packed-weight kernel (topi.nn.conv2d_nchw_packed)
    for this call, or None: groups 1, float32, static shapes, channels a multiple of 8;
    PassContext config "relax.conv2d_packed": False turns it off."""
    from .... import topi  # pylint: disable=import-outside-toplevel
    from ....ir.transform import PassContext  # pylint: disable=import-outside-toplevel
    if not PassContext.current().config.get("relax.conv2d_packed", True) or a["groups"] != 1:
        return None
    sinfos = [arg.struct_info for arg in call.args]
    if any(getattr(s, "dtype", None) != "float32" or getattr(s, "shape", None) is None for s in sinfos):
        return None
    try:
        k = int(sinfos[1].shape[0])
        [int(d) for d in list(sinfos[0].shape)[1:]]  # noqa: expression-not-assigned
    except (TypeError, ValueError):
        return None
    return topi.nn.conv2d_channel_block(k)


@register_legalize("relax.nn.conv2d")
def _legalize_conv2d(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = call_attrs(call)
    out_dtype = None if a["out_dtype"] in ("", "void") else a["out_dtype"]
    packed = _packed_block(call, a)
    if packed:
        # The weight packed by blocks of output channels (its own kernel: a
        # constant weight is packed at build time by FoldConstant).
        weight = bb.emit(bb.call_te(topi.nn.conv2d_pack_weight, call.args[1], packed,
                                    primfunc_name_hint="conv2d_weight_pack"))
        return bb.call_te(topi.nn.conv2d_nchw_packed, call.args[0], weight, expand_pair(a["strides"]),
                          expand_padding(a["padding"]), expand_pair(a["dilation"]), out_dtype=out_dtype,
                          primfunc_name_hint="conv2d")
    return bb.call_te(topi.nn.group_conv2d_nchw, call.args[0], call.args[1], expand_pair(a["strides"]),
                      expand_padding(a["padding"]), expand_pair(a["dilation"]), a["groups"],
                      out_dtype=out_dtype, primfunc_name_hint="conv2d")


__all__ = ["conv2d"]
