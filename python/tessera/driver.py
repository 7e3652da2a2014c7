"""``tvm.build``: compiles PrimFuncs / IRModules into a runtime Module."""
from ._ffi.registry import get_global_func
from .ir.module import IRModule
from .target import Target
from .tir.function import PrimFunc


def build(inputs, target=None, target_host=None, name=None, **kwargs):
    """Compiles ``inputs`` (an IRModule or a PrimFunc) for ``target``
    ("llvm" by default) and returns a runtime Module. ``target_host`` may only
    name the target itself (CPU code is its own host); TVM's ``args``,
    ``runtime`` and ``binds`` are accepted only as None."""
    for key, value in kwargs.items():
        if key not in ("args", "runtime", "binds"):
            raise TypeError(f"tvm.build() got an unexpected keyword argument {key!r}")
        if value is not None:
            raise NotImplementedError(f"tvm.build({key}=...) is not supported (it applies to TE inputs and "
                                      "custom runtimes); pass an IRModule or a PrimFunc")
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
    if target_host is not None and str(Target(target_host)) != str(target):
        raise NotImplementedError(f"tvm.build(target_host={str(target_host)!r}) differs from the target "
                                  f"{str(target)!r}; Tessera compiles host code for the target itself")
    return get_global_func("codegen.Build")(mod, target)


__all__ = ["build"]
