"""Elementwise unary Relax ops (``relax.op.exp`` ...): constructors of calls of
the ops registered in src/relax/op/unary.cc (struct-info inference there) and
their legalization to TOPI ("FLegalize"), one place per op."""
from ...ir.op import Op
from ..expr import Call, Expr
from ._legalize_registry import register_legalize
from ...error import TVMTypeError


def _make(name):
    op_name = "relax." + name

    def ctor(x):
        if not isinstance(x, Expr):
            raise TVMTypeError(f"{op_name}: operand 'x' must be a relax Expr, got {type(x).__name__}")
        return Call(Op.get(op_name), [x])

    def legalize(bb, call):
        from ... import topi  # pylint: disable=import-outside-toplevel
        return bb.call_te(getattr(topi, name), call.args[0], primfunc_name_hint=name)

    register_legalize(op_name)(legalize)
    ctor.__name__ = name
    ctor.__doc__ = f"Elementwise {name} of x."
    return ctor


exp = _make("exp")
log = _make("log")
sqrt = _make("sqrt")
rsqrt = _make("rsqrt")
tanh = _make("tanh")
sigmoid = _make("sigmoid")
negative = _make("negative")
abs = _make("abs")  # pylint: disable=redefined-builtin

__all__ = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "negative", "abs"]
