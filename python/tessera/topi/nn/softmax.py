"""Softmax family written in TE: ``topi.nn.softmax`` and ``log_softmax``
along one axis (max-subtracted for stability, as TVM's four stages:
max, exp, sum, normalize)."""
from ...error import TVMTypeError, TVMValueError
from ...tir import op as _tir_op
from ... import te


def _axis(name, x, axis):
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.nn.{name}: expected a te.Tensor, got {type(x).__name__}")
    if not str(x.dtype).startswith("float"):
        raise TVMTypeError(f"topi.nn.{name}: needs a floating-point tensor, got {x.name} of dtype {x.dtype}")
    ndim = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise TVMValueError(f"topi.nn.{name}: axis {axis!r} is out of range for {x.name} with {ndim} dimensions")
    return axis + ndim if axis < 0 else axis


def _with(idx, axis, v):
    idx = list(idx)
    idx.insert(axis, v)
    return idx


def _acc(x):
    """The accumulation dtype: float32 for float16 input (as PyTorch), else the input's."""
    return "float32" if str(x.dtype) == "float16" else x.dtype


def _up(x, v):
    return v if _acc(x) == x.dtype else v.astype(_acc(x))


def _max_and_sum(name, x, axis, log):
    shape = [d for k, d in enumerate(x.shape) if k != axis]
    k1 = te.reduce_axis((0, x.shape[axis]), name="k")
    maxelem = te.compute(shape, lambda *i: te.max(x(*_with(i, axis, k1)), axis=k1), name=f"T_{name}_maxelem")
    k2 = te.reduce_axis((0, x.shape[axis]), name="k")
    if log:
        expsum = te.compute(shape, lambda *i: te.sum(_tir_op.exp(_up(x, x(*_with(i, axis, k2)) - maxelem(*i))),
                                                     axis=k2), name=f"T_{name}_expsum")
        return maxelem, None, expsum
    exp = te.compute(x.shape, lambda *i: _tir_op.exp(_up(x, x(*i) - maxelem(*[v for k, v in enumerate(i)
                                                                                if k != axis]))),
                     name=f"T_{name}_exp")
    expsum = te.compute(shape, lambda *i: te.sum(exp(*_with(i, axis, k2)), axis=k2), name=f"T_{name}_expsum")
    return maxelem, exp, expsum


def _down(x, v):
    return v if _acc(x) == x.dtype else v.astype(x.dtype)


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along ``axis`` (float16 computed in float32)."""
    axis = _axis("softmax", x, axis)
    _, exp, expsum = _max_and_sum("softmax", x, axis, log=False)
    return te.compute(x.shape, lambda *i: _down(x, exp(*i) / expsum(*[v for k, v in enumerate(i) if k != axis])),
                      name="T_softmax_norm", tag="softmax_output")


def log_softmax(x, axis=-1):
    """x - max - log(sum(exp(x - max))) along ``axis`` (float16 computed in float32)."""
    axis = _axis("log_softmax", x, axis)
    maxelem, _, expsum = _max_and_sum("log_softmax", x, axis, log=True)

    def fcompute(*i):
        rest = [v for k, v in enumerate(i) if k != axis]
        return _down(x, _up(x, x(*i) - maxelem(*rest)) - _tir_op.log(expsum(*rest)))

    return te.compute(x.shape, fcompute, name="compute", tag="log_softmax_output")


__all__ = ["softmax", "log_softmax"]
