"""ParallelizeVectorizeUnroll (C++: src/meta_schedule/schedule_rule/parallel_vectorize_unroll.cc):
annotates the root block with meta_schedule.parallel / vectorize / unroll_explicit, which
the RewriteParallelVectorizeUnroll postprocessor realizes."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule


@register_object("meta_schedule.ParallelizeVectorizeUnroll")
class ParallelizeVectorizeUnroll(ScheduleRule):
    """TVM's signature: ``ParallelizeVectorizeUnroll(max_jobs_per_core=16, max_vectorize_extent=16,
    unroll_max_steps=None, unroll_explicit=True)``; -1 / None disable a part."""

    def __init__(self, max_jobs_per_core=16, max_vectorize_extent=16, unroll_max_steps=None, unroll_explicit=True):
        if unroll_max_steps is None:
            unroll_max_steps = []
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleParallelizeVectorizeUnroll, int(max_jobs_per_core), int(max_vectorize_extent),
            [int(x) for x in unroll_max_steps], bool(unroll_explicit))
