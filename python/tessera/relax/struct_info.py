"""Relax structure information (``tvm.relax.StructInfo`` and its kinds):
what is statically known about a value. Nodes are built in C++
(src/relax/struct_info.cc); these classes give them TVM's Python names."""
from .._ffi.registry import register_object
from ..ir.base import Node
from ..ir.expr import PrimExpr
from . import _ffi_api
from ..error import OpNotImplemented, TVMTypeError, TVMValueError


@register_object("relax.StructInfo")
class StructInfo(Node):
    """Base of all struct infos."""

    def is_base_of(self, derived):
        """Whether every value of struct info ``derived`` is one of this struct info."""
        return bool(_ffi_api.StructInfoIsBaseOf(self, derived))

    def __repr__(self):
        return _ffi_api.StructInfoText(self)

    # As TVM's: struct infos compare (and hash) structurally, not by identity.
    def __eq__(self, other):
        from ..ir.structural import structural_equal  # pylint: disable=import-outside-toplevel
        return isinstance(other, StructInfo) and bool(structural_equal(self, other))

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        from ..ir.structural import structural_hash  # pylint: disable=import-outside-toplevel
        return int(structural_hash(self))


def as_struct_info(value):
    """``value`` as a StructInfo when it is a struct info proxy (``R.Tensor((2, 3),
    "float32")`` or ``R.Object`` used in plain Python); any other value unchanged
    (the caller's type check then names it)."""
    if value is None or isinstance(value, StructInfo):
        return value
    if getattr(value, "__tessera_struct_info_maker__", False):  # R.Object / R.Tensor without parentheses
        value = value()
    conv = getattr(value, "as_struct_info", None)
    return conv() if callable(conv) and not isinstance(value, type) else value


@register_object("relax.ObjectStructInfo")
class ObjectStructInfo(StructInfo):
    """Any value."""

    def __init__(self, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.ObjectStructInfo)


@register_object("relax.PrimStructInfo")
class PrimStructInfo(StructInfo):
    """A scalar: ``PrimStructInfo("int64")`` or ``PrimStructInfo(value=n)``."""

    def __init__(self, dtype=None, value=None, span=None):  # pylint: disable=unused-argument
        if isinstance(dtype, PrimExpr) and value is None:
            dtype, value = None, dtype
        if isinstance(value, bool):
            dtype = dtype or "bool"
        elif isinstance(value, int):
            dtype = dtype or "int64"
        elif isinstance(value, float):
            dtype = dtype or "float64"
        self.__init_handle_by_constructor__(_ffi_api.PrimStructInfo, None if dtype is None else str(dtype), value)


@register_object("relax.ShapeStructInfo")
class ShapeStructInfo(StructInfo):
    """A shape: ``ShapeStructInfo([1, n])`` or ``ShapeStructInfo(ndim=2)``."""

    def __init__(self, values=None, ndim=-1, span=None):  # pylint: disable=unused-argument
        if values is not None and not isinstance(values, (list, tuple)) and not hasattr(values, "__len__"):
            raise TVMTypeError(f"ShapeStructInfo: values must be a list of dims, got {type(values).__name__}")
        if values is not None and int(ndim) != -1:  # as TVM: one or the other, even when they agree
            raise TVMValueError("ShapeStructInfo: give values or ndim, not both")
        self.__init_handle_by_constructor__(_ffi_api.ShapeStructInfo,
                                            None if values is None else list(values), int(ndim))


def _as_shape(shape):
    from .expr import ShapeExpr, Expr  # pylint: disable=import-outside-toplevel
    if shape is None or isinstance(shape, Expr):
        return shape
    if isinstance(shape, (list, tuple)) or hasattr(shape, "__len__"):
        return ShapeExpr(list(shape))
    raise TVMTypeError(f"TensorStructInfo: shape must be a list/tuple of dims or a relax Expr, got "
                       f"{type(shape).__name__}")


@register_object("relax.TensorStructInfo")
class TensorStructInfo(StructInfo):
    """A tensor: ``TensorStructInfo((1, n), "float32")``, ``TensorStructInfo(ndim=2, dtype="float32")``."""

    def __init__(self, shape=None, dtype="float32", vdevice=None, ndim=-1, span=None):  # pylint: disable=unused-argument
        from ..ir.global_info import VDevice  # pylint: disable=import-outside-toplevel

        if vdevice is not None and not isinstance(vdevice, VDevice):
            if isinstance(vdevice, str):
                raise OpNotImplemented(f"TensorStructInfo(vdevice={vdevice!r}): a vdevice named by a string refers "
                                       "to a module's global_infos, which Tessera's IRModule does not store; "
                                       "pass a tvm.ir.VDevice")
            raise TVMTypeError(f"TensorStructInfo: vdevice must be a tvm.ir.VDevice or None, got "
                               f"{type(vdevice).__name__}")
        if shape is not None and int(ndim) != -1:  # as TVM: one or the other, even when they agree
            raise TVMValueError("TensorStructInfo: give shape or ndim, not both")
        self.__init_handle_by_constructor__(_ffi_api.TensorStructInfo, _as_shape(shape),
                                            "void" if dtype in (None, "") else str(dtype), int(ndim), vdevice)

    @property
    def dtype(self):
        value = self.__getattr__("dtype")
        text = str(value)
        return "" if text == "void" else text



@register_object("relax.TupleStructInfo")
class TupleStructInfo(StructInfo):
    """A tuple of struct infos."""

    def __init__(self, fields, span=None):  # pylint: disable=unused-argument
        if not isinstance(fields, (list, tuple)) and type(fields).__name__ != "Array":
            raise TVMTypeError(f"TupleStructInfo: fields must be a list of struct infos, got {type(fields).__name__}")
        fields = [as_struct_info(f) for f in fields]
        for i, f in enumerate(fields):
            if not isinstance(f, StructInfo):
                raise TVMTypeError(f"TupleStructInfo: field {i} must be a StructInfo, got {type(f).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.TupleStructInfo, fields)


@register_object("relax.FuncStructInfo")
class FuncStructInfo(StructInfo):
    """A function signature: parameter struct infos, return, purity."""

    def __init__(self, params, ret, purity=True, span=None):  # pylint: disable=unused-argument
        params = [as_struct_info(p) for p in params]
        ret = as_struct_info(ret)
        for i, p in enumerate(params):
            if not isinstance(p, StructInfo):
                raise TVMTypeError(f"FuncStructInfo: parameter {i} must be a StructInfo, got {type(p).__name__}")
        if not isinstance(ret, StructInfo):
            raise TVMTypeError(f"FuncStructInfo: ret must be a StructInfo, got {type(ret).__name__}")
        self.__init_handle_by_constructor__(_ffi_api.FuncStructInfo, params, ret, bool(purity))

    @property
    def derive_func(self):
        """TVM's custom return derivation of an opaque function: Tessera has none (None)."""
        return None

    @staticmethod
    def opaque_func(*, ret=None, derive_func=None, purity=False, span=None):  # pylint: disable=unused-argument
        """A function whose parameters are unknown."""
        if derive_func is not None:
            raise OpNotImplemented("FuncStructInfo.opaque_func(derive_func=...) is not supported")
        return _ffi_api.FuncStructInfoOpaqueFunc(ret, bool(purity))


__all__ = ["as_struct_info", "StructInfo", "ObjectStructInfo", "PrimStructInfo", "ShapeStructInfo", "TensorStructInfo",
           "TupleStructInfo", "FuncStructInfo"]
