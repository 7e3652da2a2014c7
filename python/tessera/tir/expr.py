"""TIR expressions (``tvm.tir``) with Python operator overloading.

``a + b``, ``a * 2``, ``a // 4``, ``a % 4``, ``a < b`` build expressions
through the C++ builders, which promote types as TVM does (int -> float,
narrow -> wide) and fold constants.  ``a == b`` gives an object that acts
as the EQ expression where an expression is expected and as identity
comparison in ``if``/dict lookups, as in TVM.
"""
from .. import _core
from .._ffi.registry import register_object
from ..error import TVMTypeError, TVMValueError
from ..ir.expr import PrimExpr, Range
from ..ir.base import Node
from . import _ffi_api


def _dtype_is_int(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    dtype = getattr(value, "dtype", None)
    return isinstance(dtype, str) and (dtype.startswith("int") or dtype.startswith("uint"))


def div_ambiguity_error():
    return TVMTypeError(
        "TVM supports multiple types of integer divisions, please call div, indexdiv/indexmod, "
        "floordiv/floormod or truncdiv/truncmod directly to avoid ambiguity in the code.")


class ExprOp:
    """Operator overloading shared by every PrimExpr class."""

    def __add__(self, other):
        return _ffi_api._OpAdd(self, other)

    def __radd__(self, other):
        return _ffi_api._OpAdd(other, self)

    def __sub__(self, other):
        return _ffi_api._OpSub(self, other)

    def __rsub__(self, other):
        return _ffi_api._OpSub(other, self)

    def __mul__(self, other):
        return _ffi_api._OpMul(self, other)

    def __rmul__(self, other):
        return _ffi_api._OpMul(other, self)

    def __truediv__(self, other):
        if _dtype_is_int(self) and _dtype_is_int(other):
            raise div_ambiguity_error()
        return _ffi_api._OpDiv(self, other)

    def __rtruediv__(self, other):
        if _dtype_is_int(self) and _dtype_is_int(other):
            raise div_ambiguity_error()
        return _ffi_api._OpDiv(other, self)

    def __floordiv__(self, other):
        return _ffi_api._OpFloorDiv(self, other)

    def __rfloordiv__(self, other):
        return _ffi_api._OpFloorDiv(other, self)

    def __mod__(self, other):
        return _ffi_api._OpFloorMod(self, other)

    def __rmod__(self, other):
        return _ffi_api._OpFloorMod(other, self)

    def __pow__(self, other):
        return _ffi_api._OpPow(self, other)

    def __rpow__(self, other):
        return _ffi_api._OpPow(other, self)

    def __neg__(self):
        return _ffi_api._OpNeg(self)

    def __invert__(self):
        return _ffi_api._OpBitwiseNot(self)

    def __lshift__(self, other):
        return _ffi_api._OpShiftLeft(self, other)

    def __rlshift__(self, other):
        return _ffi_api._OpShiftLeft(other, self)

    def __rshift__(self, other):
        return _ffi_api._OpShiftRight(self, other)

    def __rrshift__(self, other):
        return _ffi_api._OpShiftRight(other, self)

    def __and__(self, other):
        return _ffi_api._OpBitwiseAnd(self, other)

    def __rand__(self, other):
        return _ffi_api._OpBitwiseAnd(other, self)

    def __or__(self, other):
        return _ffi_api._OpBitwiseOr(self, other)

    def __ror__(self, other):
        return _ffi_api._OpBitwiseOr(other, self)

    def __xor__(self, other):
        return _ffi_api._OpBitwiseXor(self, other)

    def __rxor__(self, other):
        return _ffi_api._OpBitwiseXor(other, self)

    def __lt__(self, other):
        return _ffi_api._OpLT(self, other)

    def __le__(self, other):
        return _ffi_api._OpLE(self, other)

    def __gt__(self, other):
        return _ffi_api._OpGT(self, other)

    def __ge__(self, other):
        return _ffi_api._OpGE(self, other)

    def __eq__(self, other):
        return EqualOp(self, other)

    def __ne__(self, other):
        return NotEqualOp(self, other)

    def __bool__(self):
        raise TVMValueError(
            "Cannot use and / or / not operator to Expr, hint: use tvm.tir.all / tvm.tir.any instead")

    __hash__ = _core.Object.__hash__

    def equal(self, other):
        """The EQ expression ``self == other``."""
        return _ffi_api._OpEQ(self, other)

    def astype(self, dtype, span=None):  # pylint: disable=unused-argument
        """Casts to ``dtype`` (constants fold)."""
        return _ffi_api._cast(dtype, self)


class _CompareOp:
    """Result of ``==``/``!=`` on expressions: an expression where one is
    expected (``asobject``), identity comparison under ``bool()``."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __bool__(self):
        same = _same(self.a, self.b)
        return same if self._is_eq else not same

    def asobject(self):
        return _ffi_api._OpEQ(self.a, self.b) if self._is_eq else _ffi_api._OpNE(self.a, self.b)

    def __repr__(self):
        return repr(self.asobject())


def _same(a, b):
    if isinstance(a, _core.Object):
        return a.same_as(b)
    if isinstance(b, _core.Object):
        return b.same_as(a)
    return a == b


class EqualOp(_CompareOp):
    _is_eq = True


class NotEqualOp(_CompareOp):
    _is_eq = False


class PrimExprWithOp(ExprOp, PrimExpr):
    """A PrimExpr with operators."""


@register_object("tir.Var")
class Var(PrimExprWithOp):
    """A scalar variable ``Var(name, dtype)``; identity matters, names are hints."""

    def __init__(self, name, dtype, span=None):  # pylint: disable=unused-argument
        from ..ir.type import PointerType  # pylint: disable=import-outside-toplevel

        if isinstance(dtype, PointerType):  # a handle typed by what it points to, as in TVM
            self.__init_handle_by_constructor__(_ffi_api.VarWithTypeAnnotation, name, dtype)
            return
        self.__init_handle_by_constructor__(_ffi_api.Var, name, str(dtype))

    @property
    def name(self):
        """The name hint (TVM's ``Var.name``)."""
        return self.name_hint

    def __repr__(self):
        return self.name_hint


@register_object("tir.SizeVar")
class SizeVar(Var):
    """A variable known to be non-negative (a shape dimension)."""

    def __init__(self, name, dtype, span=None):  # pylint: disable=unused-argument,super-init-not-called
        self.__init_handle_by_constructor__(_ffi_api.SizeVar, name, str(dtype))


class ConstExpr(PrimExprWithOp):
    """Base of immediates."""


@register_object("ir.IntImm")
class IntImm(ConstExpr):
    """An integer (or bool) constant ``IntImm(dtype, value)``."""

    def __init__(self, dtype, value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_core_ffi("ir.IntImm"), str(dtype), int(value))

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __float__(self):
        return float(self.value)

    def __bool__(self):
        return self.value != 0

    def __eq__(self, other):
        return EqualOp(self, other)

    def __ne__(self, other):
        return NotEqualOp(self, other)

    __hash__ = _core.Object.__hash__

    def __repr__(self):
        return str(self.value) if self.dtype == "int32" else f"T.{self.dtype}({self.value})"


@register_object("ir.FloatImm")
class FloatImm(ConstExpr):
    """A floating-point constant ``FloatImm(dtype, value)``."""

    def __init__(self, dtype, value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_core_ffi("ir.FloatImm"), str(dtype), float(value))

    def __float__(self):
        return self.value

    def __repr__(self):
        return f"T.{self.dtype}({self.value})"


@register_object("tir.StringImm")
class StringImm(ConstExpr):
    """A string constant (e.g. the name in call_extern)."""

    def __init__(self, value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.StringImm, value)

    def __eq__(self, other):
        if isinstance(other, ConstExpr):
            return self.value == other.value
        return self.value == other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = _core.Object.__hash__


@register_object("tir.Cast")
class Cast(PrimExprWithOp):
    """``Cast(dtype, value)``."""

    def __init__(self, dtype, value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Cast, str(dtype), value)


@register_object("tir.BinaryOp")
class BinaryOpExpr(PrimExprWithOp):
    """Base of binary nodes (fields ``a`` and ``b``)."""


def _binary(name, key):
    def __init__(self, a, b, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(getattr(_ffi_api, name), a, b)

    cls = type(name, (BinaryOpExpr,), {"__init__": __init__, "__doc__": f"The ``{key}`` node ({name}(a, b))."})
    cls.__module__ = __name__
    return register_object(key)(cls)


Add = _binary("Add", "tir.Add")
Sub = _binary("Sub", "tir.Sub")
Mul = _binary("Mul", "tir.Mul")
Div = _binary("Div", "tir.Div")
Mod = _binary("Mod", "tir.Mod")
FloorDiv = _binary("FloorDiv", "tir.FloorDiv")
FloorMod = _binary("FloorMod", "tir.FloorMod")
Min = _binary("Min", "tir.Min")
Max = _binary("Max", "tir.Max")
EQ = _binary("EQ", "tir.EQ")
NE = _binary("NE", "tir.NE")
LT = _binary("LT", "tir.LT")
LE = _binary("LE", "tir.LE")
GT = _binary("GT", "tir.GT")
GE = _binary("GE", "tir.GE")
And = _binary("And", "tir.And")
Or = _binary("Or", "tir.Or")


@register_object("tir.Not")
class Not(PrimExprWithOp):
    def __init__(self, a, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Not, a)


@register_object("tir.Select")
class Select(PrimExprWithOp):
    """``Select(condition, true_value, false_value)``: both sides are evaluated."""

    def __init__(self, condition, true_value, false_value, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Select, condition, true_value, false_value)


@register_object("tir.Let")
class Let(PrimExprWithOp):
    def __init__(self, var, value, body, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Let, var, value, body)


@register_object("tir.Ramp")
class Ramp(PrimExprWithOp):
    """``Ramp(base, stride, lanes)``: the vector base + stride * [0, lanes)."""

    def __init__(self, base, stride, lanes, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Ramp, base, stride, int(lanes))


@register_object("tir.Broadcast")
class Broadcast(PrimExprWithOp):
    def __init__(self, value, lanes, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Broadcast, value, int(lanes))


@register_object("tir.Call")
class Call(PrimExprWithOp):
    """``Call(dtype, op, args)``; ``op`` is an Op, an op name ("tir.exp") or a GlobalVar."""

    def __init__(self, dtype, op, args, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Call, str(dtype), op, list(args))


@register_object("tir.BufferLoad")
class BufferLoad(PrimExprWithOp):
    """``BufferLoad(buffer, indices)``: ``buffer[indices]``."""

    def __init__(self, buffer, indices, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.BufferLoad, buffer, list(indices))


@register_object("tir.IterVar")
class IterVar(Node):
    """A variable with a domain and an iteration kind (``iter_type``)."""

    DataPar = 0
    ThreadIndex = 1
    CommReduce = 2
    Ordered = 3
    DimInfo = 4
    Opaque = 4
    Unrolled = 5
    Vectorized = 6
    Parallelized = 7
    Tensorized = 8

    def __init__(self, dom, var, iter_type, thread_tag="", span=None):  # pylint: disable=unused-argument
        if dom is not None and not isinstance(dom, Range):
            if isinstance(dom, (list, tuple)) and len(dom) == 2:
                dom = Range(dom[0], dom[1])
            else:
                raise TVMTypeError(f"IterVar dom must be a Range or a (begin, end) pair, got {dom!r}")
        if isinstance(var, str):
            var = Var(var, "int32" if dom is None else dom.extent.dtype)
        self.__init_handle_by_constructor__(_ffi_api.IterVar, dom, var, int(iter_type), thread_tag)

    __hash__ = _core.Object.__hash__


@register_object("tir.CommReducer")
class CommReducer(Node):
    """A commutative reducer: ``lhs``/``rhs`` variables combined into ``result``, with ``identity_element``
    (TVMScript: ``T.comm_reducer(lambda x, y: x + y, [T.float32(0)])``)."""

    def __init__(self, lhs, rhs, result, identity_element, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_core_ffi("tir.CommReducer"), list(lhs), list(rhs), list(result),
                                            list(identity_element))


def _core_ffi(name):
    from .._ffi.registry import get_global_func  # pylint: disable=import-outside-toplevel

    return get_global_func(name)


__all__ = ["CommReducer", "ExprOp", "PrimExprWithOp", "EqualOp", "NotEqualOp", "Var", "SizeVar", "IntImm", "FloatImm",
           "StringImm", "Cast", "Add", "Sub", "Mul", "Div", "Mod", "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE",
           "LT", "LE", "GT", "GE", "And", "Or", "Not", "Select", "Let", "Ramp", "Broadcast", "Call", "BufferLoad",
           "IterVar", "div_ambiguity_error"]
