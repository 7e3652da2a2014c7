"""FFI functions of the Relax analyses (``relax.analysis.*`` global functions)."""
from ..._ffi.registry import init_ffi_api

init_ffi_api("relax.analysis", __name__)
