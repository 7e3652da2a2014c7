"""Iterator maps (``tvm.arith.detect_iter_map`` and friends): detection of
block bindings that are affine maps of loop iterators, as structured
IterSumExpr / IterSplitExpr / IterMark nodes."""
from enum import IntEnum

from .._ffi.registry import register_object
from ..ir.base import Node
from ..ir.expr import PrimExpr
from . import _ffi_api
from ..error import TVMValueError


@register_object("arith.IterMapExpr")
class IterMapExpr(PrimExpr):
    """Base of iterator-map expressions."""

    def __repr__(self):
        return f"{type(self).__name__}({_ffi_api.NormalizeIterMapToExpr(self)})"


@register_object("arith.IterMark")
class IterMark(Node):
    """An iterator ``source`` with values in ``[0, extent)``."""

    def __init__(self, source, extent):
        self.__init_handle_by_constructor__(_ffi_api.IterMark, source, extent)


@register_object("arith.IterSplitExpr")
class IterSplitExpr(IterMapExpr):
    """``floormod(floordiv(source, lower_factor), extent) * scale``."""

    def __init__(self, source, lower_factor, extent, scale):
        self.__init_handle_by_constructor__(_ffi_api.IterSplitExpr, source, lower_factor, extent, scale)


@register_object("arith.IterSumExpr")
class IterSumExpr(IterMapExpr):
    """``sum(args) + base``."""

    def __init__(self, args, base):
        self.__init_handle_by_constructor__(_ffi_api.IterSumExpr, list(args), base)


@register_object("arith.IterMapResult")
class IterMapResult(Node):
    """``indices`` (empty on failure), ``errors`` and ``padding_predicate``."""


class IterMapLevel(IntEnum):
    """How strictly detect_iter_map checks the map."""

    Bijective = 0
    Surjective = 1
    NoCheck = 3

    @staticmethod
    def from_str(name):
        key = name.lower()
        if key == "bijective":
            return IterMapLevel.Bijective
        if key == "surjective":
            return IterMapLevel.Surjective
        if key in ("no_check", "nocheck"):
            return IterMapLevel.NoCheck
        raise TVMValueError(f"unknown check level '{name}': expected bijective, surjective or no_check")


def _level(check_level):
    if isinstance(check_level, str):
        return int(IterMapLevel.from_str(check_level))
    return int(check_level)


def detect_iter_map(indices, input_iters, predicate=True, check_level=IterMapLevel.Surjective,
                    simplify_trivial_iterators=True):
    """Detects whether ``indices`` are an affine map of ``input_iters`` (Var -> Range).

    Returns an IterMapResult whose ``indices`` are IterSumExprs on success and
    empty (with ``errors``) otherwise."""
    return _ffi_api.DetectIterMap(list(indices), dict(input_iters), predicate, _level(check_level),
                                  bool(simplify_trivial_iterators))


def normalize_iter_map_to_expr(expr):
    """The plain PrimExpr of an IterSumExpr / IterSplitExpr."""
    return _ffi_api.NormalizeIterMapToExpr(expr)


def iter_map_simplify(indices, input_iters, input_pred=True, check_level=IterMapLevel.Surjective,
                      simplify_trivial_iterators=True):
    """``indices`` simplified through iterator-map detection (unchanged structure when not affine)."""
    return _ffi_api.IterMapSimplify(list(indices), dict(input_iters), input_pred, _level(check_level),
                                    bool(simplify_trivial_iterators))


__all__ = ["IterMapExpr", "IterMark", "IterSplitExpr", "IterSumExpr", "IterMapResult", "IterMapLevel",
           "detect_iter_map", "normalize_iter_map_to_expr", "iter_map_simplify"]
