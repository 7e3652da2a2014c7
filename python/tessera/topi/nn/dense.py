"""Matrix products written in TE: ``topi.nn.matmul`` (optional transposes
and bias) and ``topi.nn.dense`` (data @ weight.T + bias)."""
from ...error import TVMTypeError, TVMValueError
from ...tir.expr import IntImm
from ... import te


def _check_2d(name, what, t):
    if not isinstance(t, te.Tensor):
        raise TVMTypeError(f"topi.nn.{name}: {what} must be a te.Tensor, got {type(t).__name__}")
    if len(t.shape) != 2:
        raise TVMValueError(f"topi.nn.{name}: {what} {t.name} must be 2-D, got shape {list(t.shape)}")


def _check_equal(name, a, b, what):
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        if a.value != b.value:
            raise TVMValueError(f"topi.nn.{name}: {what} differ ({a.value} vs {b.value})")
    elif not a.same_as(b):
        raise TVMValueError(f"topi.nn.{name}: {what} differ ({a} vs {b}) and cannot be proven equal")


def matmul(tensor_a, tensor_b, bias=None, out_dtype=None, transpose_a=False, transpose_b=False):
    """``op(a) @ op(b) (+ bias)`` where op transposes when asked."""
    _check_2d("matmul", "tensor_a", tensor_a)
    _check_2d("matmul", "tensor_b", tensor_b)
    out_dtype = str(out_dtype) if out_dtype is not None else tensor_a.dtype
    m, red_a = (tensor_a.shape[1], tensor_a.shape[0]) if transpose_a else tensor_a.shape
    red_b, n = (tensor_b.shape[1], tensor_b.shape[0]) if transpose_b else tensor_b.shape
    _check_equal("matmul", red_a, red_b, "reduction dimensions")
    k = te.reduce_axis((0, red_a), name="k")

    def fcompute(i, j):
        a = tensor_a[k, i] if transpose_a else tensor_a[i, k]
        b = tensor_b[j, k] if transpose_b else tensor_b[k, j]
        return te.sum(a.astype(out_dtype) * b.astype(out_dtype), axis=k)

    name = "T_matmul_" + ("T" if transpose_a else "N") + ("T" if transpose_b else "N")
    out = te.compute((m, n), fcompute, name=name, tag="matmul")
    if bias is not None:
        if not isinstance(bias, te.Tensor) or len(bias.shape) != 1:
            raise TVMValueError("topi.nn.matmul: bias must be a 1-D te.Tensor")
        _check_equal("matmul", bias.shape[0], n, "bias length and output columns")
        out = te.compute((m, n), lambda i, j: out[i, j] + bias[j].astype(out_dtype), name="T_add",
                         tag="broadcast")
    return out


def dense(data, weight, bias=None, out_dtype=None):
    """``data @ weight.T (+ bias)``: data (batch, in), weight (out, in)."""
    _check_2d("dense", "data", data)
    _check_2d("dense", "weight", weight)
    return matmul(data, weight, bias, out_dtype, transpose_a=False, transpose_b=True)


__all__ = ["matmul", "dense"]
