"""Legalization of Relax ops: ``register_legalize(op_name)`` stores, as op
attribute "FLegalize", the function ``fn(bb, call)`` that turns a high-level
call into call_tir of a TOPI PrimFunc (through ``BlockBuilder.call_te``); read
by relax.transform.LegalizeOps. Each op registers it next to its Python
constructor (binary.py, unary.py)."""
from ...ir.op import Op, register_op_attr


def register_legalize(op_name):
    """Decorator: ``fn(bb, call) -> Expr`` legalizes calls of op ``op_name``."""
    def deco(fn):
        register_op_attr(op_name, "FLegalize", fn)
        return fn
    return deco


def get_legalize(op_name):
    """The "FLegalize" attribute of ``op_name``, or None."""
    return Op.get(op_name).get_attr("FLegalize")
