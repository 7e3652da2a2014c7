"""2-D pooling Relax ops with TVM v0.18's signatures: ``relax.op.nn.max_pool2d``,
``avg_pool2d`` and ``adaptive_avg_pool2d`` (NCHW). Struct-info inference is in
src/relax/op/nn/pooling.cc; the legalizations to topi.nn.pool2d /
adaptive_pool are registered here."""
from .._legalize_registry import register_legalize
from ._common import make_call, pair, padding4, bool_attr, str_attr, attrs_of, expand_pair, expand_padding


def _pool(name, data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, out_layout):
    attrs = {"pool_size": pair(name, "pool_size", pool_size), "strides": pair(name, "strides", strides),
             "padding": padding4(name, padding), "dilation": pair(name, "dilation", dilation),
             "ceil_mode": bool_attr(name, "ceil_mode", ceil_mode),
             "count_include_pad": bool_attr(name, "count_include_pad", count_include_pad),
             "layout": str_attr(name, "layout", layout),
             "out_layout": str_attr(name, "out_layout", layout if out_layout is None else out_layout)}
    return make_call(name, [("data", data)], attrs)


def max_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), ceil_mode=False,
               count_include_pad=False, layout="NCHW", out_layout=None):
    """2-D max pooling; padded positions never win (they are -inf)."""
    return _pool("relax.nn.max_pool2d", data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
                 layout, out_layout)


def avg_pool2d(data, pool_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), ceil_mode=False,
               count_include_pad=False, layout="NCHW", out_layout=None):
    """2-D average pooling; ``count_include_pad`` counts the declared padding in the divisor."""
    return _pool("relax.nn.avg_pool2d", data, pool_size, strides, padding, dilation, ceil_mode, count_include_pad,
                 layout, out_layout)


def adaptive_avg_pool2d(data, output_size=None, layout="NCHW", out_layout=None):
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
        a = attrs_of(call, {"pool_size": [1, 1], "strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1],
                            "ceil_mode": False, "count_include_pad": False})
        return bb.call_te(topi.nn.pool2d, call.args[0], expand_pair(a["pool_size"]), expand_pair(a["strides"]),
                          expand_pair(a["dilation"]), expand_padding(a["padding"]), kind,
                          ceil_mode=bool(a["ceil_mode"]), count_include_pad=bool(a["count_include_pad"]),
                          primfunc_name_hint=f"{kind}_pool2d")
    register_legalize(f"relax.nn.{kind}_pool2d")(legalize)


_legalize_pool("max")
_legalize_pool("avg")


@register_legalize("relax.nn.adaptive_avg_pool2d")
def _legalize_adaptive_avg_pool2d(bb, call):
    from .... import topi  # pylint: disable=import-outside-toplevel
    a = attrs_of(call, {"output_size": None})
    size = a["output_size"]
    if size is None:
        size = [int(d) for d in call.args[0].struct_info.shape.values[2:]]
    return bb.call_te(topi.nn.adaptive_pool, call.args[0], expand_pair(size), "avg",
                      primfunc_name_hint="adaptive_avg_pool2d")


__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]
