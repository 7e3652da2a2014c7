"""RewriteReductionBlock (C++: src/meta_schedule/postproc/rewrite_reduction_block.cc):
decomposes every reduction block not yet decomposed."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .postproc import Postproc


@register_object("meta_schedule.RewriteReductionBlock")
class RewriteReductionBlock(Postproc):
    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.PostprocRewriteReductionBlock)
