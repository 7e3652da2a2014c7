"""Helpers shared by the Relax frontends: ``detach_params`` moves the
"params" attribute (a list of NDArrays, one per weight input, set by an
importer run with ``keep_params_as_input=True``) out of each function of a
module, as TVM's ``relax.frontend.detach_params``."""
from ...ir.module import IRModule
from ...runtime.ndarray import NDArray
from ...error import TVMTypeError, TVMValueError


def detach_params(mod):
    """Returns ``(detached_mod, params)``: ``detached_mod`` is ``mod`` with the
    "params" attribute removed from its functions, ``params`` maps the name of
    each function that had one to its list of NDArrays (in the order of the
    function's weight parameters, which follow its ``num_input`` inputs)."""
    if not isinstance(mod, IRModule):
        raise TVMTypeError(f"detach_params: expected an IRModule, got {type(mod).__name__}")
    detached = IRModule(attrs=mod.attrs)
    params = {}
    for gvar, func in mod.functions_items():
        if "params" in func.attrs:
            values = list(func.attrs["params"])
            for i, value in enumerate(values):
                if not isinstance(value, NDArray):
                    raise TVMValueError(f"detach_params: function {gvar.name_hint!r}: its \"params\" attribute must "
                                        f"be a list of NDArrays, element {i} is a {type(value).__name__}")
            params[gvar.name_hint] = values
            func = func.without_attr("params")
        detached[gvar] = func
    return detached, params


__all__ = ["detach_params"]
