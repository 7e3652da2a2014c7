"""2-D pooling Relax ops with TVM v0.18's signatures: ``relax.op.nn.max_pool2d``,
``avg_pool2d`` and ``adaptive_avg_pool2d`` (layout/out_layout: any permutation of NCHW,
packed sub-axes included; legalized through layout transforms around the NCHW kernels: _layout.py). Struct-info inference is in
src/relax/op/nn/pooling.cc; the legalizations to topi.nn.pool2d /
adaptive_pool are registered here. Defaults: the ops' signatures
(pooling.cc; ``out_layout=None`` is ``layout``)."""
from .._legalize_registry import register_legalize
from ._layout import in_canonical_layouts
from ._common import make_call, pair, padding4, bool_attr, str_attr, call_attrs, expand_pair, expand_padding, signature_defaults


def _pool(name, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout):
    attrs = {"pool_size": pair(name, "pool_size", pool_size), "strides": pair(name, "strides", strides),
             "padding": padding4(name, padding), "dilation": pair(name, "dilation", dilation),
             "ceil_mode": bool_attr(name, "ceil_mode", ceil_mode),
             "count_include_pad": bool_attr(name, "count_include_pad", count_include_pad),
             "layout": str_attr(name, "layout", layout),
             "out_layout": str_attr(name, "out_layout", layout if out_layout is None else out_layout)}
    return make_call(name, [("data", data)], attrs)


@signature_defaults("relax.nn.max_pool2d")
def max_pool2d(data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout):
    """2-D max pooling; padded positions never win (they are -inf)."""
    return _pool("relax.nn.max_pool2d", data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
                 layout, out_layout)


@signature_defaults("relax.nn.avg_pool2d")
def avg_pool2d(data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout):
    """2-D average pooling; ``count_include_pad`` counts the declared padding in the divisor."""
    return _pool("relax.nn.avg_pool2d", data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
                 layout, out_layout)


@signature_defaults("relax.nn.adaptive_avg_pool2d")
def adaptive_avg_pool2d(data, output_size, layout, out_layout):
    """Average pooling to ``output_size`` (int or (h, w); None keeps the input size); window i
    covers [floor(i*H/oh), ceil((i+1)*H/oh)) as in PyTorch."""
    name = "relax.nn.adaptive_avg_pool2d"
    attrs = {"output_size": None if output_size is None else pair(name, "output_size", output_size),
             "layout": str_attr(name, "layout", layout),
             "out_layout": str_attr(name, "out_layout", layout if out_layout is None else out_layout)}
    return make_call(name, [("data", data)], attrs)


def _legalize_pool(kind):
    def legalize(bb, call):
        from .... import topi  # pylint: disable=import-outside-toplevel
        a = call_attrs(call)
        return bb.call_te(topi.nn.pool2d, call.args[0], expand_pair(a["pool_size"]), expand_pair(a["strides"]),
                          expand_pair(a["dilation"]), expand_padding(a["padding"]), kind,
                          ceil_mode=bool(a["ceil_mode"]), count_include_pad=bool(a["count_include_pad"]),
                          primfunc_name_hint=f"{kind}_pool2d")
    register_legalize(f"relax.nn.{kind}_pool2d")(_in_nchw(legalize))


_in_nchw = in_canonical_layouts([("layout", 0)], "out_layout", {"layout": "NCHW", "out_layout": "NCHW"})


_legalize_pool("max")
_legalize_pool("avg")


@register_legalize("relax.nn.adaptive_avg_pool2d")
@_in_nchw
def _legalize_adaptive_avg_pool2d(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = call_attrs(call)
    size = a["output_size"]
    if size is None:
        size = [int(d) for d in call.args[0].struct_info.shape.values[2:]]
    return bb.call_te(topi.nn.adaptive_pool, call.args[0], expand_pair(size), "avg",
                      primfunc_name_hint="adaptive_avg_pool2d")


__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]
