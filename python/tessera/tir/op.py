"""TIR operators as functions (``tvm.tir.exp``, ``floordiv``, ``if_then_else``...)."""
from .. import _core
from . import _ffi_api
from .expr import PrimExprWithOp, StringImm
from ..error import TVMValueError


def const(value, dtype=None, span=None):  # pylint: disable=unused-argument
    """A constant: int -> int32, float -> float32, bool -> bool unless ``dtype`` is given."""
    if dtype is None:
        dtype = "bool" if isinstance(value, bool) else "int32" if isinstance(value, int) else "float32"
    if isinstance(value, bool):
        value = int(value)
    return _ffi_api._const(value, str(dtype))


def _math(name):
    def f(x, span=None):  # pylint: disable=unused-argument
        return _ffi_api._UnaryMath(name, x)

    f.__name__ = name
    f.__doc__ = f"Elementwise {name} (tir.{name}); integer inputs are cast to float32."
    return f


exp = _math("exp")
exp2 = _math("exp2")
exp10 = _math("exp10")
log = _math("log")
log2 = _math("log2")
log10 = _math("log10")
log1p = _math("log1p")
sqrt = _math("sqrt")
rsqrt = _math("rsqrt")
tanh = _math("tanh")
sigmoid = _math("sigmoid")
erf = _math("erf")
floor = _math("floor")
ceil = _math("ceil")
round = _math("round")  # pylint: disable=redefined-builtin
nearbyint = _math("nearbyint")
trunc = _math("trunc")
sin = _math("sin")
cos = _math("cos")
tan = _math("tan")
asin = _math("asin")
acos = _math("acos")
atan = _math("atan")
sinh = _math("sinh")
cosh = _math("cosh")
isnan = _math("isnan")
isinf = _math("isinf")
isfinite = _math("isfinite")


def fabs(x, span=None):  # pylint: disable=unused-argument
    return _ffi_api._UnaryMath("fabs", x)


def abs(x, span=None):  # pylint: disable=redefined-builtin,unused-argument
    """|x|: fabs for floats, the identity for unsigned integers, x >= 0 ? x : -x
    for signed integers (src/tir/op.cc)."""
    return _ffi_api._OpAbs(_to_expr(x))


def pow(x, y, span=None):  # pylint: disable=redefined-builtin,unused-argument
    return _ffi_api._OpPow(x, y)


power = pow


def _to_expr(x):
    return x if isinstance(x, _core.Object) else const(x)


def max(a, b, span=None):  # pylint: disable=redefined-builtin,unused-argument
    """Elementwise maximum of two expressions."""
    return _ffi_api._OpMax(a, b)


def min(a, b, span=None):  # pylint: disable=redefined-builtin,unused-argument
    """Elementwise minimum of two expressions."""
    return _ffi_api._OpMin(a, b)


def floordiv(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpFloorDiv(a, b)


def floormod(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpFloorMod(a, b)


def truncdiv(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpTruncDiv(a, b)


def truncmod(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpTruncMod(a, b)


indexdiv = floordiv
indexmod = floormod


def div(a, b, span=None):  # pylint: disable=unused-argument
    """``a / b``: truncating for integers."""
    return _ffi_api._OpDiv(a, b)


def if_then_else(cond, t, f, span=None):  # pylint: disable=unused-argument
    """``cond ? t : f`` evaluating only the taken branch."""
    return _ffi_api._OpIfThenElse(cond, t, f)


def all(*args, span=None):  # pylint: disable=redefined-builtin,unused-argument
    """Logical and of all arguments."""
    if not args:
        raise TVMValueError("tir.all needs at least one argument")
    out = args[0]
    for a in args[1:]:
        out = _ffi_api._OpAnd(out, a)
    return _ffi_api._OpAnd(out, True) if len(args) == 1 else out


def any(*args, span=None):  # pylint: disable=redefined-builtin,unused-argument
    """Logical or of all arguments."""
    if not args:
        raise TVMValueError("tir.any needs at least one argument")
    out = args[0]
    for a in args[1:]:
        out = _ffi_api._OpOr(out, a)
    return out


def call_intrin(dtype, func_name, *args, span=None):  # pylint: disable=unused-argument
    """A call of intrinsic op ``func_name`` ("tir.exp" or "exp")."""
    name = func_name if "." in func_name else "tir." + func_name
    return _ffi_api._CallIntrin(str(dtype), name, list(args))


def call_extern(dtype, func_name, *args, span=None):  # pylint: disable=unused-argument
    """A call of the external C function ``func_name``."""
    return _ffi_api._CallIntrin(str(dtype), "tir.call_extern", [StringImm(func_name), *args])


def call_pure_extern(dtype, func_name, *args, span=None):  # pylint: disable=unused-argument
    return _ffi_api._CallIntrin(str(dtype), "tir.call_pure_extern", [StringImm(func_name), *args])


def call_packed(func_name, *args, span=None):  # pylint: disable=unused-argument
    return _ffi_api._CallIntrin("int32", "tir.call_packed", [StringImm(func_name), *args])


def likely(cond, span=None):  # pylint: disable=unused-argument
    return _ffi_api._CallIntrin("bool", "tir.likely", [cond])


def max_value(dtype, span=None):  # pylint: disable=unused-argument
    return _ffi_api.max_value(str(dtype))


def min_value(dtype, span=None):  # pylint: disable=unused-argument
    return _ffi_api.min_value(str(dtype))


def bitwise_and(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpBitwiseAnd(a, b)


def bitwise_or(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpBitwiseOr(a, b)


def bitwise_xor(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpBitwiseXor(a, b)


def bitwise_not(a, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpBitwiseNot(a)


def shift_left(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpShiftLeft(a, b)


def shift_right(a, b, span=None):  # pylint: disable=unused-argument
    return _ffi_api._OpShiftRight(a, b)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("PrimExprWithOp",)]
