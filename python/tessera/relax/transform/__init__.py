"""``tvm.relax.transform``: Relax passes. Here: the pass wrappers
(function_pass, dataflow_block_pass), the core passes Normalize and
BindParams, the graph rewrites (optimization.py: EliminateCommonSubexpr,
FoldConstant, CanonicalizeBindings, ...) and the lowering passes of
relax.build (lowering.py); each is a C++ pass mixing with others in a Sequential."""
from .function_pass import FunctionPass, DataflowBlockPass, function_pass, dataflow_block_pass
from .core import Normalize, BindParams
from .legalize_ops import LegalizeOps
from .fusion import AnnotateTIROpPattern, FuseOps, FuseTIR
from .fuse_ops_by_pattern import FuseOpsByPattern, FusionPattern, PatternCheckContext
from .meta_schedule import MetaScheduleApplyDatabase, MetaScheduleTuneIRMod, MetaScheduleTuneTIR
from .optimization import *  # noqa: F401,F403
from .optimization import __all__ as _optimization_all
from .lowering import *  # noqa: F401,F403
from .lowering import __all__ as _lowering_all
from .decompose_ops import DecomposeOpsForInference
from .convert_layout import ConvertLayout

__all__ = ["LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR", "FuseOpsByPattern", "FusionPattern", "PatternCheckContext", "MetaScheduleApplyDatabase", "MetaScheduleTuneIRMod", "MetaScheduleTuneTIR", "FunctionPass", "DataflowBlockPass", "function_pass", "dataflow_block_pass", "Normalize",
           "BindParams", "DecomposeOpsForInference", "ConvertLayout"] + list(_optimization_all) + list(_lowering_all)
