"""Pattern rewriting (``rewrite_call``, ``rewrite_bindings``); the work is
done in C++ (src/relax/dpl/rewrite.h, graph_match.h), calling the Python
rewriter back once per match."""
from typing import Callable, Dict

from ...error import TVMTypeError

from ..expr import Expr, Function, Var
from .context import PatternContext
from .pattern import DFPattern
from . import _ffi


def _check_func(func, what):
    if not isinstance(func, Function):
        raise TVMTypeError(f"{what}: func must be a relax Function, got {type(func).__name__}")
    return func


def rewrite_call(pattern: DFPattern, rewriter: Callable[[Expr, Dict[DFPattern, Expr]], Expr],
                 func: Function) -> Function:
    """Replaces every call matching ``pattern`` by ``rewriter(call, matches)``
    (returning ``call`` itself keeps it), repeated until nothing changes;
    unused bindings are removed. Only calls of the pattern's root op(s) are
    tried."""
    if not isinstance(pattern, DFPattern):
        raise TVMTypeError(f"rewrite_call: pattern must be a DFPattern, got {type(pattern).__name__}")
    if not callable(rewriter):
        raise TVMTypeError(f"rewrite_call: rewriter must be callable, got {type(rewriter).__name__}")
    return _ffi.rewrite_call(pattern, rewriter, _check_func(func, "rewrite_call"))


def rewrite_bindings(ctx: PatternContext, rewriter: Callable[[Dict[DFPattern, Var], Dict[Var, Expr]], Dict[Var, Expr]],
                     func: Function) -> Function:
    """For each dataflow block, while ``ctx`` matches: ``rewriter(matches,
    var2val)`` gives new values for some matched bound vars; the rewritten
    bindings are placed after everything they use."""
    if not isinstance(ctx, PatternContext):
        raise TVMTypeError(f"rewrite_bindings: ctx must be a PatternContext, got {type(ctx).__name__}")
    if not callable(rewriter):
        raise TVMTypeError(f"rewrite_bindings: rewriter must be callable, got {type(rewriter).__name__}")
    nodes, edges, same_shape = ctx._solve_args()  # pylint: disable=protected-access
    return _ffi.rewrite_bindings(nodes, edges, same_shape, rewriter, _check_func(func, "rewrite_bindings"))
