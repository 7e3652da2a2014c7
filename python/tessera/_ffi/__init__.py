"""The FFI layer's Python API (``tvm._ffi``): object class registration and
the global function registry, shared by every other Python module."""
from .registry import (register_object, register_func, get_global_func, list_global_func_names,
                       remove_global_func, init_ffi_api)

__all__ = ["register_object", "register_func", "get_global_func", "list_global_func_names", "remove_global_func", "init_ffi_api"]
