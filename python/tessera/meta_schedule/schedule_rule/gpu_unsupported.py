"""TVM's GPU schedule rules Tessera does not have yet, by name: constructing one raises
NotImplementedError saying what is missing (instead of an AttributeError), so TVM code
that lists them fails at the line that names them."""
from ...error import OpNotImplemented


class CrossThreadReduction:
    """TVM's ``CrossThreadReduction(thread_extents)``: not in Tessera (its CUDA backend does
    not lower cross-thread reductions, tvm_thread_allreduce, yet)."""

    def __init__(self, thread_extents=None):
        raise OpNotImplemented("ms.schedule_rule.CrossThreadReduction is not supported: Tessera's CUDA backend does "
                               "not lower cross-thread reductions (tvm_thread_allreduce) yet; leave the rule out "
                               "(ScheduleRule.create(\"cuda\") has the supported GPU rules)")


class MultiLevelTilingTensorCore:
    """TVM's ``MultiLevelTilingTensorCore(...)``: not in Tessera (no auto-tensorization)."""

    def __init__(self, *args, **kwargs):
        raise OpNotImplemented("ms.schedule_rule.MultiLevelTilingTensorCore is not supported: Tessera's tuner does "
                               "not tensorize; schedule tensor-core kernels by hand with sch.tensorize")
