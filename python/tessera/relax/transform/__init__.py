"""``tvm.relax.transform``: Relax passes. Here: the pass wrappers
(function_pass, dataflow_block_pass) and the core passes Normalize and
BindParams; each is a C++ pass mixing with others in a Sequential."""
from .function_pass import FunctionPass, DataflowBlockPass, function_pass, dataflow_block_pass
from .core import Normalize, BindParams

__all__ = ["FunctionPass", "DataflowBlockPass", "function_pass", "dataflow_block_pass", "Normalize", "BindParams"]
