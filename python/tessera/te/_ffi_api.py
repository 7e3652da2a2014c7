"""FFI functions of the C++ ``te`` layer (``te.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("te", __name__)
