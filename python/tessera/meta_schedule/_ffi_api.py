"""FFI functions of the C++ meta-schedule layer (``meta_schedule.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("meta_schedule", __name__)
