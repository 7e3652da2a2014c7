"""Matrix products written in TE: ``topi.matmul(a, b, transp_a, transp_b,
out_dtype)`` with NumPy semantics (leading batch dims broadcast, a 1-D
operand is a vector), used by the legalization of relax.matmul."""
from ..error import TVMTypeError, TVMValueError
from ..tir.expr import IntImm
from .. import te
from .broadcast import broadcast_shape


def matmul(a, b, transp_a=False, transp_b=False, out_dtype=None):
    """``a @ b`` (``a.T``/``b.T`` over the last two dims with transp_a/transp_b)."""
    for what, t in (("a", a), ("b", b)):
        if not isinstance(t, te.Tensor):
            raise TVMTypeError(f"topi.matmul: {what} must be a te.Tensor, got {type(t).__name__}")
        if len(t.shape) == 0:
            raise TVMValueError(f"topi.matmul: {what} ({t.name}) must have at least 1 dimension")
    if a.dtype != b.dtype and out_dtype is None:
        raise TVMTypeError(f"topi.matmul: operand dtypes differ ({a.dtype} vs {b.dtype}); give out_dtype")
    dtype = str(out_dtype) if out_dtype is not None else a.dtype
    a_vec, b_vec = len(a.shape) == 1, len(b.shape) == 1
    ash = [1] + list(a.shape) if a_vec else list(a.shape)
    bsh = list(b.shape) + [1] if b_vec else list(b.shape)
    if transp_a and not a_vec:
        ash[-1], ash[-2] = ash[-2], ash[-1]
    if transp_b and not b_vec:
        bsh[-1], bsh[-2] = bsh[-2], bsh[-1]
    ka, kb = ash[-1], bsh[-2]
    if isinstance(ka, IntImm) and isinstance(kb, IntImm) and ka.value != kb.value:
        raise TVMValueError(f"topi.matmul: reduction dims differ ({a.name}: {ka.value}, {b.name}: {kb.value})")
    batch = broadcast_shape(ash[:-2], bsh[:-2], "matmul")
    nb = len(batch)
    out_shape = list(batch) + ([] if a_vec else [ash[-2]]) + ([] if b_vec else [bsh[-1]])
    k = te.reduce_axis((0, ka), name="k")

    def batch_index(t_shape, idx):
        lead = nb - len(t_shape)
        return [0 if isinstance(d, IntImm) and d.value == 1 else idx[lead + i] for i, d in enumerate(t_shape)]

    def fcompute(*idx):
        bi = list(idx[:nb])
        rest = list(idx[nb:])
        i = 0 if a_vec else rest.pop(0)
        j = 0 if b_vec else rest.pop(0)
        if a_vec:
            av = a(k)
        else:
            ai = batch_index(a.shape[:-2], bi)
            av = a(*ai, k, i) if transp_a else a(*ai, i, k)
        if b_vec:
            bv = b(k)
        else:
            bj = batch_index(b.shape[:-2], bi)
            bv = b(*bj, j, k) if transp_b else b(*bj, k, j)
        if dtype != a.dtype:
            av = av.astype(dtype)
        if dtype != b.dtype:
            bv = bv.astype(dtype)
        return te.sum(av * bv, axis=k)

    return te.compute(out_shape, fcompute, name="T_matmul", tag="matmul")


__all__ = ["matmul"]
