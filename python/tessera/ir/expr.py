"""Base expressions (``tvm.ir``): BaseExpr, PrimExpr, Range, GlobalVar."""
from .._ffi.registry import register_object
from .base import Node
from . import _ffi_api
from ..error import OpNotImplemented


@register_object("ir.BaseExpr")
class BaseExpr(Node):
    """Base class of all expressions."""


@register_object("ir.PrimExpr")
class PrimExpr(BaseExpr):
    """A scalar (or vector) expression with a ``dtype``."""


@register_object("ir.RelaxExpr")
class RelaxExpr(BaseExpr):
    """Base class of graph-level (Relax) expressions: GlobalVar, Op,
    functions. ``struct_info_`` is their structure information (None until
    inferred)."""

    @property
    def checked_type(self):
        """The static type of the expression's struct info (relax.analysis.get_static_type)."""
        from .._ffi.registry import get_global_func  # pylint: disable=import-outside-toplevel
        from ..error import TVMValueError  # pylint: disable=import-outside-toplevel
        sinfo = self.struct_info_
        if sinfo is None:
            raise TVMValueError(f"{type(self).__name__}.checked_type: the expression has no struct info yet "
                                "(normalize it with a BlockBuilder)")
        return get_global_func("relax.analysis.get_static_type")(sinfo)


RelayExpr = RelaxExpr  # TVM's older name of the same base


@register_object("ir.GlobalVar")
class GlobalVar(RelaxExpr):
    """The name of a function in an IRModule (``name_hint``)."""

    def __init__(self, name_hint, type_annot=None):
        if type_annot is not None:
            raise OpNotImplemented("GlobalVar(type_annot=...) is not supported")
        self.__init_handle_by_constructor__(_ffi_api.GlobalVar, name_hint)

    def __repr__(self):
        return f'I.GlobalVar("{self.name_hint}")'


@register_object("ir.Range")
class Range(Node):
    """A half-open interval: ``Range(end)``, ``Range(begin, end)``; fields ``min``, ``extent``."""

    def __init__(self, begin, end=None, span=None):  # pylint: disable=unused-argument
        self.__init_handle_by_constructor__(_ffi_api.Range, begin, end)

    @staticmethod
    def from_min_extent(min_value, extent, span=None):  # pylint: disable=unused-argument
        return _ffi_api.Range_from_min_extent(min_value, extent)


__all__ = ["BaseExpr", "PrimExpr", "RelaxExpr", "RelayExpr", "GlobalVar", "Range"]
