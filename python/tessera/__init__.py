"""Tessera: an end-to-end machine-learning compiler with a TVM-compatible API.

    import tessera as tvm

gives the names code written for Apache TVM (Unity generation) expects.
"""
from ._lib import _core  # the C++ core; built by `make build` or `pip install -e .`
from . import error
from .error import TVMError
from . import _ffi
from ._ffi import register_func, get_global_func, register_object
from . import runtime
from .runtime import Object, NDArray, PackedFunc, Device, DataType, device, cpu, cuda, gpu
from . import nd
from . import ir
from .ir import IRModule
from .ir import transform, instrument
import sys as _sys
_sys.modules[__name__ + ".transform"] = transform  # `import tvm.transform` works as in TVM
from . import arith
from . import tir
from . import target
from .driver import build, lower
from . import script
from . import relax, te, topi, meta_schedule  # not implemented yet: attribute access says so
from .relax.vm_build import compile  # pylint: disable=redefined-builtin
from .contrib.nvcc import _register_pypi_nvrtc
_register_pypi_nvrtc()  # PyPI's NVRTC as the fallback for CUDA builds (cheap: no import, no dlopen)

__version__ = "0.1.0"


def __getattr__(name):
    # tvm.testing, tvm.relay and tvm.contrib are loaded on first use.
    if name in ("testing", "relay", "contrib"):
        import importlib  # pylint: disable=import-outside-toplevel

        return importlib.import_module(__name__ + "." + name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["error", "TVMError", "register_func", "get_global_func", "register_object", "runtime", "Object",
           "NDArray", "PackedFunc", "Device", "DataType", "device", "cpu", "cuda", "gpu", "nd", "ir", "IRModule",
           "tir", "target", "build", "lower", "transform"]
