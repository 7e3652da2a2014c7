"""``tvm.tir.analysis``: analyses of TensorIR in Python. ``estimate_tir_flops``
counts the floating-point arithmetic a PrimFunc (or a statement, or the one
function of an IRModule) performs per call: each store's add/sub/mul/div/min/max
on float values, times the iterations of the loops around it. Used for the
GFLOP/s columns of the tuner's task table and of ``vm.profile``."""
from .. import ir as _ir
from ..error import TVMValueError
from . import expr as _expr
from . import stmt as _stmt
from .function import PrimFunc
from .stmt_functor import post_order_visit

_ARITH = (_expr.Add, _expr.Sub, _expr.Mul, _expr.Div, _expr.FloorDiv, _expr.Min, _expr.Max)


def _float_ops(expr):
    count = [0]

    def visit(node):
        if isinstance(node, _ARITH) and str(node.dtype).startswith("float"):
            count[0] += 1
    post_order_visit(expr, visit)
    return count[0]


def _count(stmt, extent, symbolic_extent):
    """Float operations under ``stmt`` executed ``extent`` times; a loop of
    non-constant extent counts ``symbolic_extent`` iterations, or raises when
    that is None."""
    if isinstance(stmt, _stmt.For):
        try:
            ext = int(stmt.extent)
        except (TypeError, ValueError):
            if symbolic_extent is None:
                raise TVMValueError(f"estimate_tir_flops: the loop over {stmt.loop_var} has the non-constant extent "
                                    f"{stmt.extent}") from None
            ext = symbolic_extent
        return _count(stmt.body, extent * ext, symbolic_extent)
    if isinstance(stmt, _stmt.SeqStmt):
        return sum(_count(s, extent, symbolic_extent) for s in stmt.seq)
    if isinstance(stmt, _stmt.BlockRealize):
        init = stmt.block.init
        return ((_count(init, extent, symbolic_extent) if init is not None else 0)
                + _count(stmt.block.body, extent, symbolic_extent))
    if isinstance(stmt, _stmt.BufferStore):
        return extent * _float_ops(stmt.value)
    if isinstance(stmt, _stmt.IfThenElse):
        return (_count(stmt.then_case, extent, symbolic_extent)
                + (_count(stmt.else_case, extent, symbolic_extent) if stmt.else_case is not None else 0))
    if hasattr(stmt, "body"):
        return _count(stmt.body, extent, symbolic_extent)
    return 0


def estimate_tir_flops(stmt_or_mod, symbolic_extent=None):
    """Float operations of one call of a PrimFunc, a statement, or an IRModule
    holding one PrimFunc (TVM's name). A loop whose extent is not a constant
    raises ValueError naming it, unless ``symbolic_extent`` (an int, Tessera's
    extension) gives the iterations to assume for it."""
    node = stmt_or_mod
    if isinstance(node, _ir.IRModule):
        funcs = [f for _, f in node.functions.items() if isinstance(f, PrimFunc)]
        if len(funcs) != 1:
            raise TVMValueError(f"estimate_tir_flops: the IRModule must hold exactly one PrimFunc, it holds {len(funcs)}")
        node = funcs[0]
    if isinstance(node, PrimFunc):
        node = node.body
    if not isinstance(node, _stmt.Stmt):
        raise TVMValueError(f"estimate_tir_flops expects a PrimFunc, a Stmt or an IRModule, got {type(node).__name__}")
    return float(_count(node, 1, symbolic_extent))


def is_scheduled(func):
    """Whether ``func`` (a PrimFunc) already carries a schedule: the attribute
    ``"tir.is_scheduled"``, or any loop that is not serial (parallel, vectorized,
    unrolled, thread-bound). The default schedules skip such functions and
    FuseOps keeps them unfused (a fused copy would lose the schedule)."""
    if not isinstance(func, PrimFunc):
        raise TVMValueError(f"is_scheduled expects a PrimFunc, got {type(func).__name__}")
    from .._ffi.registry import get_global_func
    return bool(get_global_func("tir.analysis.is_scheduled")(func))


def verify_gpu_code(func, constraints):
    """Whether the GPU kernels of PrimFunc `func` stay within `constraints`, a dict with any of
    max_threads_per_block, max_shared_memory_per_block, max_local_memory_per_block, max_thread_x/y/z,
    max_vthread, max_vector_bytes, max_kernels (only the given ones are checked), as in TVM. An unknown key
    raises ValueError."""
    from .._ffi import get_global_func  # pylint: disable=import-outside-toplevel

    if not isinstance(func, PrimFunc):
        raise TVMValueError(f"verify_gpu_code: func must be a PrimFunc, got {type(func).__name__}")
    return bool(get_global_func("tir.analysis.verify_gpu_code")(func, dict(constraints)))


__all__ = ["estimate_tir_flops", "is_scheduled", "verify_gpu_code"]
