"""AddRFactor (C++: src/meta_schedule/schedule_rule/add_rfactor.cc): rfactor for reductions
with little spatial parallelism."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule


@register_object("meta_schedule.AddRFactor")
class AddRFactor(ScheduleRule):
    """TVM's signature: ``AddRFactor(max_jobs_per_core=16, max_innermost_factor=None)``."""

    def __init__(self, max_jobs_per_core=16, max_innermost_factor=None):
        self.__init_handle_by_constructor__(_ffi_api.ScheduleRuleAddRFactor, int(max_jobs_per_core),
                                            None if max_innermost_factor is None else int(max_innermost_factor))
