"""Elementwise neural-network activations written in TE: ``topi.nn.relu``."""
from ...error import TVMTypeError
from ...tir import op as _tir_op
from ... import te


def relu(x):
    """max(x, 0) elementwise."""
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.nn.relu: expected a te.Tensor, got {type(x).__name__}")
    return te.compute(x.shape, lambda *i: te.max(x(*i), _tir_op.const(0, x.dtype)), tag="elemwise")


__all__ = ["relu"]
