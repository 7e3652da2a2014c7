"""Elementwise binary Relax ops (``relax.op.add`` ...): constructors of calls of
the ops registered in src/relax/op/binary.cc (struct-info inference there) and
their legalization to TOPI ("FLegalize"), one place per op; an operand may be
a scalar R.Prim."""
from ...ir.op import Op
from ..expr import Call, Expr
from ._legalize_registry import register_legalize
from ._binary_legalize import legalize_binary
from ...error import TVMTypeError


def _make(name, topi_name):
    op_name = "relax." + name

    def ctor(x1, x2):
        for operand, v in (("x1", x1), ("x2", x2)):
            if not isinstance(v, Expr):
                raise TVMTypeError(f"{op_name}: operand {operand!r} must be a relax Expr, got {type(v).__name__}")
        return Call(Op.get(op_name), [x1, x2])

    ctor.__name__ = name
    ctor.__doc__ = f"Elementwise {name} of x1 and x2 with NumPy broadcasting."
    if topi_name is not None:
        def legalize(bb, call):
            from ... import topi  # pylint: disable=import-outside-toplevel
            return legalize_binary(bb, call, getattr(topi, topi_name), name)
        register_legalize(op_name)(legalize)
    return ctor


add = _make("add", "add")
subtract = _make("subtract", "subtract")
multiply = _make("multiply", "multiply")
divide = _make("divide", "divide")
maximum = _make("maximum", "maximum")
minimum = _make("minimum", "minimum")
floor_divide = _make("floor_divide", "floor_divide")
power = _make("power", "power")
bitwise_and = _make("bitwise_and", "bitwise_and")
bitwise_or = _make("bitwise_or", "bitwise_or")
bitwise_xor = _make("bitwise_xor", "bitwise_xor")
logical_and = _make("logical_and", "logical_and")
logical_or = _make("logical_or", "logical_or")
logical_xor = _make("logical_xor", "logical_xor")

__all__ = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "floor_divide", "power", "bitwise_and",
           "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor"]
