"""PrimFunc (``tvm.tir.PrimFunc``): a TensorIR function."""
from .._ffi.registry import register_object
from ..ir.function import BaseFunc
from . import _ffi_api
from .buffer import Buffer
from .expr import Var
from ..error import OpNotImplemented


@register_object("tir.PrimFunc")
class PrimFunc(BaseFunc):
    """``PrimFunc(params, body, ret_type=None, buffer_map=None, attrs=None)``.

    ``params`` may hold Vars or Buffers (a Buffer parameter becomes a handle
    Var bound to it in ``buffer_map``)."""

    def __init__(self, params, body, ret_type=None, buffer_map=None, attrs=None, span=None):
        # pylint: disable=unused-argument
        if ret_type is not None:
            raise OpNotImplemented("PrimFunc(ret_type=...) is not supported: PrimFuncs return nothing")
        buffer_map = dict(buffer_map or {})
        param_vars = []
        for p in params:
            if isinstance(p, Buffer):
                var = Var(p.name, "handle")
                buffer_map[var] = p
                param_vars.append(var)
            else:
                param_vars.append(p)
        self.__init_handle_by_constructor__(_ffi_api.PrimFunc, param_vars, body, buffer_map, dict(attrs or {}))

    def with_body(self, new_body, span=None):  # pylint: disable=unused-argument
        """A copy of this function with another body."""
        return _ffi_api.PrimFuncWithBody(self, new_body)


__all__ = ["PrimFunc"]
