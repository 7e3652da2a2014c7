"""FFI functions of the C++ pass instruments (``instrument.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("instrument", __name__)
