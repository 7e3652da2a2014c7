"""TVM's GPU schedule rules Tessera does not have yet, by name: constructing one raises
NotImplementedError saying what is missing (instead of an AttributeError), so TVM code
that lists them fails at the line that names them."""
from ...error import OpNotImplemented


class MultiLevelTilingTensorCore:
    """TVM's ``MultiLevelTilingTensorCore(...)``: not in Tessera (no auto-tensorization)."""

    def __init__(self, *args, **kwargs):
        raise OpNotImplemented("ms.schedule_rule.MultiLevelTilingTensorCore is not supported: Tessera's tuner does "
                               "not tensorize; schedule tensor-core kernels by hand with sch.tensorize")
