"""NDArray (``tvm.nd``): n-dimensional arrays on a device.

``tvm.nd.array(np_array, device)`` copies from NumPy (or anything
``np.asarray`` accepts); ``.numpy()`` copies back.  DLPack shares memory
with NumPy and PyTorch without copying, in both directions:
``torch.from_dlpack(nd)``, ``np.from_dlpack(nd)``, ``tvm.nd.from_dlpack(t)``.
Allocations are 64-byte aligned.
"""
import numpy as np

from .. import _core
from .._ffi.registry import register_object
from ..error import TVMTypeError, TVMValueError
from .device import Device, cpu, device as _make_device
from .data_type import DataType

_SUPPORTED_KINDS = {"b", "i", "u", "f"}


def _numpy_dtype(dtype):
    """NumPy dtype holding elements of Tessera dtype ``dtype`` (a string)."""
    t = DataType(dtype)
    base = str(t).split("x")[0]
    if base == "bfloat16":
        try:
            import ml_dtypes  # pylint: disable=import-outside-toplevel
        except ImportError as err:
            raise TVMTypeError("bfloat16 arrays need the ml_dtypes package to convert to NumPy") from err
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(base)


def _tessera_dtype(np_dtype):
    np_dtype = np.dtype(np_dtype)
    if np_dtype.name == "bfloat16":
        return "bfloat16"
    if np_dtype.kind not in _SUPPORTED_KINDS or np_dtype.name in ("float128", "longdouble"):
        raise TVMTypeError(
            f"unsupported dtype '{np_dtype}': Tessera arrays hold bool, int8-64, uint8-64, "
            "float16, bfloat16, float32 and float64")
    return np_dtype.name


def _as_bytes(arr):
    """A flat uint8 view of a C-contiguous array (works for every dtype)."""
    return arr.reshape(-1).view(np.uint8)


@register_object("runtime.NDArray")
class NDArray(_core.NDArrayBase):
    """An n-dimensional array on a device (``shape``, ``dtype``, ``device``)."""

    def numpy(self):
        """Copies the contents into a new NumPy array."""
        t = DataType(self.dtype)
        shape = tuple(self.shape) + ((t.lanes,) if t.lanes > 1 else ())
        out = np.empty(shape, dtype=_numpy_dtype(self.dtype))
        self._copy_to_buffer(_as_bytes(out))
        return out

    def asnumpy(self):
        """Old name of :meth:`numpy`."""
        return self.numpy()

    def copyfrom(self, source):
        """Copies ``source`` (an NDArray, or anything ``np.asarray`` takes, cast
        to this array's dtype) into this array; returns ``self``."""
        if isinstance(source, NDArray):
            self._copy_from_ndarray(source)
            return self
        t = DataType(self.dtype)
        try:
            source = np.asarray(source, dtype=_numpy_dtype(self.dtype))
        except (TypeError, ValueError) as err:
            raise TVMTypeError(f"copyfrom: cannot convert {type(source).__name__} to {self.dtype}: {err}") from err
        expected = tuple(self.shape) + ((t.lanes,) if t.lanes > 1 else ())
        if source.shape != expected:
            raise TVMValueError(f"copyfrom: array shape {source.shape} does not match the NDArray shape {expected}")
        self._copy_from_buffer(_as_bytes(np.ascontiguousarray(source)))
        return self

    def copyto(self, target):
        """Copies into ``target``: an NDArray (returned) or a Device (a new array there)."""
        if isinstance(target, NDArray):
            target._copy_from_ndarray(self)
            return target
        if isinstance(target, Device):
            return self._copy_to_device(target)
        raise TVMTypeError(f"copyto expects an NDArray or a Device, got {type(target).__name__}")

    def to_dlpack(self):
        """A DLPack capsule sharing this array's memory."""
        return self.__dlpack__()

    def __setitem__(self, key, value):
        if not isinstance(key, slice) or key != slice(None):
            raise TVMTypeError("NDArray only supports assignment to the whole array: arr[:] = value")
        self.copyfrom(value)

    def __array__(self, dtype=None, copy=None):
        if copy is False:  # NumPy 2's protocol: a view was required
            raise TVMValueError("an NDArray cannot be viewed as a NumPy array without a copy; use copy=None or True")
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __len__(self):
        if not self.shape:
            raise TVMTypeError("len() of a 0-d NDArray")
        return self.shape[0]

    def __repr__(self):
        return f"<tvm.nd.NDArray shape={tuple(self.shape)}, {self.device}>\n{self.numpy()!r}"

    def __str__(self):
        return str(self.numpy())


def empty(shape, dtype="float32", device=None, mem_scope=None):  # pylint: disable=redefined-outer-name
    """An uninitialized array of ``shape`` and ``dtype`` on ``device`` (default cpu(0))."""
    if mem_scope not in (None, "global"):
        raise TVMValueError(f"nd.empty: memory scope '{mem_scope}' is not supported")
    if isinstance(shape, int):
        shape = (shape,)
    dev = cpu(0) if device is None else _make_device(device)
    dims = [int(s) for s in shape]
    for axis, d in enumerate(dims):
        if not -(2**63) <= d < 2**63:
            raise TVMValueError(f"nd.empty: dimension {d} at axis {axis} of shape {tuple(dims)} does not fit in int64")
    return _core._nd_empty(dims, str(dtype), dev)


def array(arr, device=None, mem_scope=None):  # pylint: disable=redefined-outer-name
    """Copies ``arr`` (NumPy array, NDArray, nested list, tensor...) to a new
    NDArray on ``device`` (default cpu(0)). Non-contiguous input is copied."""
    dev = cpu(0) if device is None else _make_device(device)
    if isinstance(arr, NDArray):
        return arr.copyto(dev)
    if not isinstance(arr, np.ndarray):
        arr = np.asarray(arr)
    dtype = _tessera_dtype(arr.dtype)
    return empty(arr.shape, dtype, dev, mem_scope).copyfrom(arr)


def from_dlpack(dltensor):
    """Wraps a DLPack tensor (an object with ``__dlpack__``, e.g. a PyTorch
    tensor or NumPy array, or a 'dltensor' capsule) without copying.
    Writes through either side are seen by the other."""
    if hasattr(dltensor, "__dlpack__"):
        try:
            capsule = dltensor.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer that predates DLPack 1.0
            capsule = dltensor.__dlpack__()
    else:
        capsule = dltensor
    return _core._nd_from_dlpack_capsule(capsule)



__all__ = ["NDArray", "empty", "array", "from_dlpack"]
