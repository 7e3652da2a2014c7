"""Object class registration and the global function registry.

``register_object("tir.Var")`` makes a Python class the one that C++ objects
of that type key come back as.  ``register_func`` / ``get_global_func``
read and write the process-wide function registry that C++ uses too.
"""
from .. import _core
from ..error import TVMTypeError, TVMValueError


def register_object(type_key=None):
    """Class decorator: objects of C++ type ``type_key`` (default: the class
    name) are returned to Python as instances of the decorated class."""

    def register(cls):
        key = type_key if isinstance(type_key, str) else cls.__name__
        if _core._type_key_to_index(key) < 0:
            raise TVMValueError(f"register_object: unknown object type key '{key}'")
        _core._register_object(key, cls)
        return cls

    if isinstance(type_key, type):  # used without arguments
        cls, type_key = type_key, None
        return register(cls)
    return register


def register_func(func_name, f=None, override=False):
    """Registers a Python callable as a global function callable from C++.

    Usable as ``register_func("name", f)``, ``@register_func("name")``,
    ``@register_func`` (the function's name is used) or with
    ``override=True`` to replace an existing function.  Registering a taken
    name without ``override`` raises ``ValueError``.
    """
    if callable(func_name):
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TVMTypeError(f"register_func expects a name (str), got {type(func_name).__name__}")

    def register(myf):
        if not callable(myf):
            raise TVMTypeError(f"register_func('{func_name}'): {myf!r} is not callable")
        _core._register_func(func_name, myf, override)
        return myf

    return register(f) if f is not None else register


def get_global_func(name, allow_missing=False):
    """Returns the global function ``name`` as a PackedFunc; raises
    ``ValueError`` when it does not exist unless ``allow_missing``."""
    f = _core._get_global_func(name)
    if f is None and not allow_missing:
        raise TVMValueError(f"Cannot find global function {name}")
    return f


def list_global_func_names():
    """Names of all registered global functions, sorted."""
    return _core._list_global_func_names()


def remove_global_func(name):
    """Removes a global function; returns whether it existed."""
    return _core._remove_global_func(name)


def init_ffi_api(namespace, target_module_name):
    """Exposes every global function ``namespace.X`` (one level, e.g.
    ``tir.Var``) as attribute ``X`` of module ``target_module_name`` — the
    ``_ffi_api`` modules of each Python package (TVM's ``_init_api``)."""
    import sys  # pylint: disable=import-outside-toplevel

    module = sys.modules[target_module_name]
    prefix = namespace + "."
    for name in list_global_func_names():
        if not name.startswith(prefix):
            continue
        short = name[len(prefix):]
        if "." in short:
            continue
        setattr(module, short, get_global_func(name))
