"""Harmless stand-ins for TVMScript names that Python evaluates while it
defines a decorated function: parameter annotations such as
``T.Buffer((128,), "float32")`` or ``R.Tensor((1, "m"), "float32")`` run at
definition time, before the parser sees the source."""
from ..error import TVMTypeError


class Placeholder:
    """Any attribute, call or subscript of a placeholder is a placeholder."""

    __slots__ = ("_path",)

    def __init__(self, path):
        object.__setattr__(self, "_path", path)

    # Protocol names the FFI probes on values it converts; a placeholder has none
    # (answering them with placeholders would make the conversion loop forever).
    _NOT_SCRIPT_NAMES = frozenset(("asobject",))

    def __getattr__(self, name):
        if name.startswith("_") or name in Placeholder._NOT_SCRIPT_NAMES:
            raise AttributeError(name)
        return Placeholder(f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        return Placeholder(f"{self._path}(...)")

    def __getitem__(self, item):
        return Placeholder(f"{self._path}[...]")

    def __iter__(self):
        # Without this, Python would iterate through __getitem__ forever (a
        # placeholder returned by a host function the parser calls).
        raise TVMTypeError(f"TVMScript name {self._path} is only meaningful inside a TVMScript function; "
                           "Python code cannot use its value")

    def __repr__(self):
        return f"<TVMScript {self._path}>"

    @property
    def __tessera_script_path__(self):
        path = self._path
        return None if "(" in path or "[" in path else path


def namespace_getattr(prefix):
    """A module-level ``__getattr__`` giving placeholders for unknown names."""

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder(f"{prefix}.{name}")

    return __getattr__
