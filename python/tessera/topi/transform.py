"""Layout transforms written in TE: ``topi.transpose``, ``reshape``,
``expand_dims``, ``squeeze``, ``broadcast_to``, ``concatenate``, ``take``,
``split`` and ``strided_slice``."""
from ..error import OpNotImplemented, TVMTypeError, TVMValueError
from .. import te


def transpose(a, axes=None):
    """Permutes the dimensions of ``a`` (reverses them when ``axes`` is None);
    negative axes count from the end."""
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.transpose: expected a te.Tensor, got {type(a).__name__}")
    ndim = len(a.shape)
    if axes is None:
        axes = list(range(ndim - 1, -1, -1))
    axes = [int(x) for x in axes]
    norm = [x + ndim if x < 0 else x for x in axes]
    if sorted(norm) != list(range(ndim)):
        raise TVMValueError(f"topi.transpose: axes {axes} are not a permutation of the {ndim} dimensions of "
                            f"{a.name}")
    shape = [a.shape[x] for x in norm]

    def fcompute(*i):
        idx = [None] * ndim
        for out_dim, in_dim in enumerate(norm):
            idx[in_dim] = i[out_dim]
        return a(*idx)

    return te.compute(shape, fcompute, name="T_transpose", tag="injective")


def _static_shape(name, x):
    from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    dims = []
    for d in x.shape:
        if not isinstance(d, IntImm):
            raise OpNotImplemented(f"topi.{name}: symbolic shapes are not supported yet ({x.name} has {d})")
        dims.append(d.value)
    return dims


def _dims(x):
    """x's dims: ints for constant dims, the PrimExpr otherwise."""
    from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    return [d.value if isinstance(d, IntImm) else d for d in x.shape]


def reshape(a, newshape):
    """``a`` viewed with ``newshape`` (one entry may be -1); row-major order."""
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.reshape: expected a te.Tensor, got {type(a).__name__}")
    from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    if not all(isinstance(d, IntImm) for d in a.shape) or not all(
            isinstance(d, (int, IntImm)) for d in newshape):
        return _reshape_symbolic(a, newshape)
    src = _static_shape("reshape", a)
    total = 1
    for d in src:
        total *= d
    newshape = [int(d) for d in newshape]
    if newshape.count(-1) > 1 or any(d < -1 for d in newshape):
        raise TVMValueError(f"topi.reshape: invalid new shape {newshape} (at most one -1, no other negatives)")
    known = 1
    for d in newshape:
        known *= d if d != -1 else 1
    if -1 in newshape:
        if known == 0 or total % known:
            raise TVMValueError(f"topi.reshape: cannot reshape {a.name} of shape {src} into {newshape}")
        newshape[newshape.index(-1)] = total // known
    elif known != total:
        raise TVMValueError(f"topi.reshape: cannot reshape {a.name} of shape {src} ({total} elements) into "
                            f"{newshape} ({known} elements)")

    if total == 0:  # nothing to read (and no dimension to divide by): an empty tensor of the new shape
        from ..tir import op as _tir_op  # pylint: disable=import-outside-toplevel
        return te.compute(newshape, lambda *i: _tir_op.const(0, a.dtype), name="T_reshape", tag="injective")

    def fcompute(*i):
        flat = 0
        for k, d in zip(i, newshape):
            flat = flat * d + k
        idx = []
        for d in reversed(src):
            idx.append(flat % d if d != 1 else 0)
            flat = flat // d
        return a(*reversed(idx))

    return te.compute(newshape, fcompute, name="T_reshape", tag="injective")


def _reshape_symbolic(a, newshape):
    """reshape when a dim is symbolic: ``newshape`` is complete (no -1); the
    caller (relax.reshape's inference) has checked the element count."""
    from ..tir import op as _tir_op  # pylint: disable=import-outside-toplevel
    from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    newshape = list(newshape)
    if any(isinstance(d, (int, IntImm)) and int(d) < 0 for d in newshape):
        raise TVMValueError(f"topi.reshape: a -1 in {newshape} needs the static shape of {a.name} "
                            f"(it has {list(a.shape)})")
    src = list(a.shape)

    def fcompute(*i):
        flat = None
        for k, d in zip(i, newshape):
            flat = k if flat is None else flat * d + k
        if flat is None:
            flat = _tir_op.const(0, "int64")
        idx = []
        for d in reversed(src):
            if isinstance(d, IntImm) and d.value == 1:
                idx.append(_tir_op.const(0, d.dtype))
                continue
            idx.append(_tir_op.floormod(flat, d))
            flat = _tir_op.floordiv(flat, d)
        return a(*reversed(idx))

    return te.compute(newshape, fcompute, name="T_reshape", tag="injective")


