"""Buffers (``tvm.tir.Buffer``, ``decl_buffer``) and buffer regions."""
from .. import _core
from .._ffi.registry import register_object
from ..ir.base import Node
from . import _ffi_api
from .expr import BufferLoad, Var
from ..error import OpNotImplemented, TVMTypeError


@register_object("tir.Buffer")
class Buffer(Node):
    """A named n-d view of memory: ``name``, ``dtype``, ``shape``, ``strides``,
    ``elem_offset``, ``data`` and ``scope()``.  ``buf[i, j]`` is a BufferLoad."""

    def scope(self):
        """Storage scope ("global", "shared", "local", ...)."""
        return _ffi_api.BufferScope(self)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        if any(isinstance(i, slice) for i in indices):
            raise TVMTypeError("slicing a Buffer is only meaningful inside TVMScript (T.reads/T.writes)")
        return BufferLoad(self, list(indices))

    def access_ptr(self, access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None):
        """A pointer to this buffer's data for external calls ("r", "w" or "rw");
        ``ptr_type`` must be "handle" and ``content_lanes`` 1."""
        if ptr_type != "handle" or content_lanes != 1:
            raise OpNotImplemented(f"access_ptr(ptr_type={ptr_type!r}, content_lanes={content_lanes!r}) is not "
                                      "supported; only ptr_type=\"handle\", content_lanes=1")
        return _ffi_api.BufferAccessPtr(self, access_mask, offset, extent)

    def vload(self, begin, dtype=None):
        """The element at ``begin`` (scalar loads only: ``dtype`` must be the buffer's)."""
        if dtype is not None and str(dtype) != str(self.dtype):
            raise OpNotImplemented(f"vload(dtype={dtype!r}) of a {self.dtype} buffer is not supported "
                                      "(no vector loads)")
        return self[tuple(begin)]

    def __repr__(self):
        return f"T.Buffer({tuple(self.shape)}, \"{self.dtype}\")"

    __hash__ = _core.Object.__hash__


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None, elem_offset=None, scope="",
                data_alignment=-1, offset_factor=0, buffer_type="", axis_separators=None, span=None):
    # pylint: disable=unused-argument
    """Declares a Buffer (TVM's ``tvm.tir.decl_buffer``); ``buffer_type``
    "auto_broadcast" and ``axis_separators`` are refused (``span`` is not kept)."""
    if buffer_type not in ("", "default"):
        raise OpNotImplemented(f"decl_buffer(buffer_type={buffer_type!r}) is not supported")
    if axis_separators:
        raise OpNotImplemented("decl_buffer(axis_separators=...) is not supported")
    if isinstance(shape, int) or not isinstance(shape, (list, tuple)):
        shape = [shape]
    if data is None:
        data = Var(name, "handle")
    return _ffi_api.Buffer(data, str(dtype), list(shape), list(strides or []), elem_offset, name, scope or "global",
                           64 if data_alignment in (-1, None) else data_alignment, offset_factor or 1)


@register_object("tir.BufferRegion")
class BufferRegion(Node):
    """A rectangular region (``region``: list of Range) of a ``buffer``."""

    def __init__(self, buffer, region):
        self.__init_handle_by_constructor__(_ffi_api.BufferRegion, buffer, list(region))

    @staticmethod
    def full_region(buffer):
        return _ffi_api.BufferRegion_FullRegion(buffer)


@register_object("tir.MatchBufferRegion")
class MatchBufferRegion(Node):
    """Binds ``buffer`` to the region ``source`` inside a block."""

    def __init__(self, buffer, source):
        self.__init_handle_by_constructor__(_ffi_api.MatchBufferRegion, buffer, source)


__all__ = ["Buffer", "decl_buffer", "BufferRegion", "MatchBufferRegion"]
