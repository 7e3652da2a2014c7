"""Which Relax vars an expression uses and defines (src/relax/analysis/vars.cc):
``free_vars``, ``bound_vars``, ``all_vars``, ``all_global_vars``, each in
order of first appearance, as TVM's functions of those names."""
from ...ir.expr import RelaxExpr
from . import _ffi_api
from ...error import TVMTypeError


def _check(expr, what):
    if not isinstance(expr, RelaxExpr):
        raise TVMTypeError(f"relax.analysis.{what} expects a relax expression, got {type(expr).__name__}")
    return expr


def free_vars(expr):
    """The vars ``expr`` uses without defining them (not parameters or binding vars inside it)."""
    return list(_ffi_api.free_vars(_check(expr, "free_vars")))


def bound_vars(expr):
    """The vars ``expr`` defines: function parameters and binding vars."""
    return list(_ffi_api.bound_vars(_check(expr, "bound_vars")))


def all_vars(expr):
    """Every var ``expr`` defines or uses."""
    return list(_ffi_api.all_vars(_check(expr, "all_vars")))


def all_global_vars(expr):
    """The GlobalVars ``expr`` refers to."""
    return list(_ffi_api.all_global_vars(_check(expr, "all_global_vars")))


__all__ = ["free_vars", "bound_vars", "all_vars", "all_global_vars"]
