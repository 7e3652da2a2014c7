"""Maps over the bindings of Relax IR (src/relax/analysis/binding_maps.cc,
computable_at_compile_time.cc), as TVM's relax.analysis functions:
``get_var2val``, ``name_to_binding``, ``udchain``, ``post_order_visit``,
``computable_at_compile_time``."""
from ...ir.expr import RelaxExpr
from ...ir.module import IRModule
from ..expr import BindingBlock, DataflowBlock, Function
from . import _ffi_api
from ...error import TVMTypeError


def get_var2val(func):
    """{var: value} of every VarBinding in ``func`` (a relax Function or
    expression, a binding block or an IRModule)."""
    if not isinstance(func, (RelaxExpr, BindingBlock, IRModule)):
        raise TVMTypeError(f"relax.analysis.get_var2val expects a relax Function, expression, binding block or "
                        f"IRModule, got {type(func).__name__}")
    return dict(_ffi_api.get_var2val(func))


def name_to_binding(func):
    """{var name: [bindings of a var of that name]} over ``func``."""
    if not isinstance(func, RelaxExpr):
        raise TVMTypeError(f"relax.analysis.name_to_binding expects a relax Function, got {type(func).__name__}")
    return {name: list(bindings) for name, bindings in _ffi_api.name_to_binding(func).items()}


def udchain(dfb):
    """{var: [vars of the bindings of ``dfb`` whose value uses it]}: every var
    defined or used in the dataflow block ``dfb`` is a key."""
    if not isinstance(dfb, DataflowBlock):
        raise TVMTypeError(f"relax.analysis.udchain expects a relax DataflowBlock, got {type(dfb).__name__}")
    return {var: list(users) for var, users in _ffi_api.udchain(dfb).items()}


def post_order_visit(expr, fvisit):
    """Calls ``fvisit`` on every sub-expression of ``expr``, children first."""
    if not isinstance(expr, RelaxExpr):
        raise TVMTypeError(f"relax.analysis.post_order_visit expects a relax expression, got {type(expr).__name__}")
    if not callable(fvisit):
        raise TVMTypeError(f"relax.analysis.post_order_visit: fvisit must be callable, got {type(fvisit).__name__}")
    _ffi_api.post_order_visit(expr, fvisit)


def computable_at_compile_time(func):
    """The vars of ``func`` whose values depend only on constants and on the
    parameters past its "num_input" attribute, in binding order."""
    if not isinstance(func, Function):
        raise TVMTypeError(f"relax.analysis.computable_at_compile_time expects a relax Function, "
                        f"got {type(func).__name__}")
    return list(_ffi_api.computable_at_compile_time(func))


__all__ = ["get_var2val", "name_to_binding", "udchain", "post_order_visit", "computable_at_compile_time"]
