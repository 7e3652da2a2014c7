"""RewriteUnboundBlock (C++: src/meta_schedule/postproc/rewrite_unbound_block.cc): binds
every top-level block no thread binding covers to blockIdx.x x threadIdx.x (GPU targets)."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .postproc import Postproc


@register_object("meta_schedule.RewriteUnboundBlock")
class RewriteUnboundBlock(Postproc):
    """TVM's signature: ``RewriteUnboundBlock(max_threadblocks=256)``."""

    def __init__(self, max_threadblocks=256):
        self.__init_handle_by_constructor__(_ffi_api.PostprocRewriteUnboundBlock, int(max_threadblocks))
