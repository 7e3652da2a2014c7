"""Relax pipelines (``tvm.relax.get_pipeline``): the named Sequential of passes
that ``relax.build`` runs on a module before VM code generation."""
from .._ffi.registry import get_global_func


def default_build_pipeline():
    """The Sequential ``relax.build_pipeline``: LegalizeOps, then the lowering passes
    Normalize, ToNonDataflow, RemovePurityChecking, CallTIRRewrite, StaticPlanBlockMemory,
    LowerAllocTensor, VMBuiltinLower, VMShapeLower, AttachGlobalSymbol."""
    from ..ir.transform import Sequential  # pylint: disable=import-outside-toplevel
    from .transform.legalize_ops import LegalizeOps  # pylint: disable=import-outside-toplevel
    lowering = get_global_func("relax.transform.DefaultBuildPipeline")()
    return Sequential([LegalizeOps()] + list(lowering.passes), name="relax.build_pipeline")


_PIPELINES = {"default_build": default_build_pipeline}
# TVM's other pipelines need passes Tessera does not have yet.
_MISSING = {"zero": "AnnotateTIROpPattern, FoldConstant, FuseOps and FuseTIR (LegalizeOps it has)"}


def get_pipeline(name="default_build", **kwargs):
    """The pipeline ``name`` (``"default_build"``, the default here: TVM's default
    ``"zero"`` needs passes not implemented yet)."""
    if not isinstance(name, str):
        raise TypeError(f"get_pipeline: name must be a str, got {type(name).__name__}")
    if kwargs:
        raise TypeError(f"get_pipeline({name!r}) takes no options, got {sorted(kwargs)}")
    if name in _MISSING:
        raise NotImplementedError(f"relax pipeline {name!r} needs {_MISSING[name]}, not implemented yet")
    if name not in _PIPELINES:
        raise ValueError(f"unknown relax pipeline {name!r}; known: {sorted(_PIPELINES)}")
    return _PIPELINES[name]()


__all__ = ["get_pipeline", "default_build_pipeline"]
