"""Legalization table of Relax ops: ``register_legalize(op_name)`` stores the
function that turns a high-level call into call_tir of a TOPI PrimFunc
(through ``BlockBuilder.call_te``); read by relax.transform.LegalizeOps. Each
op registers its legalization next to its Python constructor (binary.py, unary.py)."""

_LEGALIZE = {}


def register_legalize(op_name):
    """Decorator: ``fn(bb, call) -> Expr`` legalizes calls of op ``op_name`` (one per op)."""
    def deco(fn):
        if op_name in _LEGALIZE:
            raise ValueError(f"relax op {op_name!r} already has a legalization")
        _LEGALIZE[op_name] = fn
        return fn
    return deco


def get_legalize(op_name):
    """The legalization of ``op_name`` ("FLegalize"), or None."""
    return _LEGALIZE.get(op_name)
