"""Elementwise comparison Relax ops (``relax.op.equal``, ``not_equal``,
``less``, ``less_equal``, ``greater``, ``greater_equal``; bool results):
constructors of calls of the ops registered in src/relax/op/comparison.cc and
their legalization to TOPI."""
from ...ir.op import Op
from ..expr import Call
from ._legalize_registry import register_legalize
from ._binary_legalize import legalize_binary
from ._op_attrs import check_expr


def _make(name):
    op_name = "relax." + name

    def ctor(x1, x2):
        check_expr(op_name, "x1", x1)
        check_expr(op_name, "x2", x2)
        return Call(Op.get(op_name), [x1, x2])

    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        return legalize_binary(bb, call, getattr(topi, name), name)

    register_legalize(op_name)(legalize)
    ctor.__name__ = name
    ctor.__doc__ = f"Elementwise {name} of x1 and x2 (bool) with NumPy broadcasting."
    return ctor


equal = _make("equal")
not_equal = _make("not_equal")
less = _make("less")
less_equal = _make("less_equal")
greater = _make("greater")
greater_equal = _make("greater_equal")

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
