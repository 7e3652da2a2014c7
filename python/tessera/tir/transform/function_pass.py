"""PrimFunc passes (``tvm.tir.transform.prim_func_pass``, ``PrimFuncPass``):
a function or a class with ``transform_function(self, func, mod, ctx)``
applied to every PrimFunc of a module (returning None removes the function)."""
from ..._ffi.registry import register_object
from ...ir.transform import Pass, make_pass_decorator
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
    return make_pass_decorator("tvm.tir.transform.prim_func_pass", "transform_function", PrimFuncPass,
                               _ffi_api.CreatePrimFuncPass, pass_func, opt_level, name, required, traceable)


__all__ = ["PrimFuncPass", "prim_func_pass"]
