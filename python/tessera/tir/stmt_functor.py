"""``tvm.tir.stmt_functor``: traversal helpers over statements."""
from . import _ffi_api


def post_order_visit(stmt, fvisit):
    """Calls ``fvisit`` on every node of ``stmt``, children first."""
    _ffi_api.PostOrderVisit(stmt, fvisit)


def substitute(node, vmap):
    """Replaces variables by ``vmap`` (Var -> PrimExpr)."""
    return _ffi_api.Substitute(node, dict(vmap))


__all__ = ["post_order_visit", "substitute"]
