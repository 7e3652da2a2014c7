"""Batched matrix product written in TE: ``topi.nn.batch_matmul`` (TVM's
signature: 3-D operands, optional transposes, transpose_b=True by default, a
batch of 1 on either side broadcast). Part of python/tessera/topi/nn."""
from ...error import TVMTypeError, TVMValueError
from ...tir.expr import IntImm
from ... import te
from .dense import _check_equal


def _is_one(d):
    return isinstance(d, IntImm) and d.value == 1


def batch_matmul(tensor_a, tensor_b, oshape=None, out_dtype=None, transpose_a=False, transpose_b=True):
    """``op(a[b]) @ op(b[b])`` for each batch b: a is (batch, M, K), or
    (batch, K, M) with transpose_a; b is (batch, N, K) with transpose_b (the
    default, as TVM), or (batch, K, N). A batch of 1 broadcasts. ``oshape``, when
    given, must equal the inferred output shape (TVM uses it for symbolic
    shapes)."""
    for what, t in (("tensor_a", tensor_a), ("tensor_b", tensor_b)):
        if not isinstance(t, te.Tensor):
            raise TVMTypeError(f"topi.nn.batch_matmul: {what} must be a te.Tensor, got {type(t).__name__}")
        if len(t.shape) != 3:
            raise TVMValueError(f"topi.nn.batch_matmul: {what} {t.name} must be 3-D, got shape {list(t.shape)}")
    out_dtype = str(out_dtype) if out_dtype is not None else tensor_a.dtype
    ba, bb = tensor_a.shape[0], tensor_b.shape[0]
    m, red_a = (tensor_a.shape[2], tensor_a.shape[1]) if transpose_a else (tensor_a.shape[1], tensor_a.shape[2])
    red_b, n = (tensor_b.shape[2], tensor_b.shape[1]) if transpose_b else (tensor_b.shape[1], tensor_b.shape[2])
    _check_equal("batch_matmul", red_a, red_b, "reduction dimensions")
    if _is_one(ba):
        batch = bb
    elif _is_one(bb):
        batch = ba
    else:
        _check_equal("batch_matmul", ba, bb, "batch dimensions")
        batch = ba
    if oshape is not None:
        oshape = list(oshape)
        if len(oshape) != 3:
            raise TVMValueError(f"topi.nn.batch_matmul: oshape must have 3 dimensions, got {oshape}")
        for got, want, what in zip(oshape, (batch, m, n), ("batch", "rows", "columns")):
            if isinstance(got, int):
                if not isinstance(want, IntImm) or want.value != got:
                    raise TVMValueError(f"topi.nn.batch_matmul: oshape {what} {got} differs from the inferred {want}")
            else:
                _check_equal("batch_matmul", got, want, f"oshape {what}")
    k = te.reduce_axis((0, red_a), name="k")

    def fcompute(b, i, j):
        xa = 0 if _is_one(ba) else b
        xb = 0 if _is_one(bb) else b
        a = tensor_a[xa, k, i] if transpose_a else tensor_a[xa, i, k]
        bv = tensor_b[xb, j, k] if transpose_b else tensor_b[xb, k, j]
        return te.sum(a.astype(out_dtype) * bv.astype(out_dtype), axis=k)

    name = "T_batch_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    return te.compute((batch, m, n), fcompute, name=name, tag="batch_matmul")


__all__ = ["batch_matmul"]
