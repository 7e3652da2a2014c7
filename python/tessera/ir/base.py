"""Base classes of IR nodes (``tvm.ir.Node``, ``Span``) and the TVMScript
printing methods every node shares (``script()``, ``show()``)."""
from .. import _core
from .._ffi.registry import register_object, get_global_func
from . import _ffi_api


class Node(_core.Object):
    """Base class of every IR node."""

    def script(self, **kwargs):  # pylint: disable=unused-argument
        """The node as TVMScript text."""
        printer = get_global_func("script.AsTVMScript", allow_missing=True)
        if printer is None:
            raise NotImplementedError("the TVMScript printer is not available in this build")
        return printer(self)

    def show(self, **kwargs):
        """Prints :meth:`script` to stdout."""
        print(self.script(**kwargs))

    def astext(self, **kwargs):
        return self.script(**kwargs)

    def __str__(self):
        return repr(self)


@register_object("ir.Span")
class Span(Node):
    """A source location: ``source_name``, ``line``, ``column`` (1-based)."""

    def __init__(self, source_name, line, column, end_line=0, end_column=0):
        self.__init_handle_by_constructor__(_ffi_api.Span, source_name, line, column, end_line, end_column)


def save_json(node):
    """The JSON text of an IR node (or Array/Map/str/number): every node is
    written once with its type key and registered fields, so shared nodes
    (variables, buffers) keep their identity through :func:`load_json`."""
    return _ffi_api.SaveJSON(node)


def load_json(json_str):
    """The node described by :func:`save_json` text; raises ValueError
    naming the culprit (node, field) on malformed or mistyped input."""
    return _ffi_api.LoadJSON(json_str)


__all__ = ["Node", "Span", "save_json", "load_json"]
