"""``PatternContext``: a scope collecting graph constraints (``used_by`` /
``only_used_by`` edges, those call patterns add between a call and its
argument patterns, and ``same_shape_as`` groups) over several bindings of a dataflow block; ``match_dfb``
solves them in C++ (src/relax/dpl/graph_match.h)."""
from typing import Dict, List, Optional

from ...error import TVMTypeError, TVMValueError

from ..expr import DataflowBlock, Var
from .pattern import DFPattern
from . import _ffi

_STACK: List["PatternContext"] = []


class PatternContext:
    """``with PatternContext() as ctx:`` then ``ctx.match_dfb(dfb)``."""

    def __init__(self, incremental=False):
        self._nodes: List[DFPattern] = []
        self._edges: List[list] = []
        self._same_shape: List[list] = []
        if incremental:
            if not _STACK:
                raise TVMValueError("PatternContext(incremental=True) must be made inside another PatternContext")
            self._nodes = list(_STACK[-1]._nodes)
            self._edges = [list(e) for e in _STACK[-1]._edges]
            self._same_shape = [list(g) for g in _STACK[-1]._same_shape]

    def __enter__(self):
        _STACK.append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if _STACK and _STACK[-1] is self:
            _STACK.pop()

    @staticmethod
    def current() -> Optional["PatternContext"]:
        return _STACK[-1] if _STACK else None

    def _node(self, pattern):
        if not any(p.same_as(pattern) for p in self._nodes):
            self._nodes.append(pattern)

    def add_constraint(self, src: DFPattern, dst: DFPattern, index: int = -1, only: bool = False):
        """``src`` is used by ``dst`` (as its ``index``-th var operand; -1 any); ``only``: by nothing else."""
        for p, what in ((src, "src"), (dst, "dst")):
            if not isinstance(p, DFPattern):
                raise TVMTypeError(f"PatternContext.add_constraint: {what} must be a DFPattern, got {type(p).__name__}")
        self._node(src)
        self._node(dst)
        self._edges.append([src, dst, int(index), bool(only)])

    def add_same_shape(self, patterns):
        """The vars matched by ``patterns`` must have provably equal shapes."""
        for p in patterns:
            if not isinstance(p, DFPattern):
                raise TVMTypeError(f"same_shape_as: arguments must be DFPatterns, got {type(p).__name__}")
            self._node(p)
        self._same_shape.append(list(patterns))

    def copy_constraints(self, originals, copies):
        """Repeats the constraints among ``originals`` for their ``copies`` (PatternSeq.dup)."""
        pairs = list(zip(originals, copies))

        def copy_of(p):
            for o, c in pairs:
                if o.same_as(p):
                    return c
            return None

        for src, dst, idx, only in list(self._edges):
            s, d = copy_of(src), copy_of(dst)
            if s is not None and d is not None:
                self.add_constraint(s, d, idx, only)

    def match_dfb(self, dfb: DataflowBlock, start_hint: Optional[Var] = None,
                  must_include_hint: bool = False) -> Optional[Dict[DFPattern, Var]]:  # pylint: disable=unused-argument
        """Each constrained pattern -> the var of ``dfb`` it matched (distinct vars), or None."""
        if not isinstance(dfb, DataflowBlock):
            raise TVMTypeError(f"match_dfb: dfb must be a relax DataflowBlock, got {type(dfb).__name__}")
        return _ffi.match_dfb(self._nodes, self._edges, self._same_shape, dfb)

    def _solve_args(self):
        return self._nodes, self._edges, self._same_shape
