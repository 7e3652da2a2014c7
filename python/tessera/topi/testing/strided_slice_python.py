"""NumPy references of strided_slice (``data[begin:end:strides]`` per axis,
``slice_mode="size"`` reading ``end`` as sizes, ``axes`` naming the sliced
axes) and of strided_set (writing ``v`` into that slice)."""
from ...error import TVMValueError


def _slices(shape, begin, end, strides, slice_mode="end", axes=None):
    ndim = len(shape)
    axes = list(range(len(begin))) if axes is None else [a + ndim if a < 0 else a for a in axes]
    strides = [1] * len(axes) if strides is None or len(strides) == 0 else list(strides)
    if len(strides) == 1 and len(axes) > 1:
        strides = strides * len(axes)
    slices = [slice(None)] * ndim
    for i, axis in enumerate(axes):
        b = begin[i]
        step = strides[i] if i < len(strides) else 1
        if slice_mode == "size":
            size = end[i]
            step = 1
            e = None if size < 0 else b + size
            if e is not None and e == 0 and b < 0:
                e = None
        elif slice_mode == "end":
            e = end[i] if i < len(end) else None
        else:
            raise TVMValueError(f"strided_slice_python: slice_mode must be 'end' or 'size', got {slice_mode!r}")
        slices[axis] = slice(b, e, step)
    return tuple(slices)


def strided_slice_python(data, begin, end, strides, slice_mode="end", axes=None):
    """``data`` sliced by begin/end/strides (NumPy semantics, out-of-range ends clamp)."""
    return data[_slices(data.shape, begin, end, strides, slice_mode, axes)]


def strided_set_python(data, v, begin, end, strides):
    """A copy of ``data`` with the strided slice replaced by ``v``."""
    out = data.copy()
    out[_slices(data.shape, begin, end, strides)] = v
    return out
