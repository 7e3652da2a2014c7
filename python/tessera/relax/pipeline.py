"""Relax pipelines (``tvm.relax.get_pipeline``): named Sequentials of passes.
The built-in ones, "default_build" (what ``relax.build`` runs before VM code
generation) and "zero", are defined once in C++ (src/relax/transform/
pipeline.cc); ``register_pipeline`` adds Python ones, as in TVM."""
from .._ffi.registry import get_global_func
from ..error import TVMTypeError, TVMValueError

_REGISTERED = {}


def default_build_pipeline(target=None):
    """The Sequential "relax.build_pipeline": FoldBatchnormToConv2d (inference
    batch_norm after a constant-weight conv2d folded into it), LegalizeOps, AnnotateTIROpPattern,
    FoldConstant, FuseOps, FuseTIR, DefaultCPUSchedule (untuned PrimFuncs get
    parallel and vectorized loops for ``target``; not in TVM, see
    docs/pipeline.md), DeadCodeElimination, then the lowering passes Normalize,
    ToNonDataflow, RemovePurityChecking, CallTIRRewrite, StaticPlanBlockMemory,
    LowerAllocTensor, VMBuiltinLower, VMShapeLower, AttachGlobalSymbol.
    ``target``: the CPU target the schedules are made for (relax.build passes
    its own; None: each function's, else the host). Any step is left out with
    ``PassContext(disabled_pass=[name])``."""
    if target is not None:
        from ..target import Target  # pylint: disable=import-outside-toplevel

        target = target if isinstance(target, Target) else Target(target)
    return get_global_func("relax.GetPipeline")("default_build", target, None)


def zero_pipeline(*, enable_warning=False):
    """TVM's "zero" pipeline: LegalizeOps, AnnotateTIROpPattern, FoldConstant,
    FuseOps, FuseTIR. ``enable_warning``: its LegalizeOps names on stderr each
    op left without a legalization (such ops stay unchanged either way)."""
    if not isinstance(enable_warning, bool):
        raise TVMTypeError(f"zero_pipeline: enable_warning must be a bool, got {type(enable_warning).__name__}")
    return get_global_func("relax.GetPipeline")("zero", None, enable_warning)


def register_pipeline(name):
    """Decorator registering ``func(**kwargs) -> Pass`` as the pipeline ``name``
    of ``get_pipeline``; a name already taken raises ValueError."""
    if not isinstance(name, str):
        raise TVMTypeError(f"register_pipeline: name must be a str, got {type(name).__name__}")
    if name in _OPTIONS or name in _REGISTERED:
        raise TVMValueError(f"relax pipeline {name!r} is already registered")

    def register(func):
        _REGISTERED[name] = func
        return func

    return register


_OPTIONS = {"default_build": ({"target"}, default_build_pipeline), "zero": ({"enable_warning"}, zero_pipeline)}


def get_pipeline(name="default_build", **kwargs):
    """The pipeline ``name`` ("default_build", the default here, which is what
    relax.build runs; TVM's default is "zero"); keyword arguments go to the
    pipeline's function, as TVM's (``default_build`` takes ``target``,
    ``zero`` ``enable_warning``)."""
    if not isinstance(name, str):
        raise TVMTypeError(f"get_pipeline: name must be a str, got {type(name).__name__}")
    if name in _REGISTERED:
        return _REGISTERED[name](**kwargs)
    if name not in _OPTIONS:
        raise TVMValueError(f"unknown relax pipeline {name!r}; known: {sorted(set(_OPTIONS) | set(_REGISTERED))}")
    allowed, func = _OPTIONS[name]
    if set(kwargs) - allowed:
        raise TVMTypeError(f"get_pipeline({name!r}) takes only {sorted(allowed)}, got {sorted(kwargs)}")
    return func(**kwargs)


__all__ = ["get_pipeline", "register_pipeline", "default_build_pipeline", "zero_pipeline"]