def expand_dims(a, axis, num_newaxis=1):
    """Inserts ``num_newaxis`` unit dimensions at ``axis``."""
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.expand_dims: expected a te.Tensor, got {type(a).__name__}")
    ndim = len(a.shape)
    if not -ndim - 1 <= axis <= ndim:
        raise TVMValueError(f"topi.expand_dims: axis {axis} is out of range for {a.name} with {ndim} dimensions")
    axis = axis + ndim + 1 if axis < 0 else axis
    shape = list(a.shape[:axis]) + [1] * num_newaxis + list(a.shape[axis:])
    return te.compute(shape, lambda *i: a(*(list(i[:axis]) + list(i[axis + num_newaxis:]))),
                      name="T_expand_dims", tag="broadcast")


def squeeze(a, axis=None):
    """Removes unit dimensions (all of them, or those in ``axis``)."""
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.squeeze: expected a te.Tensor, got {type(a).__name__}")
    src = _dims(a)
    ndim = len(src)
    if axis is None:
        if not all(isinstance(d, int) for d in src):
            raise OpNotImplemented(f"topi.squeeze: axis=None needs the static shape of {a.name} (it has "
                                      f"{list(a.shape)}); give the axes")
        axes = [k for k, d in enumerate(src) if d == 1]
    else:
        axes = sorted({(x + ndim if x < 0 else x) for x in ([axis] if isinstance(axis, int) else axis)})
        for x in axes:
            if not 0 <= x < ndim:
                raise TVMValueError(f"topi.squeeze: axis {x} is out of range for {a.name}")
            if isinstance(src[x], int) and src[x] != 1:
                raise TVMValueError(f"topi.squeeze: dimension {x} of {a.name} has size {src[x]}, not 1")
    keep = [k for k in range(ndim) if k not in axes]

    def fcompute(*i):
        it = iter(i)
        return a(*[0 if k in axes else next(it) for k in range(ndim)])

    return te.compute([a.shape[k] for k in keep], fcompute, name="T_squeeze", tag="injective")


def broadcast_to(a, shape):
    """``a`` broadcast (NumPy rules) to ``shape``."""
    from .broadcast import broadcast_shape, _broadcast_index  # pylint: disable=import-outside-toplevel
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.broadcast_to: expected a te.Tensor, got {type(a).__name__}")
    from .broadcast import _const, _same_dim  # pylint: disable=import-outside-toplevel
    # static dims as ints, symbolic ones (tir vars / expressions) kept
    target = [_const(d) if _const(d) is not None else d for d in shape]
    out = broadcast_shape(a.shape, target, "broadcast_to")
    if len(out) != len(target) or not all(_same_dim(o, t) for o, t in zip(out, target)):
        raise TVMValueError(f"topi.broadcast_to: cannot broadcast {a.name} of shape "
                            f"{list(a.shape)} to {target}")
    return te.compute(target, lambda *i: a(*_broadcast_index(a, len(target), i)), name="T_broadcast_to",
                      tag="broadcast")


def concatenate(a_tuple, axis=0):
    """Joins tensors of equal dtype and equal other dimensions along ``axis``."""
    from ..tir import op as _tir_op  # pylint: disable=import-outside-toplevel
    tensors = list(a_tuple) if isinstance(a_tuple, (list, tuple)) else None
    if not tensors or not all(isinstance(t, te.Tensor) for t in tensors):
        raise TVMTypeError("topi.concatenate: expected a non-empty list of te.Tensor")
    shapes = [_dims(t) for t in tensors]
    ndim = len(shapes[0])
    if not -ndim <= axis < ndim:
        raise TVMValueError(f"topi.concatenate: axis {axis} is out of range for {ndim} dimensions")
    axis = axis + ndim if axis < 0 else axis
    for t, s in zip(tensors, shapes):
        if t.dtype != tensors[0].dtype:
            raise TVMTypeError(f"topi.concatenate: {t.name} has dtype {t.dtype}, expected {tensors[0].dtype}")
        if len(s) != ndim or any(isinstance(s[k], int) and isinstance(shapes[0][k], int) and s[k] != shapes[0][k]
                                 for k in range(ndim) if k != axis):
            raise TVMValueError(f"topi.concatenate: {t.name} of shape {s} does not match {shapes[0]} off axis {axis}")
    offsets = [0]
    for s in shapes:
        offsets.append(offsets[-1] + s[axis])
    out_shape = list(shapes[0])
    out_shape[axis] = offsets[-1]

    def fcompute(*i):
        def pick(n):
            idx = list(i)
            idx[axis] = i[axis] - offsets[n]
            value = tensors[n](*idx)
            if n == len(tensors) - 1:
                return value
            return _tir_op.if_then_else(i[axis] < offsets[n + 1], value, pick(n + 1))

        return pick(0)

    return te.compute(out_shape, fcompute, name="T_concat", tag="injective")


