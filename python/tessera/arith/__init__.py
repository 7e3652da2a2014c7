"""Integer arithmetic analysis (``tvm.arith``): the Analyzer (simplify,
const_int_bound, modular_set, int_set, can_prove), integer sets and
iterator-map detection."""
from .analyzer import Analyzer, ConstIntBound, ModularSet, ProofStrength
from .int_set import IntSet, IntervalSet, eval_set, union, intersect
from .iter_affine_map import (IterMapExpr, IterMark, IterSplitExpr, IterSumExpr, IterMapResult, IterMapLevel,
                              detect_iter_map, normalize_iter_map_to_expr, iter_map_simplify)
from . import _ffi_api

__all__ = ["Analyzer", "ConstIntBound", "ModularSet", "ProofStrength", "IntSet", "IntervalSet", "eval_set", "union",
           "intersect", "IterMapExpr", "IterMark", "IterSplitExpr", "IterSumExpr", "IterMapResult", "IterMapLevel",
           "detect_iter_map", "normalize_iter_map_to_expr", "iter_map_simplify"]
