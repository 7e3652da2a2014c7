"""RewriteParallelVectorizeUnroll (C++: src/meta_schedule/postproc/rewrite_parallel_vectorize_unroll.cc):
realizes the root-block annotations of ParallelizeVectorizeUnroll."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .postproc import Postproc


@register_object("meta_schedule.RewriteParallelVectorizeUnroll")
class RewriteParallelVectorizeUnroll(Postproc):
    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.PostprocRewriteParallelVectorizeUnroll)
