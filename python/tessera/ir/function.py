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

    def with_attrs(self, attr_map):
        """A copy of this function with every attribute of the dict ``attr_map`` set."""
        return self.with_attr(_attr_dict("BaseFunc.with_attrs", attr_map))

    def without_attr(self, attr_key):
        """A copy of this function without attribute ``attr_key`` (unchanged when absent)."""
        if not isinstance(attr_key, str):
            from ..error import TVMTypeError  # pylint: disable=import-outside-toplevel
            raise TVMTypeError(f"without_attr expects an attribute name (str), got {type(attr_key).__name__}")
        return _ffi_api.BaseFuncWithoutAttr(self, attr_key)


def _attr_dict(where, attr_map):
    """``attr_map`` as a dict of attribute names (TypeError naming ``where`` otherwise)."""
    from ..error import TVMTypeError  # pylint: disable=import-outside-toplevel
    items = getattr(attr_map, "items", None)
    if items is None:
        raise TVMTypeError(f"{where} expects a dict of attributes, got {type(attr_map).__name__}")
    out = dict(items())
    for key in out:
        if not isinstance(key, str):
            raise TVMTypeError(f"{where}: attribute names must be str, got {type(key).__name__}")
    return out


class _DictAttrs(dict):
    """Function attributes: a dict that also answers TVM's DictAttrs methods."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(name) from err


__all__ = ["BaseFunc"]
