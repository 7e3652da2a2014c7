"""``tvm.tir.ScheduleState``: an IRModule with a tree of statement references
(``StmtSRef``) over its loops and blocks, and ``replace``, which swaps a loop
or block for another statement in place where nothing else holds the nodes
on the way (copying them otherwise), keeping the srefs of reused loops
(same loop variable) and blocks (``block_sref_reuse``)."""
from enum import IntEnum

from ..._ffi.registry import register_object
from ...ir.base import Node
from ...ir.module import IRModule
from ..function import PrimFunc
from . import _ffi_api
from ...error import OpNotImplemented, TVMTypeError, TVMValueError


@register_object("tir.StmtSRef")
class StmtSRef(Node):
    """A reference to a loop or block of a ScheduleState: ``stmt`` (None once
    replaced away), ``parent`` (the enclosing loop or block's sref, None at a
    root block) and ``seq_index`` (its index in the enclosing SeqStmt, or -1)."""

    @property
    def stmt(self):
        return _ffi_api.StmtSRefStmt(self)

    @property
    def parent(self):
        return _ffi_api.StmtSRefParent(self)

    @property
    def seq_index(self):
        return _ffi_api.StmtSRefSeqIndex(self)

    def __repr__(self):
        stmt = self.stmt
        return f"StmtSRef({type(stmt).__name__ if stmt is not None else 'expired'})"


class ScheduleDebugMask(IntEnum):
    """The bits of ``debug_mask`` (TVM's names): VERIFY_SREF_TREE checks the
    sref tree against the module after every replace; VERIFY_CACHED_FLAGS is
    TVM's block-info check, which has no block info to check here."""

    VERIFY_SREF_TREE = 1
    VERIFY_CACHED_FLAGS = 2


def _debug_mask(debug_mask):
    if isinstance(debug_mask, str):
        if debug_mask not in ("all", "none"):
            raise TVMValueError("ScheduleState(debug_mask=...) must be \"all\", \"none\" or an int, got "
                                f"{debug_mask!r}")
        return 3 if debug_mask == "all" else 0
    if not isinstance(debug_mask, int) or isinstance(debug_mask, bool) or not -1 <= debug_mask <= 3:
        raise TVMValueError(f"ScheduleState(debug_mask=...) must be \"all\", \"none\" or an int in [-1, 3], "
                            f"got {debug_mask!r}")
    return 3 if debug_mask == -1 else int(debug_mask)


@register_object("tir.ScheduleState")
class ScheduleState(Node):
    """The state of a schedule: ``mod`` and its sref tree.

    ``debug_mask`` ("all", "none" or bits): bit 0 checks the sref tree against
    the module after every replace; bit 1 (TVM's block-info check) has no
    block info to check here."""

    def __init__(self, mod, *, debug_mask="none", enable_check=True):
        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        if not isinstance(mod, IRModule):
            raise TVMTypeError(f"ScheduleState expects an IRModule or a PrimFunc, got {type(mod).__name__}")
        if enable_check is not True:
            raise OpNotImplemented("ScheduleState(enable_check=False) is not supported")
        self.__init_handle_by_constructor__(_ffi_api.ScheduleState, mod, _debug_mask(debug_mask))

    @property
    def mod(self):
        return _ffi_api.ScheduleStateMod(self)

    def get_sref(self, stmt):
        """The sref of a loop or block of ``mod`` (None if it has none)."""
        from ..stmt import Block, For  # pylint: disable=import-outside-toplevel

        if not isinstance(stmt, (Block, For)):
            raise TVMTypeError(f"get_sref expects a Block or a For, got {type(stmt).__name__}")
        return _ffi_api.ScheduleStateGetSRef(self, stmt)

    def replace(self, src_sref, tgt_stmt, block_sref_reuse=None):
        """Replaces the loop or block of ``src_sref`` with ``tgt_stmt`` (a loop
        by a For or a BlockRealize, a block by a Block); ``block_sref_reuse``
        maps old blocks to the new blocks that keep their srefs."""
        if not isinstance(src_sref, StmtSRef):
            raise TVMTypeError(f"replace expects a StmtSRef, got {type(src_sref).__name__}")
        _ffi_api.ScheduleStateReplace(self, src_sref, tgt_stmt, dict(block_sref_reuse or {}))
