"""``tvm.nd``: NDArray construction (an alias of :mod:`tessera.runtime.ndarray`)."""
from .runtime.ndarray import NDArray, empty, array, from_dlpack  # noqa: F401
from .runtime.device import cpu, cuda, gpu, device  # noqa: F401

__all__ = ["NDArray", "empty", "array", "from_dlpack", "cpu", "cuda", "gpu", "device"]
