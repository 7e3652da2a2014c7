"""Normalization written in TE: ``topi.nn.layer_norm`` (mean and variance
over ``axis``, scaled by gamma and shifted by beta, each optional) and ``topi.nn.flatten``
(keep the first dimension, merge the rest)."""
from ...error import TVMTypeError, TVMValueError
from ...tir import op as _tir_op
from ... import te
from ..transform import reshape, _static_shape


def layer_norm(data, gamma, beta, axis, epsilon=1e-5):
    """(x - mean) / sqrt(var + epsilon) * gamma + beta over ``axis``; gamma
    and beta have the shape of the normalized dimensions, either may be None
    (not applied). float16 data is accumulated in float32 (as PyTorch)."""
    if not isinstance(data, te.Tensor):
        raise TVMTypeError(f"topi.nn.layer_norm: data must be a te.Tensor, got {type(data).__name__}")
    for what, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and not isinstance(t, te.Tensor):
            raise TVMTypeError(f"topi.nn.layer_norm: {what} must be a te.Tensor or None, got {type(t).__name__}")
    ndim = len(data.shape)
    axis_list = [axis] if isinstance(axis, int) else list(axis)
    if not axis_list or any(not -ndim <= a < ndim for a in axis_list):
        raise TVMValueError(f"topi.nn.layer_norm: axis {axis} is out of range for {data.name} with {ndim} dimensions")
    axes = sorted({(a + ndim if a < 0 else a) for a in axis_list})
    red_shape = [int(data.shape[a]) for a in axes]
    for what, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and [int(d) for d in t.shape] != red_shape:
            raise TVMValueError(f"topi.nn.layer_norm: {what} {t.name} has shape {[int(d) for d in t.shape]}, "
                                f"expected {red_shape}")
    count = 1
    for d in red_shape:
        count *= d
    keep_shape = [d for k, d in enumerate(data.shape) if k not in axes]
    acc = "float32" if str(data.dtype) == "float16" else data.dtype

    def full(i, ks):
        it, kt = iter(i), iter(ks)
        return [next(kt) if k in axes else next(it) for k in range(ndim)]

    def x(*idx):
        v = data(*idx)
        return v if acc == data.dtype else v.astype(acc)

    n = _tir_op.const(count, acc)
    k1 = [te.reduce_axis((0, data.shape[a]), name=f"k{a}") for a in axes]
    total = te.compute(keep_shape, lambda *i: te.sum(x(*full(i, k1)), axis=k1), name="T_layer_norm_sum")
    k2 = [te.reduce_axis((0, data.shape[a]), name=f"k{a}") for a in axes]

    def sq_body(*i):
        d = x(*full(i, k2)) - total(*i) / n
        return te.sum(d * d, axis=k2)

    sq = te.compute(keep_shape, sq_body, name="T_layer_norm_sqsum")
    eps = _tir_op.const(epsilon, acc)

    def fcompute(*i):
        rest = [v for k, v in enumerate(i) if k not in axes]
        red = [v for k, v in enumerate(i) if k in axes]
        y = (x(*i) - total(*rest) / n) * _tir_op.rsqrt(sq(*rest) / n + eps)
        if gamma is not None:
            y = y * (gamma(*red) if acc == data.dtype else gamma(*red).astype(acc))
        if beta is not None:
            y = y + (beta(*red) if acc == data.dtype else beta(*red).astype(acc))
        return y if acc == data.dtype else y.astype(data.dtype)

    return te.compute(data.shape, fcompute, name="T_layer_norm", tag="injective")


def flatten(data):
    """(N, d1, d2, ...) -> (N, d1 * d2 * ...)."""
    if not isinstance(data, te.Tensor):
        raise TVMTypeError(f"topi.nn.flatten: expected a te.Tensor, got {type(data).__name__}")
    shape = _static_shape("nn.flatten", data)
    if not shape:
        raise TVMValueError("topi.nn.flatten: needs at least one dimension")
    rest = 1
    for d in shape[1:]:
        rest *= d
    return reshape(data, (shape[0], rest))


__all__ = ["layer_norm", "flatten"]
