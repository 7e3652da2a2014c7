"""FFI functions of the C++ ``ir`` layer (``ir.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("ir", __name__)
