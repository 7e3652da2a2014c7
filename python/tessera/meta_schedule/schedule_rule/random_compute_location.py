"""RandomComputeLocation (C++: src/meta_schedule/schedule_rule/random_compute_location.cc):
moves an untiled block under the root to a sampled compute-at location."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule


@register_object("meta_schedule.RandomComputeLocation")
class RandomComputeLocation(ScheduleRule):
    """TVM's signature: ``RandomComputeLocation()``."""

    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.ScheduleRuleRandomComputeLocation)
