"""Indexing Relax ops (``relax.op.take``, ``relax.op.strided_slice``):
constructors of calls of the ops registered in src/relax/op/index.cc
(struct-info inference there) and their legalization to TOPI."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import attr_int, attr_ints, check_axis_list, check_expr, make_attrs
from ...error import TVMIndexError, TVMTypeError, TVMValueError


_MODES = ("fast", "clip", "wrap", "raise", "raise_nonnegative")


def take(x, indices, axis=None, mode="fast"):
    """Elements of x at the integer tensor ``indices`` along ``axis`` (None: x
    must be 1-D). ``mode``: "fast" (the default: constant indices must be in
    range, checked when built; run-time indices are clamped as "clip" does, so
    none reads outside x), "clip", "wrap", or the Tessera extensions "raise"
    (NumPy's mode="raise": a negative index counts from the end once; one
    outside [-n, n) is an IndexError, at build for constant indices, else
    raised by the kernel naming the index and n) and "raise_nonnegative"
    (likewise for an index outside [0, n), as torch.index_select)."""
    check_expr("relax.take", "x", x)
    check_expr("relax.take", "indices", indices)
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, int)):
        raise TVMTypeError(f"relax.take: attribute 'axis' must be an int or None, got {type(axis).__name__}")
    if mode not in _MODES:
        raise TVMValueError(f"relax.take: attribute 'mode' must be one of {', '.join(map(repr, _MODES))}, "
                            f"got {mode!r}")
    return Call(Op.get("relax.take"), [x, indices], make_attrs("relax.take", axis=axis, mode=mode))


def strided_slice(x, axes, begin, end, strides=None, assume_inbound=False):
    """The NumPy slice ``begin:end:strides`` of x along each of ``axes``."""
    check_expr("relax.strided_slice", "x", x)
    fields = {}
    for name, v in (("axes", axes), ("begin", begin), ("end", end), ("strides", strides)):
        fields[name] = check_axis_list("relax.strided_slice", name, v, allow_none=(name == "strides"))
    return Call(Op.get("relax.strided_slice"), [x],
                make_attrs("relax.strided_slice", **fields, assume_inbound=bool(assume_inbound)))


def _static_extent(expr, axis):
    """Extent of ``axis`` of tensor ``expr`` when known (an int), else None."""
    from ...tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    shape = getattr(expr.struct_info_, "shape", None)
    values = getattr(shape, "values", None)
    if values is None or not -len(values) <= axis < len(values):
        return None
    dim = values[axis]
    return int(dim.value) if isinstance(dim, IntImm) else None


def _check_take_indices(call, axis):
    """Refuses what no mode can read: indices to take from an empty axis, and
    (in the "fast" and "raise" modes) constant indices outside the axis."""
    from ..expr import Constant  # pylint: disable=import-outside-toplevel
    x, indices = call.args
    n = _static_extent(x, axis)
    if n is None:
        return
    mode = str(call.attrs["mode"]) if call.attrs else "fast"
    count = None
    ishape = getattr(getattr(indices.struct_info_, "shape", None), "values", None)
    if ishape is not None and all(hasattr(d, "value") for d in ishape):
        count = 1
        for d in ishape:
            count *= int(d.value)
    if n == 0 and count != 0:
        what = f"{count} element(s)" if count is not None else "elements"
        raise TVMValueError(f"relax.take: cannot take {what} from axis {axis} of extent 0 (mode {mode!r})")
    if mode == "fast" and isinstance(indices, Constant):
        values = indices.data.numpy().reshape(-1)
        bad = values[(values < 0) | (values >= n)]
        if bad.size:
            raise TVMValueError(f"relax.take: index {int(bad[0])} is out of range for axis {axis} of extent {n} "
                             "(constant indices must lie in [0, extent) in the default mode)")
    if mode.startswith("raise") and isinstance(indices, Constant):
        values = indices.data.numpy().reshape(-1)
        bad = values[(values < (-n if mode == "raise" else 0)) | (values >= n)]
        if bad.size:
            raise TVMIndexError(f"relax.take: index {int(bad[0])} is out of bounds for axis {axis} of extent {n} "
                                f"(mode {mode!r})")


@register_legalize("relax.take")
def _legalize_take(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    axis = attr_int(call.attrs["axis"]) if call.attrs else None
    mode = str(call.attrs["mode"]) if call.attrs else "fast"
    axis = 0 if axis is None else axis
    _check_take_indices(call, axis)
    # The default mode promises nothing about indices known only at run
    # time; Tessera clamps them (TVM's "clip") so no index reads outside x.
    return bb.call_te(topi.take, call.args[0], call.args[1], axis=axis, mode="clip" if mode == "fast" else mode,
                      primfunc_name_hint="take")


@register_legalize("relax.strided_slice")
def _legalize_strided_slice(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    a = call.attrs
    return bb.call_te(topi.strided_slice, call.args[0], attr_ints(a["begin"]), attr_ints(a["end"]),
                      attr_ints(a["strides"]), attr_ints(a["axes"]), primfunc_name_hint="strided_slice")


__all__ = ["take", "strided_slice"]
