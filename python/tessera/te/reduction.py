"""Commutative reductions of tensor expressions: ``te.comm_reducer`` and the
reducers ``te.sum``, ``te.max``, ``te.min`` (each also folds plain
expressions: ``te.max(a, b)``). Nodes (``tir.CommReducer``, ``tir.Reduce``) live
in C++ (src/te/reduce.h)."""
from .._ffi.registry import register_object
from ..error import TVMTypeError, TVMValueError
from ..ir.expr import PrimExpr
from ..tir import op as _tir_op
from ..tir.expr import CommReducer, PrimExprWithOp, IterVar, Var
from . import _ffi_api


@register_object("tir.Reduce")
class Reduce(PrimExprWithOp):
    """A reduction of ``source`` over the reduce axes ``axis`` (only valid as
    the whole body of a ``te.compute``)."""

    def __repr__(self):
        axes = ", ".join(str(iv.var) for iv in self.axis)
        return f"reduce({self.source[0]}, axis=[{axes}], where={self.condition})"

    __str__ = __repr__


def _as_expr(x, what):
    if isinstance(x, PrimExpr):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TVMTypeError(f"{what} must be an expression, got {type(x).__name__}")
    return _tir_op.const(x)


def comm_reducer(fcombine, fidentity, name="reduce"):
    """Creates a reducer from ``fcombine(x, y)`` and ``fidentity(dtype)``.

    The reducer is called as ``r(expr, axis, where=None, init=None)`` with
    ``axis`` a ``te.reduce_axis`` or a list of them, or as ``r(a, b, ...)`` on
    plain expressions to fold them with ``fcombine``."""

    def reducer(expr, axis, where=None, init=None, *args):
        if isinstance(axis, IterVar) or (isinstance(axis, (list, tuple)) and axis
                                         and all(isinstance(a, IterVar) for a in axis)):
            if args:
                raise TVMTypeError(f"te.{name}: unexpected extra arguments {args!r}")
            axes = [axis] if isinstance(axis, IterVar) else list(axis)
            expr = _as_expr(expr, f"te.{name} source")
            dtype = expr.dtype
            lhs, rhs = Var("x", dtype), Var("y", dtype)
            result = _as_expr(fcombine(lhs, rhs), f"te.{name} combiner result")
            identity = _as_expr(fidentity(dtype), f"te.{name} identity element")
            combiner = _ffi_api.CommReducer([lhs], [rhs], [result], [identity])
            if where is not None:
                where = _as_expr(where, f"te.{name} where=")
            inits = [] if init is None else [_as_expr(init, f"te.{name} init=").astype(dtype)]
            return _ffi_api.Reduce(combiner, [expr], axes, where, 0, inits)
        if isinstance(axis, (list, tuple)):
            raise TVMValueError(f"te.{name}: axis must be te.reduce_axis IterVars, got {axis!r}")
        # Direct fold of expressions: reducer(a, b, c, ...)
        values = [expr, axis] + ([] if where is None else [where]) + ([] if init is None else [init]) + list(args)
        res = values[0]
        for v in values[1:]:
            res = fcombine(res, v)
        return res

    reducer.__name__ = name
    reducer.__doc__ = f"te.{name}(expr, axis, where=None, init=None): a {name} reduction over reduce axes."
    return reducer


def _max_identity(dtype):
    return _tir_op.min_value(dtype)


def _min_identity(dtype):
    return _tir_op.max_value(dtype)


# pylint: disable=redefined-builtin
sum = comm_reducer(lambda x, y: x + y, lambda t: _tir_op.const(0, dtype=t), name="sum")
min = comm_reducer(lambda x, y: _tir_op.min(x, y), _min_identity, name="min")
max = comm_reducer(lambda x, y: _tir_op.max(x, y), _max_identity, name="max")

__all__ = ["CommReducer", "Reduce", "comm_reducer", "sum", "min", "max"]
