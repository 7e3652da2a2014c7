"""Base classes of IR nodes (``tvm.ir.Node``, ``Span``) and the TVMScript
printing methods every node shares (``script()``, ``show()``)."""
from .. import _core
from .._ffi.registry import register_object, get_global_func
from . import _ffi_api
from ..error import OpNotImplemented, TVMTypeError


# TVM's printer options with their defaults: Tessera's printer prints with
# these, so an option is accepted at its default and refused otherwise.
_SCRIPT_DEFAULTS = {
    "name": None, "show_meta": False, "ir_prefix": "I", "tir_prefix": "T", "relax_prefix": "R",
    "module_alias": "cls", "buffer_dtype": "float32", "int_dtype": "int32", "float_dtype": "void",
    "verbose_expr": False, "indent_spaces": 4, "print_line_numbers": False, "num_context_lines": -1,
    "syntax_sugar": True, "show_object_address": False, "show_all_struct_info": True,
    "path_to_underline": None, "path_to_annotate": None, "obj_to_underline": None, "obj_to_annotate": None,
    "extra_config": None,
}


# Options the C++ printer acts on (script_printer.cc validates their values).
_SCRIPT_HONOURED = {"indent_spaces", "tir_prefix", "ir_prefix", "name", "obj_to_underline", "show_meta"}


def _prints_free_var_definitions(node):
    """Whether the printer already writes the definitions of the free
    variables of ``node`` before it (TVM's ``verbose_expr=True`` form): it does
    for every node but a bare TIR expression or statement."""
    key = node.type_key if hasattr(node, "type_key") else ""
    return not key.startswith("tir.") or key == "tir.PrimFunc"


def _check_script_options(kwargs, node=None):
    for key, value in kwargs.items():
        if key not in _SCRIPT_DEFAULTS:
            raise TVMTypeError(f"script() got an unexpected keyword argument {key!r}")
        if key in _SCRIPT_HONOURED:
            continue
        if key == "verbose_expr" and value is True and node is not None and _prints_free_var_definitions(node):
            continue
        default = _SCRIPT_DEFAULTS[key]
        if value is not default and value != default:
            raise OpNotImplemented(f"script({key}={value!r}) is not supported; Tessera prints with "
                                      f"{key}={default!r}")


class Node(_core.Object):
    """Base class of every IR node."""

    def script(self, **kwargs):
        """The node as TVMScript text. Keyword settings as TVM's: the printer
        honours ``indent_spaces``, ``tir_prefix``, ``ir_prefix``, ``name``,
        ``obj_to_underline`` (nodes to underline with carets) and
        ``show_meta`` (Relax tensor constants as a ``metadata = ...`` line that
        parses back, instead of "# Metadata omitted...") and
        ``verbose_expr=True`` (free variables' definitions first: what the
        printer writes for every node but bare TIR expressions); TVM's other
        options are accepted only at their defaults; an unknown key raises."""
        _check_script_options(kwargs, self)
        kwargs = {k: v for k, v in kwargs.items() if k != "verbose_expr"}
        printer = get_global_func("script.AsTVMScript", allow_missing=True)
        if printer is None:
            raise OpNotImplemented("the TVMScript printer is not available in this build")
        return printer(self, kwargs) if kwargs else printer(self)

    def show(self, style=None, black_format=False, **kwargs):
        """Prints :meth:`script` to stdout (no highlighting ``style`` or
        ``black_format``)."""
        if style is not None or black_format:
            raise OpNotImplemented("show(style=..., black_format=True) is not supported; call show()")
        print(self.script(**kwargs))

    def astext(self, **kwargs):
        return self.script(**kwargs)

    # Pickling and copy.deepcopy go through JSON (as TVM): a restored node is
    # a deep copy, with fresh variables and buffers.
    def __getstate__(self):
        return {"handle": save_json(self)}

    def __setstate__(self, state):
        if not isinstance(state, dict) or not isinstance(state.get("handle"), str):
            raise TVMTypeError("Node.__setstate__ expects the dict of __getstate__ ({'handle': json})")
        self.__init_handle_by_constructor__(_ffi_api.LoadJSON, state["handle"])

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


# TVM defines the structural comparisons in tvm.ir.base; tests import them from there.
from .structural import structural_equal, structural_hash, assert_structural_equal  # noqa: E402,F401  pylint: disable=wrong-import-position
