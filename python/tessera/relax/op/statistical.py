"""Reduction Relax ops (``relax.op.sum``, ``mean``, ``max``, ``min``,
``prod`` with axis and keepdims; the scans ``cumsum``, ``cumprod``): constructors of calls of the ops registered
in src/relax/op/statistical.cc and their legalization to TOPI (sum and mean of
float16/bfloat16 accumulate in float32)."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import attr_ints, call_attrs, check_axis_list, check_expr, make_attrs
from ...error import TVMTypeError


_ACCUMULATE_WIDER = ("sum", "mean")  # reductions that add their elements
_NARROW_FLOATS = ("float16", "bfloat16")


def _make(name):
    op_name = "relax." + name

    def ctor(x, axis=None, keepdims=False):
        check_expr(op_name, "x", x)
        axis = check_axis_list(op_name, "axis", axis)
        return Call(Op.get(op_name), [x], make_attrs(op_name, axis=axis, keepdims=bool(keepdims)))

    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        axis = attr_ints(call.attrs["axis"]) if call.attrs else None
        keepdims = bool(call.attrs["keepdims"]) if call.attrs else False
        reduce = getattr(topi, name)
        dtype = str(call.args[0].struct_info.dtype)
        if name in _ACCUMULATE_WIDER and dtype in _NARROW_FLOATS:
            # A half-precision sum loses every addend once the total passes 2**11 (4,096
            # ones sum to 2,048): accumulate in float32 and round the result once.
            def reduce(x, axis, keepdims, _reduce=reduce, _dtype=dtype):  # pylint: disable=function-redefined
                from ... import te  # pylint: disable=import-outside-toplevel
                wide = te.compute(x.shape, lambda *i: x(*i).astype("float32"), name="T_widen", tag="elemwise")
                total = _reduce(wide, axis, keepdims)
                return te.compute(total.shape, lambda *i: total(*i).astype(_dtype), name="T_narrow",
                                  tag="elemwise")
        return bb.call_te(reduce, call.args[0], axis, keepdims, primfunc_name_hint=name)

    register_legalize(op_name)(legalize)
    ctor.__name__ = name
    ctor.__doc__ = f"The {name} of x over axis (None: all), keeping reduced dims as 1 with keepdims."
    return ctor


def _make_scan(name):
    op_name = "relax." + name

    def ctor(data, axis=None, dtype=None, exclusive=False):
        check_expr(op_name, "data", data)
        if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
            raise TVMTypeError(f"{op_name}: axis must be an int or None, got {axis!r}")
        return Call(Op.get(op_name), [data], make_attrs(op_name, axis=axis, dtype=None if dtype is None else str(dtype),
                                                        exclusive=bool(exclusive)))

    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        a = call_attrs(call)
        return bb.call_te(getattr(topi, name), call.args[0], a["axis"], a["dtype"], a["exclusive"],
                          primfunc_name_hint=name)

    register_legalize(op_name)(legalize)
    ctor.__name__ = name
    ctor.__doc__ = f"The {name} of data along axis (None: of the flattened data); exclusive leaves out each element."
    return ctor


cumsum = _make_scan("cumsum")
cumprod = _make_scan("cumprod")
sum = _make("sum")  # pylint: disable=redefined-builtin
mean = _make("mean")
max = _make("max")  # pylint: disable=redefined-builtin
min = _make("min")  # pylint: disable=redefined-builtin
prod = _make("prod")

__all__ = ["sum", "mean", "max", "min", "prod", "cumsum", "cumprod"]
