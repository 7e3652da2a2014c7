"""FFI functions of the C++ ``tir`` layer (``tir.*`` global functions)."""
from .._ffi.registry import init_ffi_api

init_ffi_api("tir", __name__)
