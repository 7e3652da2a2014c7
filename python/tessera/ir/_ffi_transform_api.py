"""FFI functions of the C++ pass infrastructure (``transform.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("transform", __name__)
