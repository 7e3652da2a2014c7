"""Relax types (``relax.ObjectType``, ``ShapeType``, ``DynTensorType`` alias
``TensorType``, ``PackedFuncType``; tuples and functions use tvm.ir's
TupleType / FuncType): the static view of a struct info that
``relax.analysis.get_static_type`` and ``Expr.checked_type`` give
(src/relax/type.cc)."""
from .._ffi.registry import register_object, get_global_func
from ..ir.type import Type, TupleType, FuncType


@register_object("relax.ObjectType")
class ObjectType(Type):
    """Any runtime object."""

    def __init__(self, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(get_global_func("relax.ObjectType"))


@register_object("relax.PackedFuncType")
class PackedFuncType(Type):
    """An opaque (packed) function."""

    def __init__(self, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(get_global_func("relax.PackedFuncType"))


@register_object("relax.ShapeType")
class ShapeType(Type):
    """A shape of ``ndim`` dimensions (-1: unknown)."""

    def __init__(self, ndim=-1, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(get_global_func("relax.ShapeType"), int(ndim))


@register_object("relax.DynTensorType")
class DynTensorType(Type):
    """A tensor of ``ndim`` dimensions (-1: unknown) and ``dtype`` ("" / None: unknown)."""

    def __init__(self, ndim=-1, dtype="float32", span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(get_global_func("relax.DynTensorType"), int(ndim),
                                            "void" if dtype in (None, "") else str(dtype))


TensorType = DynTensorType

__all__ = ["ObjectType", "PackedFuncType", "ShapeType", "DynTensorType", "TensorType", "TupleType", "FuncType"]
