"""Reductions written in TE: ``topi.sum``, ``max``, ``min``, ``mean`` over
``axis`` (None = all, int or tuple; negative counts from the end) with
``keepdims``."""
from ..error import TVMTypeError, TVMValueError
from ..tir import op as _tir_op
from .. import te


def _axes(name, x, axis):
    ndim = len(x.shape)
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int):
            raise TVMTypeError(f"topi.{name}: axis must be ints, got {a!r}")
        if not -ndim <= a < ndim:
            raise TVMValueError(f"topi.{name}: axis {a} is out of range for {x.name} with {ndim} dimensions")
        a = a + ndim if a < 0 else a
        if a in out:
            raise TVMValueError(f"topi.{name}: axis {a} is given twice")
        out.append(a)
    return sorted(out)


def _reduce(name, reducer):
    def op(data, axis=None, keepdims=False):
        if not isinstance(data, te.Tensor):
            raise TVMTypeError(f"topi.{name}: expected a te.Tensor, got {type(data).__name__}")
        axes = _axes(name, data, axis)
        rvs = [te.reduce_axis((0, data.shape[a]), name=f"k{a}") for a in axes]
        out_shape = []
        for d, ext in enumerate(data.shape):
            if d not in axes:
                out_shape.append(ext)
            elif keepdims:
                out_shape.append(1)

        def fcompute(*i):
            idx, it, rit = [], iter(i), iter(rvs)
            for d in range(len(data.shape)):
                if d in axes:
                    if keepdims:
                        next(it)
                    idx.append(next(rit).var)
                else:
                    idx.append(next(it))
            return reducer(data(*idx), axis=rvs)

        return te.compute(out_shape, fcompute, name=data.name + "_red", tag="comm_reduce")

    op.__name__ = name
    op.__doc__ = f"topi.{name}(data, axis=None, keepdims=False): {name} over axis."
    return op


sum = _reduce("sum", te.sum)  # pylint: disable=redefined-builtin
max = _reduce("max", te.max)  # pylint: disable=redefined-builtin
min = _reduce("min", te.min)  # pylint: disable=redefined-builtin


def mean(data, axis=None, keepdims=False):
    """Arithmetic mean over axis (floating-point tensors)."""
    if isinstance(data, te.Tensor) and not str(data.dtype).startswith("float"):
        raise TVMTypeError(f"topi.mean: needs a floating-point tensor, got {data.name} of dtype {data.dtype}")
    total = sum(data, axis, keepdims)
    count = _tir_op.const(1, "int32")
    for a in _axes("mean", data, axis):
        count = count * data.shape[a]
    denom = count.astype(data.dtype)
    return te.compute(total.shape, lambda *i: total(*i) / denom, name="T_divide", tag="elemwise")


__all__ = ["sum", "max", "min", "mean"]
