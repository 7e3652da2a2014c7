"""Batch normalization for inference written in TE: ``topi.nn.batch_norm``
normalizes with the moving statistics along ``axis`` and returns
[out, moving_mean, moving_var] as TVM's (the statistics copied through)."""
from ...error import TVMTypeError, TVMValueError
from ...tir import op as _tir_op
from ... import te


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5, center=True, scale=True):
    """out = (data - mean) / sqrt(var + epsilon) * gamma + beta along ``axis`` (gamma
    skipped unless ``scale``, beta unless ``center``); float16 is computed in float32."""
    tensors = (("data", data), ("gamma", gamma), ("beta", beta), ("moving_mean", moving_mean),
               ("moving_var", moving_var))
    for what, t in tensors:
        if not isinstance(t, te.Tensor):
            raise TVMTypeError(f"topi.nn.batch_norm: {what} must be a te.Tensor, got {type(t).__name__}")
    ndim = len(data.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise TVMValueError(f"topi.nn.batch_norm: axis {axis!r} is out of range for {data.name} with {ndim} dimensions")
    axis = axis + ndim if axis < 0 else axis
    for what, t in tensors[1:]:
        if len(t.shape) != 1 or int(t.shape[0]) != int(data.shape[axis]):
            raise TVMValueError(f"topi.nn.batch_norm: {what} {t.name} must have shape [{int(data.shape[axis])}], "
                                f"got {[int(d) for d in t.shape]}")
    acc = "float32" if str(data.dtype) == "float16" else data.dtype

    def f(t, c):
        v = t[c]
        return v if acc == t.dtype else v.astype(acc)

    eps = _tir_op.const(epsilon, acc)

    def fcompute(*i):
        c = i[axis]
        x = data(*i) if acc == data.dtype else data(*i).astype(acc)
        y = (x - f(moving_mean, c)) * _tir_op.rsqrt(f(moving_var, c) + eps)
        if scale:
            y = y * f(gamma, c)
        if center:
            y = y + f(beta, c)
        return y if acc == data.dtype else y.astype(data.dtype)

    out = te.compute(data.shape, fcompute, name="T_batch_norm", tag="injective")
    mean = te.compute(moving_mean.shape, lambda c: moving_mean[c], name="T_moving_mean", tag="injective")
    var = te.compute(moving_var.shape, lambda c: moving_var[c], name="T_moving_var", tag="injective")
    return [out, mean, var]


__all__ = ["batch_norm"]