def take(a, indices, axis=None, mode="clip"):
    """Elements of ``a`` at integer ``indices`` (a tensor) along ``axis``
    (None: of the flattened ``a``). mode: "clip" (default), "wrap", "fast"
    (indices assumed in range), or the Tessera extensions "raise" (NumPy's
    mode="raise": a negative index counts from the end once; one outside
    [-n, n) makes the kernel raise IndexError naming the index and n) and
    "raise_nonnegative" (likewise for an index outside [0, n))."""
    from ..tir import op as _tir_op  # pylint: disable=import-outside-toplevel
    if not isinstance(a, te.Tensor) or not isinstance(indices, te.Tensor):
        raise TVMTypeError("topi.take: a and indices must be te.Tensor")
    if not str(indices.dtype).startswith(("int", "uint")):
        raise TVMTypeError(f"topi.take: indices must be integers, got {indices.dtype}")
    if mode not in ("clip", "wrap", "fast", "raise", "raise_nonnegative"):
        raise TVMValueError(f"topi.take: mode must be 'clip', 'wrap', 'fast', 'raise' or 'raise_nonnegative', "
                            f"got {mode!r}")
    if axis is None:
        a = reshape(a, (-1,))
        axis = 0
    ndim = len(a.shape)
    if not -ndim <= axis < ndim:
        raise TVMValueError(f"topi.take: axis {axis} is out of range for {a.name} with {ndim} dimensions")
    axis = axis + ndim if axis < 0 else axis
    n = a.shape[axis]
    ni = len(indices.shape)
    out_shape = list(a.shape[:axis]) + list(indices.shape) + list(a.shape[axis + 1:])
    from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    if isinstance(n, IntImm) and n.value == 0:
        # Nothing to take from: no mode can compute an index (clip's n - 1 is -1, wrap divides by
        # zero). Only an empty result is valid.
        if not any(isinstance(d, IntImm) and d.value == 0 for d in indices.shape):
            raise TVMValueError(f"topi.take: cannot take elements from axis {axis} of {a.name}, of extent 0")
        return te.compute(out_shape, lambda *i: _tir_op.const(0, a.dtype), name="T_take", tag="injective")

    def fcompute(*i):
        j = indices(*i[axis:axis + ni])
        if mode.startswith("raise"):  # checked in int64: no narrowing before the check
            if str(j.dtype) == "uint64":  # past INT64_MAX: still out of range, not negative
                j = _tir_op.min(j, _tir_op.const(2**63 - 1, "uint64"))
            j = j.astype("int64") if j.dtype != "int64" else j
        j = j.astype(n.dtype) if j.dtype != n.dtype and not mode.startswith("raise") else j
        # A symbolic extent may be 0 at run time: the index stays computable
        # (no division by zero) and the read is skipped (no element to read).
        symbolic = not isinstance(n, IntImm)
        if mode == "clip":
            j = _tir_op.min(_tir_op.max(j, 0), _tir_op.max(n - 1, 0) if symbolic else n - 1)
        elif mode == "wrap":
            j = _tir_op.floormod(j, _tir_op.max(n, 1) if symbolic else n)
        elif mode.startswith("raise"):
            from ..tir import expr as _tir_expr  # pylint: disable=import-outside-toplevel
            # The kernel checks each index (an empty axis refuses every one).
            j = _tir_op.call_intrin("int64", "tir.checked_index", j, n.astype("int64") if n.dtype != "int64" else n,
                                    _tir_expr.StringImm(f"take along axis {axis}"),
                                    _tir_op.const(int(mode == "raise"), "int32"))
        value = a(*(list(i[:axis]) + [j] + list(i[axis + ni:])))
        if mode in ("clip", "wrap") and symbolic:
            value = _tir_op.if_then_else(n > 0, value, _tir_op.const(0, a.dtype))
        return value

    return te.compute(out_shape, fcompute, name="T_take", tag="injective")


