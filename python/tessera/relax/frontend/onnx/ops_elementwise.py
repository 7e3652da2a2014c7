"""ONNX elementwise operators: arithmetic (folded at import time on Known values, so
shape arithmetic stays symbolic), comparisons and logic, unary math, activations
(Relu ... Gelu, Clip), Where, Cast / CastLike, Identity, Dropout, Constant. One
``@register`` per operator; they emit the high-level Relax ops."""
# pylint: disable=unused-argument
import numpy as np

from .... import te, tir
from ....ir import PrimExpr
from ... import op as _op
from ...expr import const
from ..common import emit_clamp, emit_hard_sigmoid, emit_hard_swish, emit_leaky_relu
from .registry import register
from .values import Known, simplify


def _elementwise(fn, *arrays):
    """``fn`` applied elementwise over broadcast arrays of Python ints / PrimExprs."""
    result = np.frompyfunc(lambda *v: simplify(fn(*v)), len(arrays), 1)(*arrays)
    if not isinstance(result, np.ndarray):  # a 0-d result comes back as the element
        boxed = np.empty((), dtype=object)
        boxed[()] = result
        return boxed
    return result


def _trunc_div(a, b):
    if isinstance(a, PrimExpr) or isinstance(b, PrimExpr):
        return tir.floordiv(a, b)  # shape arithmetic: non-negative operands
    q = abs(int(a)) // abs(int(b))
    return q if (a >= 0) == (b >= 0) else -q


_FOLD = {
    "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
}


def _fold(op_type, a, b, dtype):
    if not (a.symbolic or b.symbolic):
        x, y = a.numeric(), b.numeric()
        if op_type == "Div":
            if dtype.startswith(("int", "uint")):
                return Known(_elementwise(_trunc_div, x.astype(object), y.astype(object)).astype(dtype), dtype)
            return Known(np.asarray(x / y).astype(dtype), dtype)
        if op_type == "Pow":
            return Known(np.power(x, y).astype(dtype), dtype)
        return Known(np.asarray(_FOLD[op_type](x, y)).astype(dtype), dtype)
    if op_type == "Pow":
        return None
    fn = _trunc_div if op_type == "Div" else _FOLD[op_type]
    return Known(_elementwise(fn, a.array.astype(object), b.array.astype(object)), dtype)


_RELAX_BINARY = {"Add": "add", "Sub": "subtract", "Mul": "multiply", "Div": "divide", "Pow": "power"}


@register("Add", "Sub", "Mul", "Div", "Pow")
def _binary(ctx, inputs, attrs):
    a, b = inputs
    op_type = ctx.node.op_type
    if ctx.opset < 7 and attrs.get("broadcast", 0) and "axis" in attrs:
        raise ctx.unsupported("the legacy broadcast axis attribute")
    dtype = ctx.vdtype(a, "A")
    if isinstance(a, Known) and isinstance(b, Known):
        folded = _fold(op_type, a, b, dtype)
        if folded is not None:
            return folded
    lhs, rhs = ctx.expr(a, "A"), ctx.expr(b, "B")
    if op_type == "Pow" and ctx.dtype(rhs) != dtype:
        rhs = ctx.emit(_op.astype(rhs, dtype))
    name = _RELAX_BINARY[op_type]
    if op_type == "Div" and dtype.startswith(("int", "uint")):
        name = "floor_divide"  # see docs/frontend.md: integer division of negative operands
    return ctx.emit(getattr(_op, name)(lhs, rhs))


_COMPARE = {"Equal": ("equal", np.equal), "Less": ("less", np.less), "Greater": ("greater", np.greater),
            "LessOrEqual": ("less_equal", np.less_equal), "GreaterOrEqual": ("greater_equal", np.greater_equal)}


