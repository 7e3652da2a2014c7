"""DisallowDynamicLoop: rejects a candidate with a loop whose extent is not a constant."""
from ..._ffi.registry import get_global_func
from ...tir.schedule import Schedule
from .postproc import PyPostproc
from ...error import TVMTypeError


class DisallowDynamicLoop(PyPostproc):
    """``apply(sch)`` is False when some loop of ``sch.mod`` has a non-constant extent
    (``last_error`` then names the loop)."""

    def __init__(self):
        self.last_error = ""

    def apply(self, sch):
        if not isinstance(sch, Schedule):
            raise TVMTypeError(f"DisallowDynamicLoop.apply expects a tir.Schedule, got {type(sch).__name__}")
        ok, why = get_global_func("meta_schedule.PostprocDisallowDynamicLoopCheck")(sch.mod)
        self.last_error = str(why)
        return bool(ok)
