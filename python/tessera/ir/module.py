"""IRModule (``tvm.IRModule``): named functions plus module attributes."""
from .._ffi.registry import register_object
from .base import Node
from .expr import GlobalVar
from . import _ffi_api
from ..error import OpNotImplemented, TVMTypeError


class FunctionMap(dict):
    """``IRModule.functions``: a snapshot of the module's GlobalVar -> function
    map. As TVM's Map, it hashes by the identity of its entries, so a module
    whose functions were replaced (a new function object) hashes differently,
    while a snapshot taken before keeps its hash. Read-only, as TVM's Map is
    from Python: change the module with ``mod[name] = func`` instead."""

    def __hash__(self):
        return hash(tuple(self.items()))

    def _read_only(self, *args, **kwargs):
        raise TVMTypeError("IRModule.functions is read-only; use mod[name] = func or mod.update(...)")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _read_only


@register_object("ir.IRModule")
class IRModule(Node):
    """A set of functions keyed by GlobalVar, as in TVM.

    ``mod["f"]`` looks a function up, ``mod["f"] = func`` adds or replaces,
    ``get_global_var``/``get_global_vars`` give the names, and
    ``IRModule.from_expr(func)`` wraps one function.
    """

    def __init__(self, functions=None, type_definitions=None, attrs=None):
        if type_definitions:
            raise OpNotImplemented("IRModule(type_definitions=...) is not supported")
        self.__init_handle_by_constructor__(_ffi_api.IRModule, dict(functions or {}), attrs)

    @property
    def functions(self):
        return FunctionMap(_ffi_api.Module_Functions(self))

    def functions_items(self):
        return sorted(self.functions.items(), key=lambda kv: kv[0].name_hint)

    @property
    def attrs(self):
        return self.__getattr__("attrs")

    def __getitem__(self, var):
        if isinstance(var, str):
            return _ffi_api.Module_LookupStr(self, var)
        return _ffi_api.Module_Lookup(self, var)

    def __setitem__(self, var, func):
        if isinstance(var, str):
            var = _ffi_api.Module_GetGlobalVar(self, var) if var in self else GlobalVar(var)
        _ffi_api.Module_Add(self, var, func, True)

    def __delitem__(self, var):
        if isinstance(var, str):
            var = self.get_global_var(var)
        _ffi_api.Module_Remove(self, var)

    def __contains__(self, var):
        name = var if isinstance(var, str) else var.name_hint
        return _ffi_api.Module_ContainGlobalVar(self, name)

    def __len__(self):
        return len(self.functions)

    def get_global_var(self, name):
        """The GlobalVar named ``name``; raises ValueError when absent."""
        return _ffi_api.Module_GetGlobalVar(self, name)

    def get_global_vars(self):
        """All GlobalVars, sorted by name."""
        return _ffi_api.Module_GetGlobalVars(self)

    def update_func(self, var, func):
        """Replaces the function bound to ``var``."""
        _ffi_api.Module_Add(self, var, func, True)

    def update(self, other):
        """Adds every function of ``other`` (a module or a dict)."""
        items = other.functions.items() if isinstance(other, IRModule) else other.items()
        for var, func in items:
            self[var] = func

    def remove(self, var):
        del self[var]

    def with_attr(self, attr_key, attr_value):
        """A copy of this module with a module attribute set."""
        return _ffi_api.Module_WithAttr(self, attr_key, attr_value)

    def with_attrs(self, attr_map):
        """A copy of this module with every attribute of the dict ``attr_map`` set."""
        from .function import _attr_dict  # pylint: disable=import-outside-toplevel
        mod = self
        for key, value in _attr_dict("IRModule.with_attrs", attr_map).items():
            mod = mod.with_attr(key, value)
        return mod

    def copy(self):
        return _ffi_api.Module_ShallowCopy(self)

    @staticmethod
    def from_expr(expr, functions=None, type_defs=None):
        """A module holding ``expr`` under its "global_symbol" attribute or "main"."""
        if type_defs:
            raise OpNotImplemented("IRModule.from_expr(type_defs=...) is not supported")
        mod = _ffi_api.Module_FromExpr(expr)
        if functions:
            mod.update(functions)
        return mod


__all__ = ["IRModule", "FunctionMap"]