@register(*_COMPARE)
def _compare(ctx, inputs, attrs):
    a, b = inputs
    name, np_fn = _COMPARE[ctx.node.op_type]
    if isinstance(a, Known) and isinstance(b, Known):
        if not (a.symbolic or b.symbolic):
            return Known(np_fn(a.numeric(), b.numeric()), "bool")
        if ctx.node.op_type == "Equal":
            # a symbolic dimension is never negative: equal to a negative constant is False
            def eq(x, y):
                if isinstance(x, PrimExpr) and not isinstance(y, PrimExpr) and y < 0:
                    return False
                if isinstance(y, PrimExpr) and not isinstance(x, PrimExpr) and x < 0:
                    return False
                diff = simplify(x - y)
                if isinstance(diff, PrimExpr):
                    raise ctx.unsupported(f"comparing the symbolic dimensions {x} and {y}")
                return diff == 0
            return Known(np.frompyfunc(eq, 2, 1)(a.array.astype(object), b.array.astype(object)).astype(bool),
                         "bool")
    return ctx.emit(getattr(_op, name)(ctx.expr(a, "A"), ctx.expr(b, "B")))


@register("Not")
def _not(ctx, inputs, attrs):
    (x,) = inputs
    if isinstance(x, Known) and not x.symbolic:
        return Known(np.logical_not(x.numeric()), "bool")
    return ctx.emit(_op.equal(ctx.expr(x), const(False, "bool")))


