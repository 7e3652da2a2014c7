"""The Relax dialect of TVMScript (``from tessera.script import relax as R``).

``@R.function`` (also ``@R.function(pure=False, private=True)``) parses the
decorated function with the C++ parser into a ``tvm.relax.Function``; inside
an ``@I.ir_module`` class the function is left for the module decorator to
parse. ``R.Tensor``, ``R.Shape``, ``R.Tuple``, ``R.Object``, ``R.Prim`` and
``R.Callable`` are struct info proxies (_struct_info_proxy.py): inert in
annotations, struct infos in plain Python. The other names (``R.dataflow``,
``R.call_tir``...) are only read by the parser; Python sees them at most in
parameter annotations, where they are harmless placeholders.
"""
import inspect

from . import _parser
from ._placeholder import Placeholder
from ..error import TVMTypeError


def function(func=None, pure=True, private=False, check_well_formed=True, global_var=None):
    """Decorator: parses a Relax function into a ``tvm.relax.Function``.

    ``pure=False`` marks a function with side effects (R.call_packed...);
    ``private=True`` gives it no global symbol; ``check_well_formed=False``
    skips the well-formedness check. In an ``@I.ir_module`` class,
    ``global_var="from"`` names the function's GlobalVar when that name
    cannot be the def's (the printer writes it for Python keywords).
    """
    frame_locals, frame_globals = _parser.caller_namespaces(1)
    del pure, private, check_well_formed, global_var  # read from the source by the parser

    def decorate(f):
        if not inspect.isfunction(f):
            raise TVMTypeError(f"@R.function expects a function, got {type(f).__name__}")
        if _parser.defined_in_class(f):
            return f  # the @I.ir_module decorator parses it
        return _parser.parse_function(f, frame_locals, frame_globals)

    if func is None:
        return decorate
    return decorate(func)


function.__tessera_script_path__ = "R.function"

# Struct info proxies: harmless in annotations, real struct infos in plain Python.
from ._struct_info_proxy import (Tensor, Shape, Tuple, Object, Prim, Callable, StructInfoProxy,  # noqa: E402
                                 TensorProxy, ShapeProxy, TupleProxy, ObjectProxy, PrimProxy, CallableProxy)


def _eager(path):
    """What ``R.<path>(...)`` computes when Python calls it outside a TVMScript
    function (as TVM evaluates R.const and the ops eagerly), or None."""
    from .. import relax  # pylint: disable=import-outside-toplevel
    if path == "const":
        return relax.const
    value = relax.op
    try:
        for part in path.split("."):
            value = getattr(value, part)
    except (AttributeError, NotImplementedError):
        return None
    return value if callable(value) else None


def _holds_placeholder(value, depth=0):
    """Whether ``value`` is (or a list/tuple/dict of it holds) a TVMScript placeholder."""
    if isinstance(value, Placeholder):
        return True
    if depth < 32 and isinstance(value, (list, tuple)):
        return any(_holds_placeholder(v, depth + 1) for v in value)
    if depth < 32 and isinstance(value, dict):
        return any(_holds_placeholder(v, depth + 1) for v in value.values())
    return False


class _EagerPlaceholder(Placeholder):
    """``R.<name>`` other than the struct info proxies: a placeholder for the
    parser; called from Python (outside a TVMScript function) it builds the
    constant or op call as TVM does (``R.const(1.0)``, ``R.multiply(x, y)``),
    and raises the op's error for arguments it refuses (a Python TypeError
    of the call itself becomes a TVMTypeError naming ``R.<name>``). Names
    with no eager meaning, and calls given placeholders, stay placeholders."""

    __slots__ = ()

    def __getattr__(self, name):
        if name.startswith("_") or name in Placeholder._NOT_SCRIPT_NAMES:
            raise AttributeError(name)
        return _EagerPlaceholder(f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        from ..error import TVMError  # pylint: disable=import-outside-toplevel
        fn = _eager(self._path[2:])
        if fn is None or _holds_placeholder(args) or _holds_placeholder(kwargs):
            return Placeholder(f"{self._path}(...)")
        try:
            result = fn(*args, **kwargs)
        except TypeError as err:
            if isinstance(err, TVMError):
                raise
            raise TVMTypeError(f"{self._path}: wrong arguments ({err})") from err
        return _checked_call(result)


def _is_typed_leaf(expr):
    from .. import relax  # pylint: disable=import-outside-toplevel
    if isinstance(expr, relax.Tuple):
        return all(_is_typed_leaf(f) for f in expr.fields)
    return (isinstance(expr, (relax.Var, relax.Constant, relax.ShapeExpr, relax.PrimValue, relax.StringImm,
                              relax.DataTypeImm))
            and getattr(expr, "struct_info_", None) is not None)


def _checked_call(result):
    """An eager op call whose operands all carry struct info (vars, constants...):
    its struct info is inferred now, so operands the op refuses raise here,
    naming the op (TVM defers this to the first BlockBuilder that sees the call).
    Calls of calls are returned as built (only a builder with an open block can
    bind their inner calls)."""
    from .. import relax  # pylint: disable=import-outside-toplevel
    if isinstance(result, relax.Call) and all(_is_typed_leaf(a) for a in result.args):
        return relax.BlockBuilder().normalize(result)
    return result


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _EagerPlaceholder(f"R.{name}")
