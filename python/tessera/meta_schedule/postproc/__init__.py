"""Postprocessors (``tvm.meta_schedule.postproc``) with TVM's constructors, applied to every
candidate before it is measured (a rejected candidate is dropped): C++ rewriting
postprocessors, and the checks DisallowDynamicLoop / VerifyGPUCode (PyPostprocs over C++
checks). ``Postproc.create("llvm")`` gives the default CPU set, ``create("cuda")`` the GPU set."""
from .postproc import Postproc, PyPostproc, create
from .disallow_dynamic_loop import DisallowDynamicLoop
from .rewrite_cooperative_fetch import RewriteCooperativeFetch
from .rewrite_parallel_vectorize_unroll import RewriteParallelVectorizeUnroll
from .rewrite_reduction_block import RewriteReductionBlock
from .rewrite_unbound_block import RewriteUnboundBlock
from .verify_gpu_code import VerifyGPUCode

__all__ = ["DisallowDynamicLoop", "Postproc", "PyPostproc", "RewriteCooperativeFetch",
           "RewriteParallelVectorizeUnroll", "RewriteReductionBlock", "RewriteUnboundBlock", "VerifyGPUCode",
           "create"]
