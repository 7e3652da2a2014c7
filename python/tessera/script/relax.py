"""The Relax dialect of TVMScript (``from tessera.script import relax as R``).

``@R.function`` (also ``@R.function(pure=False, private=True)``) parses the
decorated function with the C++ parser into a ``tvm.relax.Function``; inside
an ``@I.ir_module`` class the function is left for the module decorator to
parse. The other names (``R.Tensor``, ``R.dataflow``, ``R.call_tir``...) are
only read by the parser; Python sees them at most in parameter annotations,
where they are harmless placeholders.
"""
import inspect

from . import _parser
from ._placeholder import Placeholder


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
            raise TypeError(f"@R.function expects a function, got {type(f).__name__}")
        if _parser.defined_in_class(f):
            return f  # the @I.ir_module decorator parses it
        return _parser.parse_function(f, frame_locals, frame_globals)

    if func is None:
        return decorate
    return decorate(func)


function.__tessera_script_path__ = "R.function"

def _tensor(shape=None, dtype=None, vdevice=None, ndim=-1):
    from ..relax import TensorStructInfo  # pylint: disable=import-outside-toplevel
    if isinstance(shape, str) and dtype is None:
        shape, dtype = None, shape
    if shape is not None and any(isinstance(d, str) for d in shape):
        raise TypeError("symbolic dims named by strings need the TVMScript parser")
    return TensorStructInfo(shape, "void" if dtype is None else dtype, vdevice, ndim)


def _eager(path):
    """What ``R.<path>(...)`` computes when Python calls it outside a TVMScript
    function (as TVM evaluates R.Tensor, R.const and the ops eagerly), or None."""
    from .. import relax  # pylint: disable=import-outside-toplevel
    builders = {"Tensor": _tensor, "Tuple": lambda *fields: relax.TupleStructInfo(list(fields)),
                "Object": relax.ObjectStructInfo, "Shape": relax.ShapeStructInfo, "Prim": relax.PrimStructInfo,
                "const": relax.const}
    if path in builders:
        return builders[path]
    value = relax.op
    try:
        for part in path.split("."):
            value = getattr(value, part)
    except (AttributeError, NotImplementedError):
        return None
    return value if callable(value) else None


class _EagerPlaceholder(Placeholder):
    """``R.<name>``: a placeholder for the parser; called from Python (outside
    a TVMScript function) it builds the struct info, constant or op call as TVM
    does (``R.Tensor((2, 3), "float32")``, ``R.multiply(x, y)``). Calls that
    only the parser can evaluate (symbolic dims by name...) stay placeholders."""

    __slots__ = ()

    def __getattr__(self, name):
        if name.startswith("_") or name in Placeholder._NOT_SCRIPT_NAMES:
            raise AttributeError(name)
        return _EagerPlaceholder(f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        from ..error import TVMError  # pylint: disable=import-outside-toplevel
        fn = _eager(self._path[2:])
        if fn is not None:
            try:
                return fn(*args, **kwargs)
            except (TypeError, ValueError, TVMError, NotImplementedError):
                pass
        return Placeholder(f"{self._path}(...)")


Tensor = _EagerPlaceholder("R.Tensor")
Shape = _EagerPlaceholder("R.Shape")
Tuple = _EagerPlaceholder("R.Tuple")
Object = _EagerPlaceholder("R.Object")
Prim = _EagerPlaceholder("R.Prim")
Callable = Placeholder("R.Callable")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _EagerPlaceholder(f"R.{name}")
