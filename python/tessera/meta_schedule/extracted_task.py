"""ExtractedTask (``tvm.meta_schedule.ExtractedTask``): one tuning task found in a Relax
model by relax_integration.extract_tasks -- the PrimFunc to tune as an IRModule whose
"main" it is, the target, the modules it dispatches to and its weight (call sites)."""
from .. import ir as _ir
from .. import target as _target
from ..error import TVMTypeError, TVMValueError


class ExtractedTask:
    """``task_name`` (the first PrimFunc's name), ``mod`` (IRModule with the PrimFunc as
    "main"), ``target``, ``dispatched`` (list of IRModules; here ``[mod]``) and
    ``weight`` (how many call_tir sites in the model call a structurally equal PrimFunc)."""

    def __init__(self, task_name, mod, target, dispatched, weight):
        if not isinstance(task_name, str):
            raise TVMTypeError(f"ExtractedTask(task_name=...) must be a str, got {type(task_name).__name__}")
        if not isinstance(mod, _ir.IRModule):
            raise TVMTypeError(f"ExtractedTask(mod=...) must be an IRModule, got {type(mod).__name__}")
        if int(weight) < 1:
            raise TVMValueError(f"ExtractedTask(weight={weight}) must be at least 1")
        self.task_name = task_name
        self.mod = mod
        self.target = target if isinstance(target, _target.Target) else _target.Target(target)
        self.dispatched = list(dispatched)
        self.weight = int(weight)

    def __repr__(self):
        return f"ExtractedTask(task_name={self.task_name!r}, weight={self.weight}, target={str(self.target)!r})"


__all__ = ["ExtractedTask"]
