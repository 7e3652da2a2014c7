"""``relax.analysis.remove_all_unused`` (src/relax/transform/dead_code_elimination.cc)."""
from ..._ffi.registry import get_global_func
from ..expr import Function
from ...error import TVMTypeError


def remove_all_unused(func):
    """``func`` without the bindings whose var is never used and whose value has
    no side effect; match_casts defining symbolic dims and impure calls stay."""
    if not isinstance(func, Function):
        raise TVMTypeError(f"remove_all_unused expects a relax.Function, got {type(func).__name__}")
    return get_global_func("relax.analysis.remove_all_unused")(func)


__all__ = ["remove_all_unused"]
