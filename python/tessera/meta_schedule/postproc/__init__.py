"""Postprocessors (``tvm.meta_schedule.postproc``), C++ objects with TVM's constructors;
``Postproc.create("llvm")`` gives the default CPU set."""
from .postproc import Postproc, PyPostproc, create
from .rewrite_parallel_vectorize_unroll import RewriteParallelVectorizeUnroll
from .rewrite_reduction_block import RewriteReductionBlock

__all__ = ["Postproc", "PyPostproc", "RewriteParallelVectorizeUnroll", "RewriteReductionBlock", "create"]
