"""Elementwise binary arithmetic with NumPy broadcasting (``topi.add``,
``topi.subtract``, ``topi.multiply``, ``topi.divide``, ``topi.maximum``,
``topi.minimum``), written in TE. Operands may be tensors or scalars."""
from ..error import TVMTypeError, TVMValueError
from ..ir.expr import PrimExpr
from ..tir import op as _tir_op
from ..tir.expr import IntImm
from ..tir import expr as _tir_expr
from ..tir import _ffi_api as _tir_ffi
from .. import te


def _const(d):
    if isinstance(d, IntImm):
        return d.value
    return d if isinstance(d, int) else None


def _is_one(d):
    return _const(d) == 1


def _same_dim(a, b):
    if _const(a) is not None or _const(b) is not None:
        return _const(a) == _const(b)
    return a.same_as(b)


def broadcast_shape(shape_a, shape_b, op_name="broadcast"):
    """The NumPy broadcast of two shapes; raises ValueError naming the op and
    the dimensions that do not broadcast."""
    ndim = max(len(shape_a), len(shape_b))
    a = [None] * (ndim - len(shape_a)) + list(shape_a)
    b = [None] * (ndim - len(shape_b)) + list(shape_b)
    out = []
    for k, (x, y) in enumerate(zip(a, b)):
        if x is None or _is_one(x):
            out.append(y if y is not None else x)
        elif y is None or _is_one(y) or _same_dim(x, y):
            out.append(x)
        else:
            raise TVMValueError(f"topi.{op_name}: shapes {list(shape_a)} and {list(shape_b)} do not broadcast "
                                f"(dimension {k}: {x} vs {y})")
    return out


def _broadcast_index(tensor, out_ndim, indices):
    shape = list(tensor.shape)
    lead = out_ndim - len(shape)
    return [0 if _is_one(d) else indices[lead + k] for k, d in enumerate(shape)]


def _binary(name, fop):
    def op(lhs, rhs):
        lt, rt = isinstance(lhs, te.Tensor), isinstance(rhs, te.Tensor)
        for what, v, is_t in (("lhs", lhs, lt), ("rhs", rhs, rt)):
            if not is_t and (isinstance(v, bool) or not isinstance(v, (int, float, PrimExpr))):
                raise TVMTypeError(f"topi.{name}: {what} must be a te.Tensor or a scalar, got {type(v).__name__}")
        if not lt and not rt:
            return fop(_tir_op.const(lhs) if not isinstance(lhs, PrimExpr) else lhs,
                       _tir_op.const(rhs) if not isinstance(rhs, PrimExpr) else rhs)
        if lt and rt:
            if lhs.dtype != rhs.dtype:
                raise TVMTypeError(f"topi.{name}: operand dtypes differ ({lhs.dtype} vs {rhs.dtype})")
            shape = broadcast_shape(lhs.shape, rhs.shape, name)
            nd = len(shape)
            return te.compute(shape, lambda *i: fop(lhs(*_broadcast_index(lhs, nd, i)),
                                                     rhs(*_broadcast_index(rhs, nd, i))),
                              name="T_" + name, tag="broadcast")
        tensor = lhs if lt else rhs
        scalar = rhs if lt else lhs
        scalar = _tir_op.const(scalar, tensor.dtype) if not isinstance(scalar, PrimExpr) else scalar
        if lt:
            return te.compute(tensor.shape, lambda *i: fop(tensor(*i), scalar), name="T_" + name, tag="elemwise")
        return te.compute(tensor.shape, lambda *i: fop(scalar, tensor(*i)), name="T_" + name, tag="elemwise")

    op.__name__ = name
    op.__doc__ = f"topi.{name}(lhs, rhs): elementwise {name} with NumPy broadcasting."
    return op


