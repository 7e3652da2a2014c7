"""Postproc (``tvm.meta_schedule.postproc.Postproc``): applied to every sampled candidate
before it is measured; ``apply(sch)`` rewrites the schedule and returns False when the
candidate must be discarded. C++ objects (src/meta_schedule/postproc/); PyPostproc is the
base of postprocessors written in Python."""
import copy

from ...runtime import Object
from ..._ffi.registry import register_object
from .. import _ffi_api
from ..schedule_rule.schedule_rule import _target_of
from ...error import OpNotImplemented, TVMValueError


@register_object("meta_schedule.Postproc")
class Postproc(Object):
    """A postprocessor (C++). ``apply(sch)`` -> bool."""

    def _initialize_with_tune_context(self, context):
        _ffi_api.PostprocInitializeWithTarget(self, _target_of(context))

    def apply(self, sch):
        return bool(_ffi_api.PostprocApply(self, sch))

    def clone(self):
        return _ffi_api.PostprocClone(self)

    @staticmethod
    def create(kind):
        """The default postprocessors for the target kind ``kind``, by its family (the kind
        attribute "meta_schedule.default_postprocs"): "cpu" for llvm and c (TVM's order:
        DisallowDynamicLoop, RewriteParallelVectorizeUnroll, RewriteReductionBlock), "gpu"
        for cuda (TVM's order: DisallowDynamicLoop, RewriteCooperativeFetch,
        RewriteUnboundBlock, RewriteParallelVectorizeUnroll, RewriteReductionBlock,
        VerifyGPUCode)."""
        from .disallow_dynamic_loop import DisallowDynamicLoop
        from .rewrite_cooperative_fetch import RewriteCooperativeFetch
        from .rewrite_parallel_vectorize_unroll import RewriteParallelVectorizeUnroll
        from .rewrite_reduction_block import RewriteReductionBlock
        from .rewrite_unbound_block import RewriteUnboundBlock
        from .verify_gpu_code import VerifyGPUCode
        from ...target import kind_family  # pylint: disable=import-outside-toplevel
        families = {"cpu": lambda: [DisallowDynamicLoop()] + list(_ffi_api.PostprocDefaultLLVM()),
                    "gpu": lambda: [DisallowDynamicLoop(), RewriteCooperativeFetch(), RewriteUnboundBlock(),
                                    RewriteParallelVectorizeUnroll(), RewriteReductionBlock(), VerifyGPUCode()]}
        # "cuda-tensorcore" (TVM's name): the GPU set (MultiLevelTilingTensorCore tensorizes in the rule itself, so
        # no RewriteTensorize)
        family, known = ("gpu", None) if kind == "cuda-tensorcore" else kind_family(kind, "meta_schedule.default_postprocs")
        if family not in families:
            raise TVMValueError(f"Unsupported kind {kind} for postproc creation (Tessera has: {known})")
        return families[family]()


create = Postproc.create


class PyPostproc:
    """Base of postprocessors written in Python: override ``apply(sch) -> bool``."""

    def _initialize_with_tune_context(self, context):
        pass

    def apply(self, sch):
        raise OpNotImplemented(f"{type(self).__name__}.apply is not implemented")

    def clone(self):
        return copy.copy(self)

    def __repr__(self):
        return f"meta_schedule.{type(self).__name__}"


__all__ = ["Postproc", "PyPostproc", "create"]
