"""FLOP count of a workload (``estimate_flops``), used by tune.py for GFLOPS figures.
The cost model's features are the C++ per-store features (feature_extractor.PerStoreFeature);
``candidate_features`` is the hook the search strategies use to get them."""
from .. import tir
from .feature_extractor import PerStoreFeature

_ARITH = (tir.Add, tir.Sub, tir.Mul, tir.Div, tir.FloorDiv, tir.Min, tir.Max)
_DEFAULT_EXTRACTOR = None


def candidate_features(mod):
    """Per-store feature rows (numpy float64, stores x 164) of a candidate module, from the
    default PerStoreFeature (CPU); a module that does not lower gives 0 rows."""
    global _DEFAULT_EXTRACTOR  # pylint: disable=global-statement
    if _DEFAULT_EXTRACTOR is None:
        _DEFAULT_EXTRACTOR = PerStoreFeature()
    return _DEFAULT_EXTRACTOR.extract_from(None, [mod])[0].numpy()


def _float_ops(expr):
    count = [0]

    def visit(node):
        if isinstance(node, _ARITH) and str(node.dtype).startswith("float"):
            count[0] += 1
    tir.stmt_functor.post_order_visit(expr, visit)
    return count[0]


def _stores(stmt, extent, out):
    if isinstance(stmt, tir.For):
        try:
            ext = int(stmt.extent)
        except (TypeError, ValueError):
            ext = 1
        _stores(stmt.body, extent * ext, out)
    elif isinstance(stmt, tir.SeqStmt):
        for s in stmt.seq:
            _stores(s, extent, out)
    elif isinstance(stmt, tir.BlockRealize):
        if stmt.block.init is not None:
            _stores(stmt.block.init, extent, out)
        _stores(stmt.block.body, extent, out)
    elif isinstance(stmt, tir.BufferStore):
        out.append((extent, stmt))
    elif isinstance(stmt, tir.IfThenElse):
        _stores(stmt.then_case, extent, out)
        if stmt.else_case is not None:
            _stores(stmt.else_case, extent, out)
    elif hasattr(stmt, "body"):
        _stores(stmt.body, extent, out)


def estimate_flops(mod):
    """Float operations of one call of ``mod["main"]`` (stores' arithmetic times iterations)."""
    out = []
    _stores(mod["main"].body, 1, out)
    return sum(n * _float_ops(st.value) for n, st in out)


__all__ = ["candidate_features", "estimate_flops"]
