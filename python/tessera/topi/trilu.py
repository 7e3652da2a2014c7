"""``topi.trilu(data, k, upper)`` written in TE: the lower (upper=False) or
upper triangle of the last two dimensions relative to diagonal k; the other
elements are 0."""
from ..error import TVMTypeError
from ..tir import op as _tir_op
from .. import te, tir


def trilu(data, k, upper):
    if not isinstance(data, te.Tensor) or len(data.shape) < 2:
        raise TVMTypeError("topi.trilu: data must be a te.Tensor of at least 2 dimensions")

    def f(*i):
        row, col = i[-2], i[-1]
        diff = col.astype("int64") - row.astype("int64")
        kk = k.astype("int64") if hasattr(k, "dtype") else _tir_op.const(int(k), "int64")
        keep = diff >= kk if upper else diff <= kk
        return tir.Select(keep, data(*i), _tir_op.const(0, data.dtype))

    return te.compute(data.shape, f, name="T_trilu", tag="elemwise")


__all__ = ["trilu"]
