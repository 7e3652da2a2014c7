"""Base class of functions stored in IRModules (``tvm.ir.BaseFunc``)."""
from .._ffi.registry import register_object
from .expr import RelaxExpr
from . import _ffi_api


@register_object("ir.BaseFunc")
class BaseFunc(RelaxExpr):
    """A PrimFunc or a Relax function; ``attrs`` is a dict of attributes."""

    @property
    def attrs(self):
        return _DictAttrs(self.__getattr__("attrs"))

    def with_attr(self, attr_key_or_dict, attr_value=None):
        """A copy of this function with attribute(s) set."""
        items = attr_key_or_dict.items() if isinstance(attr_key_or_dict, dict) else [(attr_key_or_dict, attr_value)]
        func = self
        for key, value in items:
            func = _ffi_api.BaseFuncWithAttr(func, key, value)
        return func

    def without_attr(self, attr_key):
        """A copy of this function without attribute ``attr_key`` (unchanged when absent)."""
        return _ffi_api.BaseFuncWithoutAttr(self, attr_key)


class _DictAttrs(dict):
    """Function attributes: a dict that also answers TVM's DictAttrs methods."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(name) from err


__all__ = ["BaseFunc"]
