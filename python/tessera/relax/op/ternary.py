"""Ternary elementwise Relax ops: ``relax.op.ewise_fma(x1, x2, x3)`` =
x1 * x2 + x3 (registered in src/relax/op/ternary.cc) and its legalization."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr


def ewise_fma(x1, x2, x3):
    """x1 * x2 + x3 elementwise (operands of one shape and dtype)."""
    for name, v in (("x1", x1), ("x2", x2), ("x3", x3)):
        check_expr("relax.ewise_fma", name, v)
    return Call(Op.get("relax.ewise_fma"), [x1, x2, x3])


def _fma(a, b, c):
    from ... import te  # pylint: disable=import-outside-toplevel
    return te.compute(a.shape, lambda *i: a(*i) * b(*i) + c(*i), name="T_ewise_fma")


@register_legalize("relax.ewise_fma")
def _legalize_ewise_fma(bb, call):
    return bb.call_te(_fma, *call.args, primfunc_name_hint="ewise_fma")


__all__ = ["ewise_fma"]