@register("And", "Or", "Xor")
def _logic(ctx, inputs, attrs):
    a, b = inputs
    op_type = ctx.node.op_type
    if isinstance(a, Known) and isinstance(b, Known):
        fn = {"And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor}[op_type]
        return Known(fn(a.numeric(), b.numeric()), "bool")
    a, b = ctx.expr(a, "A"), ctx.expr(b, "B")
    if op_type == "And":
        return ctx.emit(_op.where(a, b, const(False, "bool")))
    if op_type == "Or":
        return ctx.emit(_op.where(a, const(True, "bool"), b))
    return ctx.emit(_op.not_equal(a, b))


@register("Where")
def _where(ctx, inputs, attrs):
    cond, x, y = inputs
    if all(isinstance(v, Known) for v in inputs):
        if not any(v.symbolic for v in inputs):
            return Known(np.where(cond.numeric(), x.numeric(), y.numeric()).astype(x.dtype), x.dtype)
        return Known(np.where(cond.numeric(), x.array.astype(object), y.array.astype(object)), x.dtype)
    return ctx.emit(_op.where(ctx.expr(cond, "condition"), ctx.expr(x, "X"), ctx.expr(y, "Y")))


# -- unary math ----------------------------------------------------------------------------
_UNARY = {"Relu": lambda x: _op.nn.relu(x), "Sigmoid": _op.sigmoid, "Tanh": _op.tanh, "Exp": _op.exp,
          "Log": _op.log, "Sqrt": _op.sqrt, "Neg": _op.negative, "Abs": _op.abs}
_NP_UNARY = {"Neg": np.negative, "Abs": np.abs, "Sqrt": np.sqrt, "Exp": np.exp, "Log": np.log,
             "Relu": lambda x: np.maximum(x, 0)}


@register(*_UNARY)
def _unary(ctx, inputs, attrs):
    (x,) = inputs
    op_type = ctx.node.op_type
    if isinstance(x, Known) and op_type in _NP_UNARY:
        if x.symbolic:
            if op_type == "Neg":
                return Known(_elementwise(lambda v: -v, x.array), x.dtype)
        else:
            return Known(np.asarray(_NP_UNARY[op_type](x.numeric())).astype(x.dtype), x.dtype)
    return ctx.emit(_UNARY[op_type](ctx.expr(x)))


def emit_te_unary(ctx, x, fn, name):
    """An elementwise op with no Relax operator: a TE compute of ``fn`` per element."""
    def compute(data):
        return te.compute(data.shape, lambda *i: fn(data(*i)), name=name)
    return ctx.bb.emit_te(compute, ctx.expr(x), primfunc_name_hint=name)


def _one(x):
    return tir.const(1.0, x.dtype)


_TE_UNARY = {"Erf": te.erf, "Floor": te.floor, "Ceil": te.ceil, "Round": te.nearbyint, "Sin": te.sin,
             "Cos": te.cos, "Tan": tir.tan, "Sinh": tir.sinh, "Cosh": tir.cosh, "Asin": tir.asin, "Acos": tir.acos,
             "Atan": tir.atan,
             "Asinh": lambda x: te.log(x + te.sqrt(x * x + _one(x))),
             "Acosh": lambda x: te.log(x + te.sqrt(x * x - _one(x))),
             "Atanh": lambda x: tir.const(0.5, x.dtype) * te.log((_one(x) + x) / (_one(x) - x)),
             "Sign": lambda x: tir.Select(x > tir.const(0, x.dtype), tir.const(1, x.dtype),
                                          tir.Select(x < tir.const(0, x.dtype), tir.const(-1, x.dtype),
                                                     tir.const(0, x.dtype))),
             "Softsign": lambda x: x / (_one(x) + te.abs(x))}


@register(*_TE_UNARY)
def _te_unary(ctx, inputs, attrs):
    return emit_te_unary(ctx, inputs[0], _TE_UNARY[ctx.node.op_type], ctx.node.op_type.lower())


def _scalar(ctx, value, dtype):
    return const(np.asarray(value, dtype=dtype), dtype)


def _attr_unary(op_type, x, attrs):
    """Elementwise ops with float attributes, as TE expressions of one element."""
    dtype = x.dtype
    c = lambda v: tir.const(float(v), dtype)  # noqa: E731
    zero = c(0)
    if op_type == "Elu":
        return tir.Select(x < zero, c(attrs.get("alpha", 1.0)) * (te.exp(x) - c(1)), x)
    if op_type == "Selu":
        alpha, gamma = c(attrs.get("alpha", 1.67326319217681884765625)), c(attrs.get("gamma", 1.05070102214813232421875))
        return gamma * tir.Select(x <= zero, alpha * te.exp(x) - alpha, x)
    if op_type == "Celu":
        alpha = c(attrs.get("alpha", 1.0))
        return tir.max(x, zero) + tir.min(zero, alpha * (te.exp(x / alpha) - c(1)))
    if op_type == "ThresholdedRelu":
        return tir.Select(x > c(attrs.get("alpha", 1.0)), x, zero)
    if op_type == "Shrink":
        lambd, bias = c(attrs.get("lambd", 0.5)), c(attrs.get("bias", 0.0))
        return tir.Select(x < -lambd, x + bias, tir.Select(x > lambd, x - bias, zero))
    # Mish: x * tanh(softplus(x))
    return x * te.tanh(te.log(c(1) + te.exp(x)))


@register("Elu", "Selu", "Celu", "ThresholdedRelu", "Shrink", "Mish")
def _te_attr_unary(ctx, inputs, attrs):
    op_type = ctx.node.op_type
    return emit_te_unary(ctx, inputs[0], lambda v: _attr_unary(op_type, v, attrs), op_type.lower())


@register("IsNaN")
def _isnan(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    return ctx.emit(_op.not_equal(x, x))


@register("IsInf", attr_values={"detect_negative": (0, 1), "detect_positive": (0, 1)})
def _isinf(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    dtype = ctx.dtype(x)
    pos = ctx.emit(_op.equal(x, _scalar(ctx, np.inf, dtype)))
    neg = ctx.emit(_op.equal(x, _scalar(ctx, -np.inf, dtype)))
    want_pos, want_neg = attrs.get("detect_positive", 1), attrs.get("detect_negative", 1)
    if want_pos and want_neg:
        return ctx.emit(_op.where(pos, const(True, "bool"), neg))
    if want_pos:
        return pos
    if want_neg:
        return neg
    return ctx.emit(_op.not_equal(pos, pos))  # neither sign asked for: all False


@register("Reciprocal")
def _reciprocal(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    return ctx.emit(_op.divide(_scalar(ctx, 1, ctx.dtype(x)), x))


@register("LeakyRelu")
def _leaky_relu(ctx, inputs, attrs):
    return emit_leaky_relu(ctx, ctx.expr(inputs[0]), attrs.get("alpha", 0.01))


@register("PRelu")
def _prelu(ctx, inputs, attrs):
    x, slope = ctx.expr(inputs[0], "X"), ctx.expr(inputs[1], "slope")
    xr, sr = ctx.ndim(x), ctx.ndim(slope)
    if sr == 1 and xr >= 2 and ctx.dims(slope)[0] not in (1, ctx.dims(x)[-1]):
        # opset < 9 style per-channel slope: align it with axis 1
        slope = ctx.emit(_op.reshape(slope, [ctx.dims(slope)[0]] + [1] * (xr - 2)))
    return emit_leaky_relu(ctx, x, slope)


@register("HardSigmoid")
def _hard_sigmoid(ctx, inputs, attrs):
    return emit_hard_sigmoid(ctx, ctx.expr(inputs[0]), attrs.get("alpha", 0.2), attrs.get("beta", 0.5))


@register("HardSwish")
def _hard_swish(ctx, inputs, attrs):
    return emit_hard_swish(ctx, ctx.expr(inputs[0]))


@register("Clip")
def _clip(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    if ctx.opset < 11:
        return emit_clamp(ctx, x, attrs.get("min"), attrs.get("max"))
    lo = ctx.expr(inputs[1], "min") if len(inputs) > 1 and inputs[1] is not None else None
    hi = ctx.expr(inputs[2], "max") if len(inputs) > 2 and inputs[2] is not None else None
    return emit_clamp(ctx, x, lo, hi)


@register("Gelu", attr_values={"approximate": ("none", "tanh")})
def _gelu(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    if attrs.get("approximate", "none") == "tanh":
        return ctx.emit(_op.nn.gelu_tanh(x))
    return ctx.emit(_op.nn.gelu(x))


@register("Softplus")
def _softplus(ctx, inputs, attrs):
    x = ctx.expr(inputs[0])
    one = _scalar(ctx, 1, ctx.dtype(x))
    return ctx.emit(_op.log(ctx.emit(_op.add(ctx.emit(_op.exp(x)), one))))


@register("Max", "Min", "Sum", "Mean")
def _variadic(ctx, inputs, attrs):
    op_type = ctx.node.op_type
    name = {"Max": "maximum", "Min": "minimum", "Sum": "add", "Mean": "add"}[op_type]
    values = [ctx.expr(v, f"input {i}") for i, v in enumerate(inputs)]
    result = values[0]
    for v in values[1:]:
        result = ctx.emit(getattr(_op, name)(result, v))
    if op_type == "Mean" and len(values) > 1:
        result = ctx.emit(_op.divide(result, _scalar(ctx, len(values), ctx.dtype(result))))
    return result


# -- dtypes, identity, constants -----------------------------------------------------------
def _dtype_of(ctx, to):
    from .importer import _elem_dtype  # pylint: disable=import-outside-toplevel
    return _elem_dtype(to, f"{ctx.node_desc()}: attribute to={to}")


def cast(ctx, x, dtype):
    if isinstance(x, Known):
        if x.symbolic:
            return Known(x.array, dtype)
        return Known(x.numeric().astype(dtype), dtype)
    if ctx.dtype(x) == dtype:
        return x
    return ctx.emit(_op.astype(x, dtype))


@register("Cast", attr_values={"saturate": (1,)})
def _cast(ctx, inputs, attrs):
    if "to" not in attrs:
        raise ctx.unsupported("Cast without the 'to' attribute")
    return cast(ctx, inputs[0], _dtype_of(ctx, attrs["to"]))


@register("CastLike")
def _cast_like(ctx, inputs, attrs):
    return cast(ctx, inputs[0], ctx.vdtype(inputs[1], "target_type"))


@register("Identity")
def _identity(ctx, inputs, attrs):
    return inputs[0]


@register("Dropout")
def _dropout(ctx, inputs, attrs):
    if len(inputs) > 2 and inputs[2] is not None:
        training = ctx.known(inputs[2])
        if training is None or bool(training.numeric().reshape(-1)[0]):
            raise ctx.unsupported("Dropout in training mode")
    return inputs[0]


@register("Constant", attr_values={"sparse_value": lambda v: False})
def _constant(ctx, inputs, attrs):
    if "value" in attrs:
        array = np.asarray(attrs["value"])
    elif "value_float" in attrs:
        array = np.asarray(attrs["value_float"], dtype="float32")
    elif "value_floats" in attrs:
        array = np.asarray(attrs["value_floats"], dtype="float32")
    elif "value_int" in attrs:
        array = np.asarray(attrs["value_int"], dtype="int64")
    elif "value_ints" in attrs:
        array = np.asarray(attrs["value_ints"], dtype="int64")
    else:
        raise ctx.unsupported(f"Constant with attributes {sorted(attrs)}")
    return Known(array, "bool" if array.dtype == np.bool_ else str(array.dtype))


__all__ = ["cast", "emit_te_unary"]
