"""``tvm.build``: compiles PrimFuncs / IRModules into a runtime Module;
``tvm.lower``: the module after the TIR lowering pipeline."""
from ._ffi.registry import get_global_func
from .ir.module import IRModule
from .target import Target, default_host
from .tir.function import PrimFunc
from .error import OpNotImplemented, TVMTypeError


def _as_module(inputs, name, what):
    if isinstance(inputs, PrimFunc):
        func = inputs
        if name is not None and "global_symbol" not in func.attrs:
            func = func.with_attr("global_symbol", name)
        return IRModule.from_expr(func)
    if isinstance(inputs, IRModule):
        return inputs
    raise TVMTypeError(f"{what} expects an IRModule or a PrimFunc, got {type(inputs).__name__}")


def lower(inp, args=None, name="main", binds=None, simple_mode=False):
    """Runs the default TIR pipeline (``tvm.tir.get_default_tir_pipeline()``)
    on ``inp`` (an IRModule or a PrimFunc) under the current PassContext and
    returns the lowered IRModule. ``simple_mode`` skips LoopPartition and
    UnrollLoop, as TVM's. ``args``/``binds`` (for TE schedules) are not supported."""
    if args is not None or binds is not None:
        raise OpNotImplemented("tvm.lower: args/binds (TE schedules) are not supported; pass an IRModule or PrimFunc")
    from .tir.pipeline import get_default_tir_pipeline  # pylint: disable=import-outside-toplevel
    from .ir.transform import Sequential  # pylint: disable=import-outside-toplevel

    mod = _as_module(inp, name, "tvm.lower")
    pipeline = get_default_tir_pipeline()
    if simple_mode:
        kept = [p for p in pipeline.passes if p.info.name not in ("LoopPartition", "UnrollLoop")]
        pipeline = Sequential(kept, name=pipeline.info.name)
    return pipeline(mod)


def build(inputs, target=None, target_host=None, name=None, **kwargs):
    """Compiles ``inputs`` (an IRModule or a PrimFunc) for ``target``
    (the host target, "llvm" by default) and returns a runtime Module. The backend is chosen
    by the target's kind ("target.build.<kind>"). For CPU targets the host is
    the target itself, so ``target_host`` must be absent or the same target
    (ValueError otherwise); TVM's ``args``, ``runtime`` and ``binds`` are
    accepted only as None."""
    for key, value in kwargs.items():
        if key not in ("args", "runtime", "binds"):
            raise TVMTypeError(f"tvm.build() got an unexpected keyword argument {key!r}")
        if value is not None:
            raise OpNotImplemented(f"tvm.build({key}=...) is not supported (it applies to TE inputs and "
                                      "custom runtimes); pass an IRModule or a PrimFunc")
    if isinstance(inputs, dict):
        raise OpNotImplemented("building a {target: module} dict is not supported; build each module separately")
    mod = _as_module(inputs, name, "tvm.build")
    target = Target(target if target is not None else default_host(), host=target_host)
    return get_global_func("codegen.Build")(mod, target)


__all__ = ["build", "lower"]
