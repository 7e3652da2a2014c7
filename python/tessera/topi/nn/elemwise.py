"""Elementwise neural-network activations written in TE: ``topi.nn.relu``, ``leaky_relu``,
``silu``, ``gelu`` (erf form, or tanh with approximate="tanh") and ``gelu_tanh``."""
from ...error import TVMTypeError, TVMValueError
from ...tir import op as _tir_op
from ...tir import expr as _tir_expr
from ... import te


def relu(x):
    """max(x, 0) elementwise."""
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.nn.relu: expected a te.Tensor, got {type(x).__name__}")
    return te.compute(x.shape, lambda *i: te.max(x(*i), _tir_op.const(0, x.dtype)), tag="elemwise")


def leaky_relu(x, alpha):
    """x if x > 0 else alpha * x, elementwise."""
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.nn.leaky_relu: expected a te.Tensor, got {type(x).__name__}")

    def f(*i):
        v = x(*i)
        return _tir_expr.Select(v > _tir_op.const(0, x.dtype), v, v * _tir_op.const(alpha, x.dtype))
    return te.compute(x.shape, f, name="T_leaky_relu", tag="elemwise")


def silu(x):
    """x * sigmoid(x)."""
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.nn.silu: expected a te.Tensor, got {type(x).__name__}")
    return te.compute(x.shape, lambda *i: x(*i) * _tir_op.sigmoid(x(*i)), name="T_silu", tag="elemwise")


def gelu(x, approximate="none"):
    """0.5 x (1 + erf(x / sqrt 2)), or with approximate="tanh" the tanh form."""
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.nn.gelu: expected a te.Tensor, got {type(x).__name__}")
    half, one = _tir_op.const(0.5, x.dtype), _tir_op.const(1.0, x.dtype)
    if approximate == "none":
        inv_sqrt2 = _tir_op.const(0.7071067811865476, x.dtype)
        return te.compute(x.shape, lambda *i: half * x(*i) * (one + _tir_op.erf(x(*i) * inv_sqrt2)),
                          name="T_gelu", tag="elemwise")
    if approximate == "tanh":
        c = _tir_op.const(0.7978845608028654, x.dtype)
        k = _tir_op.const(0.044715, x.dtype)
        return te.compute(x.shape, lambda *i: half * x(*i) * (one + _tir_op.tanh(c * (x(*i) + k * x(*i) * x(*i)
                                                                                    * x(*i)))),
                          name="T_gelu", tag="elemwise")
    raise TVMValueError(f"topi.nn.gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def gelu_tanh(x):
    """0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (PyTorch's gelu(approximate="tanh"))."""
    return gelu(x, approximate="tanh")


__all__ = ["relu", "silu", "gelu", "gelu_tanh"]
