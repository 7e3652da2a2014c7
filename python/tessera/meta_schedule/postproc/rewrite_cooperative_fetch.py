"""RewriteCooperativeFetch (C++: src/meta_schedule/postproc/rewrite_cooperative_fetch.cc):
splits each shared-memory fetch loop annotated meta_schedule.cooperative_fetch by the
enclosing thread extents and binds it to threadIdx (GPU targets)."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .postproc import Postproc


@register_object("meta_schedule.RewriteCooperativeFetch")
class RewriteCooperativeFetch(Postproc):
    def __init__(self):
        self.__init_handle_by_constructor__(_ffi_api.PostprocRewriteCooperativeFetch)
