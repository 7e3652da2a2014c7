"""TIR statements (``tvm.tir``): stores, loops, blocks and scopes."""
import enum

from .._ffi.registry import register_object
from ..ir.base import Node
from . import _ffi_api
from ..error import OpNotImplemented


class ForKind(enum.IntEnum):
    """Kinds of loops (values as in TVM)."""

    SERIAL = 0
    PARALLEL = 1
    VECTORIZED = 2
    UNROLLED = 3
    THREAD_BINDING = 4


@register_object("tir.Stmt")
class Stmt(Node):
    """Base class of statements."""


@register_object("tir.BufferStore")
class BufferStore(Stmt):
    """``buffer[indices] = value``."""

    def __init__(self, buffer, value, indices, predicate=None, span=None):  # pylint: disable=unused-argument
        if predicate is not None:
            raise OpNotImplemented("BufferStore(predicate=...) is not supported (no predicated vector stores)")
        self.__init_handle_by_constructor__(_ffi_api.BufferStore, buffer, value, list(indices))


@register_object("tir.For")
class For(Stmt):
    """A loop over ``loop_var`` in [min, min + extent)."""

    def __init__(self, loop_var, min, extent, kind, body, thread_binding=None, annotations=None, span=None):
        # pylint: disable=redefined-builtin,unused-argument
        self.__init_handle_by_constructor__(_ffi_api.For, loop_var, min, extent, int(kind), body, thread_binding,
                                            dict(annotations or {}))

    @property
    def kind(self):
        return ForKind(self.__getattr__("kind"))


@register_object("tir.IfThenElse")
class IfThenElse(Stmt):
    def __init__(self, condition, then_case, else_case, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.IfThenElse, condition, then_case, else_case)


@register_object("tir.SeqStmt")
class SeqStmt(Stmt):
    def __init__(self, seq, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.SeqStmt, list(seq))

    def __getitem__(self, i):
        return self.seq[i]

    def __len__(self):
        return len(self.seq)


@register_object("tir.Evaluate")
class Evaluate(Stmt):
    def __init__(self, value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Evaluate, value)


@register_object("tir.LetStmt")
class LetStmt(Stmt):
    def __init__(self, var, value, body, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.LetStmt, var, value, body)


@register_object("tir.AttrStmt")
class AttrStmt(Stmt):
    def __init__(self, node, attr_key, value, body, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.AttrStmt, node, attr_key, value, body)


@register_object("tir.Allocate")
class Allocate(Stmt):
    def __init__(self, buffer_var, dtype, extents, condition, body, annotations=None, span=None):
        # pylint: disable=unused-argument
        if annotations:
            raise OpNotImplemented("Allocate(annotations=...) is not supported")
        self.__init_handle_by_constructor__(_ffi_api.Allocate, buffer_var, str(dtype), list(extents), condition, body)


@register_object("tir.DeclBuffer")
class DeclBuffer(Stmt):
    def __init__(self, buffer, body, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.DeclBuffer, buffer, body)


@register_object("tir.While")
class While(Stmt):
    def __init__(self, condition, body, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.While, condition, body)


@register_object("tir.Block")
class Block(Stmt):
    """A TensorIR block: ``iter_vars``, ``reads``, ``writes``, ``name_hint``,
    ``body``, ``init``, ``alloc_buffers``, ``match_buffers``, ``annotations``."""

    def __init__(self, iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=None,
                 match_buffers=None, annotations=None, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Block, list(iter_vars), list(reads), list(writes), name_hint,
                                            body, init, list(alloc_buffers or []), list(match_buffers or []),
                                            dict(annotations or {}))


@register_object("tir.BlockRealize")
class BlockRealize(Stmt):
    """Binds a block's iteration variables to ``iter_values`` under ``predicate``."""

    def __init__(self, iter_values, predicate, block, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.BlockRealize, list(iter_values), predicate, block)


def stmt_seq(*args):
    """A SeqStmt of the given statements (nested sequences are flattened)."""
    flat = []
    for a in args:
        flat.extend(a.seq if isinstance(a, SeqStmt) else [a])
    return flat[0] if len(flat) == 1 else SeqStmt(flat)


__all__ = ["ForKind", "Stmt", "BufferStore", "For", "IfThenElse", "SeqStmt", "Evaluate", "LetStmt", "AttrStmt",
           "Allocate", "DeclBuffer", "While", "Block", "BlockRealize", "stmt_seq"]
