"""LLVM queries of ``tvm.target.codegen``: the host CPU and triple that
``-mcpu=native`` and the default ``-mtriple`` resolve to, and a target's
vector width."""
from .._ffi.registry import get_global_func


def llvm_get_system_cpu():
    """The host CPU's LLVM name (e.g. "skylake-avx512")."""
    return get_global_func("target.llvm_get_system_cpu")()


def llvm_get_system_triple():
    """The LLVM triple of this process (e.g. "x86_64-unknown-linux-gnu")."""
    return get_global_func("target.llvm_get_system_triple")()


def llvm_get_vector_width(target=None):
    """The SIMD register width in bits of ``target`` (a Target or string; None:
    the host): 512 with AVX-512F, 256 with AVX, else 128."""
    from . import Target  # pylint: disable=import-outside-toplevel

    target = Target("llvm") if target is None else target
    target = target if isinstance(target, Target) else Target(target)
    return int(get_global_func("target.llvm_get_vector_width")(target))


__all__ = ["llvm_get_system_cpu", "llvm_get_system_triple", "llvm_get_vector_width"]
