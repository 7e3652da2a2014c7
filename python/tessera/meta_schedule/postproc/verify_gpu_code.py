"""VerifyGPUCode: rejects a candidate whose GPU kernels exceed the target's limits
(threads per block, shared memory per block, virtual threads, vector bytes)."""
from ..._ffi.registry import get_global_func
from ...tir.schedule import Schedule
from .postproc import PyPostproc
from ...error import TVMTypeError, TVMValueError


class VerifyGPUCode(PyPostproc):
    """Needs a GPU target (from ``_initialize_with_tune_context``); ``apply(sch)`` is
    False when a kernel of ``sch.mod`` exceeds its limits (``last_error`` says which)."""

    def __init__(self):
        self.target = None
        self.last_error = ""

    def _initialize_with_tune_context(self, context):
        from ... import target as _target
        target = context.target
        if isinstance(target, str):
            target = _target.Target(target)
        if target is None or "gpu" not in list(target.keys):
            raise TVMValueError(f"VerifyGPUCode needs a GPU target (keys include 'gpu'), got {target}")
        self.target = target

    def apply(self, sch):
        if not isinstance(sch, Schedule):
            raise TVMTypeError(f"VerifyGPUCode.apply expects a tir.Schedule, got {type(sch).__name__}")
        if self.target is None:
            raise TVMValueError("VerifyGPUCode: call _initialize_with_tune_context(context) with a GPU target first")
        ok, why = get_global_func("meta_schedule.PostprocVerifyGPUCodeCheck")(sch.mod, self.target)
        self.last_error = str(why)
        return bool(ok)
