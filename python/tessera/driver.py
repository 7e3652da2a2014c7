"""``tvm.build``: compiles PrimFuncs / IRModules into a runtime Module."""
from ._ffi.registry import get_global_func
from .ir.module import IRModule
from .target import Target
from .tir.function import PrimFunc


def build(inputs, target=None, target_host=None, name=None, **kwargs):  # pylint: disable=unused-argument
    """Compiles ``inputs`` (an IRModule or a PrimFunc) for ``target``
    ("llvm" by default) and returns a runtime Module."""
    if isinstance(inputs, PrimFunc):
        func = inputs
        if name is not None and "global_symbol" not in func.attrs:
            func = func.with_attr("global_symbol", name)
        mod = IRModule.from_expr(func)
    elif isinstance(inputs, IRModule):
        mod = inputs
    elif isinstance(inputs, dict):
        raise NotImplementedError("building a {target: module} dict is not supported; build each module separately")
    else:
        raise TypeError(f"tvm.build expects an IRModule or a PrimFunc, got {type(inputs).__name__}")
    target = Target(target if target is not None else "llvm")
    return get_global_func("codegen.Build")(mod, target)


__all__ = ["build"]
