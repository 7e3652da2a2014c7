"""Cumulative scans written in TE: ``topi.cumsum`` and ``topi.cumprod`` along
one axis (None: of the flattened data), inclusive or exclusive, with an
optional output dtype; each element reduces the prefix before it."""
from ..error import TVMTypeError, TVMValueError
from ..tir import op as _tir_op
from .. import te, tir
from .transform import reshape


def _scan(name, reducer_of, identity):
    def op(data, axis=None, dtype=None, exclusive=None):
        if not isinstance(data, te.Tensor):
            raise TVMTypeError(f"topi.{name}: expected a te.Tensor, got {type(data).__name__}")
        if axis is None:
            data = reshape(data, (-1,))
            axis = 0
        ndim = len(data.shape)
        if not -ndim <= int(axis) < ndim:
            raise TVMValueError(f"topi.{name}: axis {axis} is out of range for {ndim} dimensions")
        axis = int(axis) % ndim
        out_dtype = str(dtype) if dtype not in (None, "", "void") else data.dtype
        k = te.reduce_axis((0, data.shape[axis]), name="k")
        reducer = reducer_of()

        def f(*i):
            src = list(i)
            src[axis] = k
            keep = k < i[axis] if exclusive else k <= i[axis]
            v = data(*src).astype(out_dtype)
            return reducer(tir.if_then_else(keep, v, _tir_op.const(identity, out_dtype)), axis=k)

        return te.compute(data.shape, f, name="T_" + name, tag=name)

    op.__name__ = name
    op.__doc__ = f"topi.{name}(data, axis=None, dtype=None, exclusive=None)."
    return op


cumsum = _scan("cumsum", lambda: te.sum, 0)
cumprod = _scan("cumprod", lambda: te.comm_reducer(lambda x, y: x * y, lambda t: _tir_op.const(1, t), name="prod"), 1)

__all__ = ["cumsum", "cumprod"]
