"""Elementwise unary Relax ops (``relax.op.exp``, ``sin`` ..., ``clip``): constructors of calls of
the ops registered in src/relax/op/unary.cc (struct-info inference there) and
their legalization to TOPI ("FLegalize"), one place per op."""
from ...ir.op import Op
from ..expr import Call, Expr, PrimValue
from ...ir.expr import PrimExpr
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
sin = _make("sin")
cos = _make("cos")
tan = _make("tan")
asin = _make("asin")
acos = _make("acos")
atan = _make("atan")
sinh = _make("sinh")
cosh = _make("cosh")
asinh = _make("asinh")
acosh = _make("acosh")
atanh = _make("atanh")
ceil = _make("ceil")
floor = _make("floor")
round = _make("round")  # pylint: disable=redefined-builtin
trunc = _make("trunc")
sign = _make("sign")
square = _make("square")
erf = _make("erf")
isnan = _make("isnan")
isinf = _make("isinf")
isfinite = _make("isfinite")
bitwise_not = _make("bitwise_not")
logical_not = _make("logical_not")


def clip(x, min, max):  # pylint: disable=redefined-builtin
    """min(max(x, min), max) elementwise; min and max are scalars (PrimValue, int, float)."""
    if not isinstance(x, Expr):
        raise TVMTypeError(f"relax.clip: operand 'x' must be a relax Expr, got {type(x).__name__}")
    bounds = []
    for what, v in (("min", min), ("max", max)):
        if not isinstance(v, PrimValue):
            if isinstance(v, bool) or not isinstance(v, (int, float, PrimExpr)):
                raise TVMTypeError(f"relax.clip: operand '{what}' must be a number or PrimValue, "
                                   f"got {type(v).__name__}")
            v = PrimValue(v)
        bounds.append(v)
    return Call(Op.get("relax.clip"), [x, *bounds])


@register_legalize("relax.clip")
def _legalize_clip(bb, call):
    from ... import topi  # pylint: disable=import-outside-toplevel
    from ...tir.expr import IntImm, FloatImm  # pylint: disable=import-outside-toplevel
    lo, hi = (b.value for b in call.args[1:])
    lo, hi = (v.value if isinstance(v, (IntImm, FloatImm)) else v for v in (lo, hi))
    return bb.call_te(topi.clip, call.args[0], lo, hi, primfunc_name_hint="clip")

__all__ = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "negative", "abs", "sin", "cos", "tan", "asin",
           "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "clip", "ceil", "floor", "round", "trunc", "sign",
           "square", "erf", "isnan", "isinf", "isfinite", "bitwise_not", "logical_not"]
