"""Schedule rules (``tvm.meta_schedule.schedule_rule``), C++ objects with TVM's
constructors; ``ScheduleRule.create("llvm")`` gives the default CPU set, ``create("cuda")``
the GPU set."""
from .add_rfactor import AddRFactor
from .auto_bind import AutoBind
from .auto_inline import AutoInline
from .cross_thread_reduction import CrossThreadReduction
from .multi_level_tiling import MultiLevelTiling, MultiLevelTilingPackedPanel, ReuseType
from .multi_level_tiling_tensor_core import MultiLevelTilingTensorCore
from .parallel_vectorize_unroll import ParallelizeVectorizeUnroll
from .random_compute_location import RandomComputeLocation
from .schedule_rule import PyScheduleRule, ScheduleRule, create

__all__ = ["AddRFactor", "AutoBind", "AutoInline", "CrossThreadReduction", "MultiLevelTiling",
           "MultiLevelTilingPackedPanel", "MultiLevelTilingTensorCore", "ParallelizeVectorizeUnroll",
           "PyScheduleRule", "RandomComputeLocation", "ReuseType", "ScheduleRule", "create"]
