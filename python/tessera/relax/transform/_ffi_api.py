"""FFI functions of the Relax passes (``relax.transform.*`` global functions)."""
from ..._ffi.registry import init_ffi_api

init_ffi_api("relax.transform", __name__)
