"""FFI functions of the C++ ``arith`` layer (``arith.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("arith", __name__)
