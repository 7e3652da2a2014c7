"""Glue between the Python decorators and the C++ TVMScript parser.

The decorators pass the C++ parser (global function ``script.ParseTIR``)
the decorated source, its file and first line (so errors point into the
original file), and a resolver that looks up free names in the closure,
the defining frame and the module globals.
"""
import builtins
import inspect
import numbers
import sys
import types
from ..error import TVMOSError, TVMTypeError

_NAMESPACE_TAG = "__tessera_ns__:"
_UNSUPPORTED_TAG = "__tessera_unsupported__:"
# The C++ parser passes a host function's keyword arguments after this tag,
# as name, value pairs (packed functions take positional arguments only).
_KWARGS_TAG = "__tessera_kwargs__"


def _host_function(func):
    """``func`` as the parser calls it: keyword arguments unpacked from after
    _KWARGS_TAG, and a function it returns wrapped the same way."""

    def call(*args):
        kwargs = {}
        for i, a in enumerate(args):
            if isinstance(a, str) and a == _KWARGS_TAG:
                rest = args[i + 1:]
                kwargs = {str(rest[j]): rest[j + 1] for j in range(0, len(rest), 2)}
                args = args[:i]
                break
        result = func(*args, **kwargs)
        if isinstance(result, (types.FunctionType, types.MethodType)):
            return _host_function(result)
        return result

    call.__name__ = getattr(func, "__name__", "host_function")
    return call

# Python modules the parser treats as TVMScript namespaces.
_MODULE_PATHS = {
    "tessera": "tvm",
    "tessera.script": "tvm.script",
    "tessera.script.tir": "T",
    "tessera.script.ir": "I",
    "tessera.script.relax": "R",
    "tessera.tir": "T",
    "tessera.relax": "relax",  # relax.op.<name>(...) in an R.function is the operator relax.<name>
}


def _check_encodable(source, filename, line_offset):
    """A ParseError at the first character that has no UTF-8 form (a lone
    surrogate such as '\\ud800'), before the text crosses into C++."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as err:
        from ..error import ParseError  # pylint: disable=import-outside-toplevel

        line_start = source.rfind("\n", 0, err.start) + 1
        line_end = source.find("\n", err.start)
        line = source[line_start:line_end if line_end >= 0 else len(source)]
        col = err.start - line_start
        escape = f"\\u{ord(source[err.start]):04x}"
        shown = line[:col].replace("\t", " ")
        rest = line[col + 1:].encode("utf-8", "backslashreplace").decode("utf-8")
        lineno = source.count("\n", 0, err.start) + 1 + line_offset
        message = (f"{filename or '<string>'}:{lineno}:{col + 1}: error: the source contains a lone surrogate "
                   f"{escape}, which is not valid Unicode text\n    {shown}{escape}{rest}\n"
                   f"    {' ' * len(shown)}{'^' * len(escape)}")
        raise ParseError(message) from None


def _parse_tir(source, filename, line_offset, resolver):
    from .. import get_global_func  # late import: tessera imports this package lazily

    if isinstance(source, str):
        _check_encodable(source, filename, line_offset)
    return get_global_func("script.ParseTIR")(source, filename, line_offset, resolver)


def _to_script_value(value, depth=0):
    """Converts a Python value into something the C++ parser understands."""
    path = getattr(value, "__tessera_script_path__", None)
    if isinstance(path, str):
        return _NAMESPACE_TAG + path
    if isinstance(value, types.ModuleType):
        mapped = _MODULE_PATHS.get(value.__name__)
        if mapped is not None:
            return _NAMESPACE_TAG + mapped
        return _UNSUPPORTED_TAG + "module " + value.__name__
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    from ..runtime import Object

    if isinstance(value, Object):
        return value
    from ._struct_info_proxy import StructInfoProxy  # pylint: disable=import-outside-toplevel

    if isinstance(value, StructInfoProxy):  # sinfo = R.Tensor(...) defined in Python, used in the script
        return value.as_struct_info()
    if type(value).__module__ == "numpy" and type(value).__name__ == "ndarray":
        from .. import nd  # pylint: disable=import-outside-toplevel

        return nd.array(value)  # R.const(np_array): a tensor constant
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return _host_function(value)  # a host function: TVMScript calls it while parsing (as a PackedFunc)
    if depth < 8 and isinstance(value, (tuple, list)):
        return [_to_script_value(v, depth + 1) for v in value]
    if depth < 8 and isinstance(value, dict):
        return {k: _to_script_value(v, depth + 1) for k, v in value.items()}
    return _UNSUPPORTED_TAG + type(value).__name__


def make_resolver(*namespaces):
    """A resolver over dictionaries searched in order; missing names raise KeyError."""

    def resolve(name):
        for ns in namespaces:
            if ns is not None and name in ns:
                return _to_script_value(ns[name])
        raise KeyError(name)

    return resolve


def _closure_vars(func):
    if not isinstance(func, types.FunctionType):
        return {}
    names = func.__code__.co_freevars
    cells = func.__closure__ or ()
    out = {}
    for name, cell in zip(names, cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell (variable not yet assigned)
            pass
    return out


def _source_of(obj, what):
    try:
        lines, first_line = inspect.getsourcelines(obj)
        filename = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (OSError, TypeError) as err:
        raise TVMOSError(f"cannot read the source of {what} {obj.__qualname__!r}; TVMScript must be defined in a "
                         f"file (use tvm.script.from_source for text)") from err
    return "".join(lines), filename, max(first_line - 1, 0)


def parse_function(func, frame_locals, frame_globals):
    source, filename, line_offset = _source_of(func, "function")
    resolver = make_resolver(_closure_vars(func), frame_locals, func.__globals__ if frame_globals is None else frame_globals)
    return _parse_tir(source, filename, line_offset, resolver)


def parse_class(cls, frame_locals, frame_globals):
    source, filename, line_offset = _source_of(cls, "class")
    closure = {}
    module_globals = frame_globals
    for member in vars(cls).values():
        closure.update(_closure_vars(member))
        if module_globals is None and isinstance(member, types.FunctionType):
            module_globals = member.__globals__
    if module_globals is None:
        module_globals = vars(sys.modules.get(cls.__module__, builtins))
    resolver = make_resolver(closure, frame_locals, module_globals)
    return _parse_tir(source, filename, line_offset, resolver)


def defined_in_class(func):
    """True for a function defined in a class body (its qualname's parent is not a function)."""
    parts = func.__qualname__.split(".")
    return len(parts) >= 2 and parts[-2] != "<locals>"


def caller_namespaces(depth):
    """(locals, globals) of the frame `depth` levels above the caller."""
    frame = sys._getframe(depth + 1)
    try:
        return dict(frame.f_locals), frame.f_globals
    finally:
        del frame


def from_source(source, extra_vars=None):
    """Parses TVMScript text (a ``@T.prim_func`` function or an ``@I.ir_module``
    class, as ``mod.script()`` prints) into a PrimFunc or an IRModule.

    Free names are looked up in ``extra_vars``; ``T``, ``I``, ``R`` and
    ``tvm`` are always known.
    """
    if not isinstance(source, str):
        raise TVMTypeError(f"from_source expects a str, got {type(source).__name__}")
    resolver = make_resolver(dict(extra_vars)) if extra_vars else None
    return _parse_tir(source, "<string>", 0, resolver)
