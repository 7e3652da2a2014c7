"""Indexing Relax ops (``relax.op.take``, ``relax.op.strided_slice``):
constructors of calls of the ops registered in src/relax/op/index.cc
(struct-info inference there) and their legalization to TOPI."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import attr_int, attr_ints, check_axis_list, check_expr, make_attrs
from ...error import TVMTypeError, TVMValueError


def take(x, indices, axis=None, mode="fast"):
    """Elements of x at the integer tensor ``indices`` along ``axis`` (None: x
    must be 1-D). ``mode``: "fast" (indices assumed in range), "clip" or "wrap"."""
    check_expr("relax.take", "x", x)
    check_expr("relax.take", "indices", indices)
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
        raise TVMTypeError(f"relax.take: attribute 'axis' must be an int or None, got {type(axis).__name__}")
    if mode not in ("fast", "clip", "wrap"):
        raise TVMValueError(f"relax.take: attribute 'mode' must be 'fast', 'clip' or 'wrap', got {mode!r}")
    return Call(Op.get("relax.take"), [x, indices], make_attrs("relax.take", axis=axis, mode=mode))


def strided_slice(x, axes, begin, end, strides=None, assume_inbound=False):
    """The NumPy slice ``begin:end:strides`` of x along each of ``axes``."""
    check_expr("relax.strided_slice", "x", x)
    fields = {}
    for name, v in (("axes", axes), ("begin", begin), ("end", end), ("strides", strides)):
        fields[name] = check_axis_list("relax.strided_slice", name, v, allow_none=(name == "strides"))
    return Call(Op.get("relax.strided_slice"), [x],
                make_attrs("relax.strided_slice", **fields, assume_inbound=bool(assume_inbound)))


@register_legalize("relax.take")
def _legalize_take(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    axis = attr_int(call.attrs["axis"]) if call.attrs else None
    mode = str(call.attrs["mode"]) if call.attrs else "fast"
    return bb.call_te(topi.take, call.args[0], call.args[1], axis=0 if axis is None else axis, mode=mode,
                      primfunc_name_hint="take")


@register_legalize("relax.strided_slice")
def _legalize_strided_slice(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    a = call.attrs
    return bb.call_te(topi.strided_slice, call.args[0], attr_ints(a["begin"]), attr_ints(a["end"]),
                      attr_ints(a["strides"]), attr_ints(a["axes"]), primfunc_name_hint="strided_slice")


__all__ = ["take", "strided_slice"]
