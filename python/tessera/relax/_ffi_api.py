"""FFI functions of the C++ Relax layer (``relax.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("relax", __name__)
