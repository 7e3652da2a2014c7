"""Relax pass wrappers (``tvm.relax.transform.function_pass``,
``dataflow_block_pass``, ``FunctionPass``, ``DataflowBlockPass``): a
function (or a class with ``transform_function`` / ``transform_dataflowblock``)
applied to every relax Function / DataflowBlock of a module; the results are
normalized. C++: src/relax/transform/function_pass.h."""
from ..._ffi.registry import register_object
from ...ir.transform import Pass, make_pass_decorator
from . import _ffi_api


@register_object("relax.FunctionPass")
class FunctionPass(Pass):
    """A pass applied to each relax Function of a module (see :func:`function_pass`)."""


@register_object("relax.DataflowBlockPass")
class DataflowBlockPass(Pass):
    """A pass applied to each DataflowBlock of each relax Function (see :func:`dataflow_block_pass`)."""


def function_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Makes a pass of ``f(func, mod, ctx) -> relax.Function`` or of a class
    with ``transform_function(self, func, mod, ctx)``; as TVM, ``opt_level``
    is required and it works as ``@function_pass(opt_level=0)``."""
    return make_pass_decorator("tvm.relax.transform.function_pass", "transform_function", FunctionPass,
                               _ffi_api.MakeFunctionPass, pass_func, opt_level, name, required, traceable)


def dataflow_block_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Makes a pass of ``f(block, mod, ctx) -> relax.DataflowBlock`` or of a
    class with ``transform_dataflowblock(self, block, mod, ctx)``. A block's
    output (non-dataflow) vars must come back unchanged."""
    return make_pass_decorator("tvm.relax.transform.dataflow_block_pass", "transform_dataflowblock",
                               DataflowBlockPass, _ffi_api.MakeDataflowBlockPass, pass_func, opt_level, name,
                               required, traceable)


__all__ = ["FunctionPass", "DataflowBlockPass", "function_pass", "dataflow_block_pass"]
