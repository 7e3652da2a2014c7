"""``tvm.build``: compiles PrimFuncs / IRModules into a runtime Module."""
from ._ffi.registry import get_global_func
from .ir.module import IRModule
from .target import Target
from .tir.function import PrimFunc


def build(inputs, target=None, target_host=None, name=None, **kwargs):
    """Compiles ``inputs`` (an IRModule or a PrimFunc) for ``target``
    ("llvm" by default) and returns a runtime Module. The backend is chosen
    by the target's kind ("target.build.<kind>"). For CPU targets the host is
    the target itself, so ``target_host`` must be absent or the same target."""
    if kwargs:
        raise TypeError(f"tvm.build got unsupported keyword arguments: {', '.join(sorted(kwargs))}")
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
    target = Target(target if target is not None else "llvm", host=target_host)
    return get_global_func("codegen.Build")(mod, target)


__all__ = ["build"]
