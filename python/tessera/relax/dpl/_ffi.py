"""FFI functions of the dataflow pattern language (``relax.dpl.*`` globals)."""
from ..._ffi.registry import init_ffi_api

init_ffi_api("relax.dpl", __name__)