def _slice_length(n, begin, end, stride):
    """Length of the NumPy slice begin:end:stride of a dimension of size n."""
    return len(range(*slice(begin, end, stride).indices(n)))


def _slice_start(n, begin, end, stride):
    return slice(begin, end, stride).indices(n)[0]


def split(ary, indices_or_sections, axis=0):
    """Parts of ``ary`` along ``axis``: ``indices_or_sections`` equal sections
    (an int dividing the dimension) or the split points (ints, as np.split's)."""
    if not isinstance(ary, te.Tensor):
        raise TVMTypeError(f"topi.split: expected a te.Tensor, got {type(ary).__name__}")
    src = _dims(ary)
    ndim = len(src)
    if not -ndim <= axis < ndim:
        raise TVMValueError(f"topi.split: axis {axis} is out of range for {ary.name} with {ndim} dimensions")
    axis = axis + ndim if axis < 0 else axis
    n = src[axis]
    if not isinstance(n, int):
        raise OpNotImplemented(f"topi.split: dimension {axis} of {ary.name} is symbolic ({n})")
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        sections = indices_or_sections
        if sections <= 0 or n % sections:
            raise TVMValueError(f"topi.split: dimension {axis} of {ary.name} ({n}) cannot be split into "
                                f"{sections} equal sections")
        points = [n // sections * k for k in range(1, sections)]
    else:
        points = [int(p) for p in indices_or_sections]  # as NumPy: need not ascend (empty parts between)
    bounds = [0] + [min(max(p + n if p < 0 else p, 0), n) for p in points] + [n]
    outs = []
    for k in range(len(bounds) - 1):
        start = min(bounds[k], n)
        size = max(0, bounds[k + 1] - start)
        shape = list(ary.shape)
        shape[axis] = size

        def fcompute(*i, start=start):
            idx = list(i)
            idx[axis] = i[axis] + start
            return ary(*idx)

        outs.append(te.compute(shape, fcompute, name=f"T_split_{k}" if k else "T_split", tag="injective"))
    return outs


def strided_slice(a, begin, end, strides=None, axes=None, slice_mode="end", assume_inbound=True):
    """The NumPy slice ``begin:end:strides`` of ``a`` along ``axes`` (None:
    the first len(begin) dims), clamped as NumPy does; static dims only."""
    del assume_inbound  # static sizes: the slice is clamped exactly
    if not isinstance(a, te.Tensor):
        raise TVMTypeError(f"topi.strided_slice: expected a te.Tensor, got {type(a).__name__}")
    if slice_mode != "end":
        raise TVMValueError(f"topi.strided_slice: slice_mode {slice_mode!r} is not supported (only 'end')")
    ndim = len(a.shape)
    begin = [int(x) for x in begin]
    end = [int(x) for x in end]
    axes = list(range(len(begin))) if axes is None else [int(x) for x in axes]
    strides = [1] * len(axes) if strides is None else [int(x) for x in strides]
    if not len(begin) == len(end) == len(axes) == len(strides):
        raise TVMValueError("topi.strided_slice: begin, end, strides and axes must have the same length")
    src = list(a.shape)
    out_shape = list(a.shape)
    starts = {}
    for ax, b, e, st in zip(axes, begin, end, strides):
        if not -ndim <= ax < ndim:
            raise TVMValueError(f"topi.strided_slice: axis {ax} is out of range for {a.name} with {ndim} dimensions")
        ax = ax + ndim if ax < 0 else ax
        if st == 0:
            raise TVMValueError("topi.strided_slice: a stride is zero")
        from ..tir.expr import IntImm  # pylint: disable=import-outside-toplevel
        if not isinstance(src[ax], IntImm):
            raise OpNotImplemented(f"topi.strided_slice: dimension {ax} of {a.name} is symbolic ({src[ax]})")
        n = src[ax].value
        out_shape[ax] = _slice_length(n, b, e, st)
        # A step matters only between two taken elements (then |st| < n): a
        # huge step taking one element must not reach the index arithmetic.
        starts[ax] = (_slice_start(n, b, e, st), st if out_shape[ax] > 1 else 1)

    def fcompute(*i):
        idx = list(i)
        for ax, (start, st) in starts.items():
            idx[ax] = i[ax] * st + start
        return a(*idx)

    return te.compute(out_shape, fcompute, name="T_strided_slice", tag="injective")


__all__ = ["transpose", "reshape", "expand_dims", "squeeze", "broadcast_to", "concatenate", "take", "split",
           "strided_slice"]
