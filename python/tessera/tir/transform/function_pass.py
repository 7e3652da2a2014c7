"""PrimFunc passes (``tvm.tir.transform.prim_func_pass``, ``PrimFuncPass``):
a function or a class with ``transform_function(self, func, mod, ctx)``
applied to every PrimFunc of a module (returning None removes the function)."""
import inspect

from ..._ffi.registry import register_object
from ...ir.transform import Pass, PassInfo, _name_list, _wrap_class_pass
from . import _ffi_api


@register_object("tir.PrimFuncPass")
class PrimFuncPass(Pass):
    """A pass applied to each PrimFunc of a module (see :func:`prim_func_pass`)."""


def prim_func_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Makes a PrimFunc pass of a function ``f(func, mod, ctx) -> PrimFunc``
    or of a class with ``transform_function(self, func, mod, ctx)``.

    As TVM: ``opt_level`` is required; usable as ``prim_func_pass(f, opt_level=0)``
    or as a decorator ``@prim_func_pass(opt_level=0)``.
    """
    if opt_level is None:
        raise ValueError("prim_func_pass: please provide opt_level, e.g. @tvm.tir.transform.prim_func_pass(opt_level=0)")
    required = _name_list(required, "prim_func_pass required")
    if traceable:
        raise NotImplementedError("prim_func_pass(traceable=True): pass tracing is not supported")

    def create_function_pass(pass_arg):
        fname = name if name else getattr(pass_arg, "__name__", None)
        if not fname:
            raise TypeError("prim_func_pass: give the pass a name (name=...)")
        info = PassInfo(opt_level, fname, required)
        if inspect.isclass(pass_arg):
            return _wrap_class_pass(
                pass_arg, "transform_function", PrimFuncPass,
                lambda self, method: self.__init_handle_by_constructor__(_ffi_api.CreatePrimFuncPass, method, info))
        if not callable(pass_arg):
            raise TypeError(f"prim_func_pass expects a function or a class, got {type(pass_arg).__name__}")
        return _ffi_api.CreatePrimFuncPass(pass_arg, info)

    if pass_func:
        return create_function_pass(pass_func)
    return create_function_pass


__all__ = ["PrimFuncPass", "prim_func_pass"]
