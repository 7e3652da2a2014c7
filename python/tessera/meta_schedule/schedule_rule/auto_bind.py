"""AutoBind (C++: src/meta_schedule/schedule_rule/auto_bind.cc): binds the top-level blocks
no thread binding covers to blockIdx.x x threadIdx.x (GPU targets)."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule


@register_object("meta_schedule.AutoBind")
class AutoBind(ScheduleRule):
    """TVM's signature: ``AutoBind(max_threadblocks=256, thread_extents=None)``; the thread count
    is sampled from ``thread_extents`` (default [32, 64, 128, 256, 512, 1024])."""

    def __init__(self, max_threadblocks=256, thread_extents=None):
        if thread_extents is None:
            thread_extents = [32, 64, 128, 256, 512, 1024]
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleAutoBind, int(max_threadblocks), [int(t) for t in thread_extents])