add = _binary("add", lambda a, b: a + b)
subtract = _binary("subtract", lambda a, b: a - b)
multiply = _binary("multiply", lambda a, b: a * b)
divide = _binary("divide", lambda a, b: _tir_op.div(a, b))
maximum = _binary("maximum", _tir_op.max)
minimum = _binary("minimum", _tir_op.min)
# Integers: repeated multiplication is not needed; power is defined for floats (as TVM's T.pow).
power = _binary("power", lambda a, b: _pow(a, b))
floor_divide = _binary("floor_divide", lambda a, b: _floor_divide(a, b))
bitwise_and = _binary("bitwise_and", _tir_op.bitwise_and)
bitwise_or = _binary("bitwise_or", _tir_op.bitwise_or)
bitwise_xor = _binary("bitwise_xor", _tir_op.bitwise_xor)
logical_and = _binary("logical_and", lambda a, b: _tir_expr.And(a, b))
logical_or = _binary("logical_or", lambda a, b: _tir_expr.Or(a, b))
logical_xor = _binary("logical_xor", lambda a, b: _tir_expr.NE(a, b))


def _pow(a, b):
    if not str(a.dtype).startswith("float"):
        raise TVMTypeError(f"topi.power: needs floating-point operands, got {a.dtype}")
    return _tir_op.pow(a, b)


def _floor_divide(a, b):
    if str(a.dtype).startswith(("int", "uint")):
        return _tir_op.floordiv(a, b)
    return _tir_op.floor(_tir_op.div(a, b))

def _shift(name, fop):
    def shift(a, b):
        if not str(a.dtype).startswith(("int", "uint")):
            raise TVMTypeError(f"topi.{name}: needs integer operands, got {a.dtype}")
        return fop(a, b)
    return shift


# Bit shifts of integers (TVM's topi.left_shift / right_shift).
left_shift = _binary("left_shift", _shift("left_shift", _tir_op.shift_left))
right_shift = _binary("right_shift", _shift("right_shift", _tir_op.shift_right))

# Comparisons give bool tensors.
equal = _binary("equal", lambda a, b: _tir_op_eq(a, b))
not_equal = _binary("not_equal", lambda a, b: _tir_op_ne(a, b))
less = _binary("less", lambda a, b: a < b)
less_equal = _binary("less_equal", lambda a, b: a <= b)
# Written as TVM's TOPI writes them (b < a, b <= a), so legalized TIR matches TVM's.
greater = _binary("greater", lambda a, b: b < a)
greater_equal = _binary("greater_equal", lambda a, b: b <= a)


def _tir_op_eq(a, b):
    return _tir_ffi._OpEQ(a, b)


def _tir_op_ne(a, b):
    return _tir_ffi._OpNE(a, b)


def where(condition, x, y):
    """``condition ? x : y`` elementwise with broadcasting over all three tensors."""
    for what, v in (("condition", condition), ("x", x), ("y", y)):
        if not isinstance(v, te.Tensor):
            raise TVMTypeError(f"topi.where: {what} must be a te.Tensor, got {type(v).__name__}")
    if x.dtype != y.dtype:
        raise TVMTypeError(f"topi.where: x and y dtypes differ ({x.dtype} vs {y.dtype})")
    shape = broadcast_shape(broadcast_shape(condition.shape, x.shape, "where"), y.shape, "where")
    nd = len(shape)

    def fcompute(*i):
        c = condition(*_broadcast_index(condition, nd, i))
        if c.dtype != "bool":
            c = _tir_ffi._OpNE(c, _tir_op.const(0, c.dtype))
        return _tir_op.if_then_else(c, x(*_broadcast_index(x, nd, i)), y(*_broadcast_index(y, nd, i)))

    return te.compute(shape, fcompute, name="T_where", tag="broadcast")


__all__ = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "floor_divide", "left_shift",
           "right_shift", "bitwise_and", "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor",
           "broadcast_shape", "equal", "not_equal",
           "less", "less_equal", "greater", "greater_equal", "where"]
