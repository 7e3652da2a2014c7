"""Reductions written in TE: ``topi.sum``, ``max``, ``min``, ``prod``,
``mean`` over ``axis`` (None = all, int or tuple; negative counts from the
end) with ``keepdims``, and ``argmax``/``argmin`` (int64 index of the first
extremum along one axis, None = of the flattened tensor)."""
from ..error import TVMTypeError, TVMValueError
from ..tir import op as _tir_op
from ..tir import Select
from ..tir import _ffi_api as _tir_ffi
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


def _check_nonempty(name, data, axes):
    """max, min, argmax and argmin have no identity: reducing over an axis of
    static extent 0 is an error, as in NumPy (sum and prod give 0 and 1)."""
    for a in axes:
        ext = data.shape[a]
        if isinstance(ext, int) and ext == 0 or getattr(ext, "value", None) == 0:
            raise TVMValueError(f"topi.{name}: cannot reduce over axis {a} of {data.name}, whose extent is 0 "
                                f"(the {name} of an empty sequence is undefined, as in NumPy)")


def _nonempty_init(name, data, axes, identity):
    """The init of a reduction with no identity (max, min) over ``axes``: the
    ``identity`` placeholder value, checked by the kernel that every symbolic
    extent is positive (an empty one raises ValueError naming ``name``). None
    when every extent is static (already checked at construction)."""
    from ..tir.expr import StringImm  # pylint: disable=import-outside-toplevel
    symbolic = [a for a in axes if not isinstance(data.shape[a], int) and getattr(data.shape[a], "value", None) is None]
    if not symbolic:
        return None
    cond = _tir_op.all(*[data.shape[a] > 0 for a in symbolic])
    what = "axis " + ", ".join(str(a) for a in symbolic) if len(symbolic) < 2 else \
        "axes " + ", ".join(str(a) for a in symbolic)
    message = (f"ValueError: {name}: cannot reduce over {what} of {data.name}, which is empty at run time "
               f"(the {name} of an empty sequence is undefined, as in NumPy)")
    return _tir_op.call_intrin(data.dtype, "tir.checked_value", cond, identity(data.dtype), StringImm(message))


def _reduce(name, reducer, identity=None):
    """topi.<name>; ``identity`` (max/min, which have none): the init value
    when the axes may be empty at run time, then checked by the kernel."""
    def op(data, axis=None, keepdims=False, _what=None):
        if not isinstance(data, te.Tensor):
            raise TVMTypeError(f"topi.{name}: expected a te.Tensor, got {type(data).__name__}")
        axes = _axes(name, data, axis)
        init = None
        if identity is not None:
            _check_nonempty(_what or name, data, axes)
            init = _nonempty_init(_what or name, data, axes, identity)
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
            if not rvs:  # nothing to reduce over (a 0-d tensor): the value itself, as NumPy
                return data(*idx)
            return reducer(data(*idx), axis=rvs, init=init)

        return te.compute(out_shape, fcompute, name="T_" + name, tag="comm_reduce")

    op.__name__ = name
    op.__doc__ = f"topi.{name}(data, axis=None, keepdims=False): {name} over axis."
    return op


sum = _reduce("sum", te.sum)  # pylint: disable=redefined-builtin
max = _reduce("max", te.max, _tir_op.min_value)  # pylint: disable=redefined-builtin
min = _reduce("min", te.min, _tir_op.max_value)  # pylint: disable=redefined-builtin
_prod_reducer = te.comm_reducer(lambda a, b: a * b, lambda t: _tir_op.const(1, t), name="prod")
prod = _reduce("prod", _prod_reducer)


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


def _arg_reduce(name, is_max):
    def op(data, axis=None, keepdims=False, select_last_index=False):
        if not isinstance(data, te.Tensor):
            raise TVMTypeError(f"topi.{name}: expected a te.Tensor, got {type(data).__name__}")
        if select_last_index:
            raise TVMValueError(f"topi.{name}: select_last_index=True is not supported")
        if axis is not None and not isinstance(axis, int):
            axis = list(axis)
            if len(axis) != 1:
                raise TVMValueError(f"topi.{name}: axis must be one int or None, got {axis}")
            axis = axis[0]
        ndim = len(data.shape)
        if axis is None:
            _check_nonempty(name, data, range(ndim))
            flat = _flat(data)
            out = op(flat, 0, False)
            if keepdims:
                return te.compute([1] * ndim, lambda *i: out(), name=f"T_{name}_keepdims", tag="injective")
            return out
        ax = _axes(name, data, axis)[0]
        _check_nonempty(name, data, [ax])
        is_float = str(data.dtype).startswith(("float", "bfloat"))
        # NumPy and PyTorch answer the index of the first NaN: the extreme
        # propagates NaN, and a NaN element is a hit.
        extreme = (_nan_reduce(name, is_max) if is_float else (max if is_max else min))(data, ax, True, _what=name)
        n = data.shape[ax]
        k = te.reduce_axis((0, n), name="k")
        out_shape = [d for j, d in enumerate(data.shape) if j != ax or keepdims]
        out_shape = [1 if (j == ax and keepdims) else d for j, d in enumerate(out_shape)]

        def fcompute(*i):
            i = list(i)
            base = i if keepdims else i[:ax] + [0] + i[ax:]
            ext_idx = list(base)
            ext_idx[ax] = 0
            idx = list(base)
            idx[ax] = k.var
            hit = _tir_ffi._OpEQ(data(*idx), extreme(*ext_idx))
            if is_float:
                hit = _tir_ffi._OpOr(hit, _tir_op.isnan(data(*idx)))
            kk = k.var.astype("int64")
            return te.min(_tir_op.if_then_else(hit, kk, _tir_op.const(2**62, "int64")), axis=[k])

        return te.compute(out_shape, fcompute, name=f"T_{name}", tag="comm_reduce_idx")

    op.__name__ = name
    op.__doc__ = f"topi.{name}(data, axis=None, keepdims=False): int64 index of the first {name[3:]}imum."
    return op


def _nan_reduce(name, is_max):
    """max (or min) that is NaN as soon as one element is NaN (np.max's rule)."""

    def combine(x, y):
        best = _tir_ffi._OpMax(x, y) if is_max else _tir_ffi._OpMin(x, y)
        return Select(_tir_op.isnan(x), x, Select(_tir_op.isnan(y), y, best))

    ident = _tir_op.min_value if is_max else _tir_op.max_value
    return _reduce(name + "_nan", te.comm_reducer(combine, ident, name=("nanmax" if is_max else "nanmin")), ident)


def _flat(data):
    from .transform import reshape  # pylint: disable=import-outside-toplevel
    return reshape(data, (-1,))


argmax = _arg_reduce("argmax", True)
argmin = _arg_reduce("argmin", False)

__all__ = ["sum", "max", "min", "prod", "mean", "argmax", "argmin"]
