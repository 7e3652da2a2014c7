"""FFI functions of the C++ schedule (``tir.schedule.*`` global functions)."""
from ..._ffi.registry import init_ffi_api

init_ffi_api("tir.schedule", __name__)
