"""FFI functions of the TIR passes (``tir.transform.*`` global functions)."""
from ..._ffi.registry import init_ffi_api

init_ffi_api("tir.transform", __name__)
