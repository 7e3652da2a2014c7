"""LLVM queries of ``tvm.target.codegen``: the host CPU and triple that
``-mcpu=native`` and the default ``-mtriple`` resolve to."""
from .._ffi.registry import get_global_func


def llvm_get_system_cpu():
    """The host CPU's LLVM name (e.g. "skylake-avx512")."""
    return get_global_func("target.llvm_get_system_cpu")()


def llvm_get_system_triple():
    """The LLVM triple of this process (e.g. "x86_64-unknown-linux-gnu")."""
    return get_global_func("target.llvm_get_system_triple")()


__all__ = ["llvm_get_system_cpu", "llvm_get_system_triple"]
