"""Integer sets (``tvm.arith.IntSet`` / ``IntervalSet``): intervals with
symbolic or infinite ends, and their evaluation over variable domains."""
from .._ffi.registry import register_object
from ..ir.base import Node
from . import _ffi_api


@register_object("arith.IntSet")
class IntSet(Node):
    """Base of integer sets."""

    def is_nothing(self):
        return bool(_ffi_api.IntSetIsNothing(self))

    def is_everything(self):
        return bool(_ffi_api.IntSetIsEverything(self))

    def is_single_point(self):
        return bool(_ffi_api.IntSetIsSinglePoint(self))

    def cover_range(self, max_range):
        return _ffi_api.IntSetCoverRange(self, max_range)

    @staticmethod
    def single_point(point):
        return _ffi_api.IntSetSinglePoint(point)

    @staticmethod
    def from_range(rng):
        return _ffi_api.IntSetFromRange(rng)

    @staticmethod
    def from_min_extent(min_value, extent):
        return _ffi_api.IntSetFromMinExtent(min_value, extent)

    @staticmethod
    def everything():
        return _ffi_api.IntSetEverything()

    @staticmethod
    def nothing():
        return _ffi_api.IntSetNothing()


@register_object("arith.IntervalSet")
class IntervalSet(IntSet):
    """The closed interval ``[min_value, max_value]``."""

    def __init__(self, min_value, max_value):
        self.__init_handle_by_constructor__(_ffi_api.IntervalSet, min_value, max_value)

    def __repr__(self):
        return f"IntervalSet[{_end(self.min_value)}, {_end(self.max_value)}]"


def _end(value):
    if _ffi_api.IntSetIsPosInf(value):
        return "+inf"
    if _ffi_api.IntSetIsNegInf(value):
        return "-inf"
    return str(value)


def eval_set(expr, dom_map):
    """The IntervalSet of ``expr`` with each variable of ``dom_map`` relaxed over its IntSet or Range."""
    return _ffi_api.EvalSet(expr, dict(dom_map))


def union(sets):
    return _ffi_api.IntSetUnion(list(sets))


def intersect(sets):
    return _ffi_api.IntSetIntersect(list(sets))


__all__ = ["IntSet", "IntervalSet", "eval_set", "union", "intersect"]
