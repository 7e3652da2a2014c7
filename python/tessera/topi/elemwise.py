"""Unary elementwise operators written in TE: math functions (exp, log,
sqrt, rsqrt, tanh, sigmoid, erf, abs, the trigonometric and hyperbolic
functions, rounding, sign, square, the NaN/inf predicates, bitwise_not,
logical_not), negative, clip and cast."""
from ..error import TVMTypeError, TVMValueError
from ..ir.expr import PrimExpr
from ..tir import op as _tir_op
from ..tir import expr as _tir_expr
from .. import te


def _check(name, x):
    if not isinstance(x, te.Tensor):
        raise TVMTypeError(f"topi.{name}: expected a te.Tensor, got {type(x).__name__}")


def _unary(name, fn, float_only=True):
    def op(x):
        _check(name, x)
        if float_only and not str(x.dtype).startswith(("float", "bfloat")):
            raise TVMTypeError(f"topi.{name}: needs a floating-point tensor, got {x.name} of dtype {x.dtype}")
        return te.compute(x.shape, lambda *i: fn(x(*i)), name="T_" + name, tag="elemwise")

    op.__name__ = name
    op.__doc__ = f"topi.{name}(x): elementwise {name}."
    return op


exp = _unary("exp", _tir_op.exp)
log = _unary("log", _tir_op.log)
sqrt = _unary("sqrt", _tir_op.sqrt)
rsqrt = _unary("rsqrt", _tir_op.rsqrt)
tanh = _unary("tanh", _tir_op.tanh)
sigmoid = _unary("sigmoid", _tir_op.sigmoid)
erf = _unary("erf", _tir_op.erf)
abs = _unary("abs", _tir_op.abs, float_only=False)  # pylint: disable=redefined-builtin
negative = _unary("negative", lambda v: -v, float_only=False)
sin = _unary("sin", _tir_op.sin)
cos = _unary("cos", _tir_op.cos)
tan = _unary("tan", _tir_op.tan)
asin = _unary("asin", _tir_op.asin)
acos = _unary("acos", _tir_op.acos)
atan = _unary("atan", _tir_op.atan)
sinh = _unary("sinh", _tir_op.sinh)
cosh = _unary("cosh", _tir_op.cosh)


def _one(v):
    return _tir_op.const(1, v.dtype)


# The inverse hyperbolic functions by their logarithmic forms.
asinh = _unary("asinh", lambda v: _tir_op.log(v + _tir_op.sqrt(v * v + _one(v))))
acosh = _unary("acosh", lambda v: _tir_op.log(v + _tir_op.sqrt(v * v - _one(v))))
atanh = _unary("atanh", lambda v: _tir_op.log((_one(v) + v) / (_one(v) - v)) * _tir_op.const(0.5, v.dtype))


def _is_float(v):
    return str(v.dtype).startswith(("float", "bfloat"))


def _float_or_same(fn):
    """fn on floats; integers are already integral and stay as they are."""
    return lambda v: fn(v) if _is_float(v) else v


def _sign(v):
    zero, one = _tir_op.const(0, v.dtype), _tir_op.const(1, v.dtype)
    return _tir_expr.Select(v > zero, one, _tir_expr.Select(v < zero, -one, zero))


def _predicate(fn, int_value):
    """fn on floats; integers are never NaN or infinite (int_value)."""
    return lambda v: fn(v) if _is_float(v) else _tir_op.const(int_value, "bool")


ceil = _unary("ceil", _float_or_same(_tir_op.ceil), float_only=False)
floor = _unary("floor", _float_or_same(_tir_op.floor), float_only=False)
round = _unary("round", _float_or_same(_tir_op.nearbyint), float_only=False)  # pylint: disable=redefined-builtin
trunc = _unary("trunc", _float_or_same(_tir_op.trunc), float_only=False)
sign = _unary("sign", _sign, float_only=False)
square = _unary("square", lambda v: v * v, float_only=False)
isnan = _unary("isnan", _predicate(_tir_op.isnan, False), float_only=False)
isinf = _unary("isinf", _predicate(_tir_op.isinf, False), float_only=False)
isfinite = _unary("isfinite", _predicate(_tir_op.isfinite, True), float_only=False)
bitwise_not = _unary("bitwise_not", _tir_op.bitwise_not, float_only=False)
logical_not = _unary("logical_not", _tir_expr.Not, float_only=False)


def clip(x, a_min, a_max):
    """min(max(x, a_min), a_max) elementwise."""
    _check("clip", x)
    for what, v in (("a_min", a_min), ("a_max", a_max)):
        if isinstance(v, bool) or not isinstance(v, (int, float, PrimExpr)):
            raise TVMTypeError(f"topi.clip: {what} must be a number, got {type(v).__name__}")
    if isinstance(a_min, (int, float)) and isinstance(a_max, (int, float)) and a_min > a_max:
        raise TVMValueError(f"topi.clip: a_min ({a_min}) is greater than a_max ({a_max})")
    lo = _tir_op.const(a_min, x.dtype) if not isinstance(a_min, PrimExpr) else a_min.astype(x.dtype)
    hi = _tir_op.const(a_max, x.dtype) if not isinstance(a_max, PrimExpr) else a_max.astype(x.dtype)
    return te.compute(x.shape, lambda *i: _tir_op.min(_tir_op.max(x(*i), lo), hi), name="T_clip", tag="elemwise")


def cast(x, dtype):
    """x converted to ``dtype`` elementwise."""
    _check("cast", x)
    return te.compute(x.shape, lambda *i: x(*i).astype(str(dtype)), name="T_cast", tag="elemwise")


__all__ = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "abs", "negative", "clip", "cast",
           "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
           "ceil", "floor", "round", "trunc", "sign", "square", "isnan", "isinf", "isfinite", "bitwise_not",
           "logical_not"]
