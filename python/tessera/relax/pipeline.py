"""Relax pipelines (``tvm.relax.get_pipeline``): the named Sequential of passes
that ``relax.build`` runs on a module before VM code generation."""
from .._ffi.registry import get_global_func
from ..error import OpNotImplemented, TVMTypeError, TVMValueError


def default_build_pipeline(target=None):
    """The Sequential ``relax.build_pipeline``: FoldBatchnormToConv2d (inference
    batch_norm after a constant-weight conv2d folded into it), LegalizeOps, AnnotateTIROpPattern,
    FoldConstant (kernels whose inputs are all constants, such as the weight
    transposes BindParams exposes, run at build time), the operator fusion
    FuseOps, FuseTIR (matmul/conv with their elementwise
    epilogues, injective chains: one PrimFunc each), DefaultCPUSchedule
    (``tvm.tir.transform.DefaultCPUSchedule(target)``: untuned PrimFuncs get
    parallel and vectorized loops; not in TVM, see docs/pipeline.md; leave it out
    with ``PassContext(disabled_pass=["DefaultCPUSchedule"])``), then the lowering
    passes Normalize, ToNonDataflow, RemovePurityChecking, CallTIRRewrite,
    StaticPlanBlockMemory, LowerAllocTensor, VMBuiltinLower, VMShapeLower,
    AttachGlobalSymbol. ``target``: the CPU target the schedules are made for
    (relax.build passes its own; None: the host)."""
    from ..ir.transform import Sequential  # pylint: disable=import-outside-toplevel
    from ..tir.transform import DefaultCPUSchedule  # pylint: disable=import-outside-toplevel
    from .transform.legalize_ops import LegalizeOps  # pylint: disable=import-outside-toplevel
    from .transform.fusion import AnnotateTIROpPattern, FuseOps, FuseTIR  # pylint: disable=import-outside-toplevel
    from .transform.optimization import FoldBatchnormToConv2d, FoldConstant  # pylint: disable=import-outside-toplevel
    lowering = get_global_func("relax.transform.DefaultBuildPipeline")()
    return Sequential([FoldBatchnormToConv2d(), LegalizeOps(), AnnotateTIROpPattern(), FoldConstant(), FuseOps(), FuseTIR(),
                       DefaultCPUSchedule(target)]
                      + list(lowering.passes), name="relax.build_pipeline")


_PIPELINES = {"default_build": default_build_pipeline}
# TVM's other pipelines need passes Tessera does not have yet.
_MISSING = {"zero": "AnnotateTIROpPattern, FoldConstant, FuseOps and FuseTIR (LegalizeOps it has)"}


def get_pipeline(name="default_build", **kwargs):
    """The pipeline ``name`` (``"default_build"``, the default here: TVM's default
    ``"zero"`` needs passes not implemented yet); keyword arguments go to the
    pipeline's function, as TVM's (``default_build`` takes ``target``)."""
    if not isinstance(name, str):
        raise TVMTypeError(f"get_pipeline: name must be a str, got {type(name).__name__}")
    if kwargs and (name != "default_build" or set(kwargs) != {"target"}):
        raise TVMTypeError(f"get_pipeline({name!r}) takes no options other than default_build's target, "
                           f"got {sorted(kwargs)}")
    if name in _MISSING:
        raise OpNotImplemented(f"relax pipeline {name!r} needs {_MISSING[name]}, not implemented yet")
    if name not in _PIPELINES:
        raise TVMValueError(f"unknown relax pipeline {name!r}; known: {sorted(_PIPELINES)}")
    return _PIPELINES[name](**kwargs)


__all__ = ["get_pipeline", "default_build_pipeline"]
