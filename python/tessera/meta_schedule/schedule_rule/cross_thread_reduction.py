"""CrossThreadReduction (C++: src/meta_schedule/schedule_rule/cross_thread_reduction.cc): long
reductions on a GPU shared by the threads of a block (threadIdx.x), lowered to warp shuffles."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule


@register_object("meta_schedule.CrossThreadReduction")
class CrossThreadReduction(ScheduleRule):
    """TVM's signature: ``CrossThreadReduction(thread_extents)``, the candidate thread counts."""

    def __init__(self, thread_extents):
        self.__init_handle_by_constructor__(_ffi_api.ScheduleRuleCrossThreadReduction,
                                            [int(t) for t in thread_extents])
