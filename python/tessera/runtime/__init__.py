"""The runtime layer's Python API (``tvm.runtime``): objects, devices,
dtypes, NDArrays and packed functions.  Needs only the runtime library."""
from .object import Object
from .packed_func import PackedFunc
from .device import Device, device, cpu, cuda, gpu
from .data_type import DataType
from . import ndarray
from .ndarray import NDArray
from .module import Module, load_module
from . import container
from .container import ShapeTuple
from . import profiling

__all__ = ["Object", "PackedFunc", "Device", "device", "cpu", "cuda", "gpu", "DataType",
           "ndarray", "NDArray", "Module", "load_module", "container", "ShapeTuple"]
