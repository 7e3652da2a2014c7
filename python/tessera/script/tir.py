"""The TIR dialect of TVMScript (``from tessera.script import tir as T``).

``@T.prim_func`` parses the decorated function with the C++ parser. The
other names (``T.Buffer``, ``T.grid``, ``T.block``...) are only read by the
parser; Python sees them at most in parameter annotations, where they are
harmless placeholders.
"""
import inspect

from . import _parser
from ._placeholder import Placeholder, namespace_getattr
from ..error import TVMTypeError


def prim_func(func=None, private=False, check_well_formed=True, global_var=None):
    """Decorator: parses a TensorIR function into a ``tvm.tir.PrimFunc``.

    ``@T.prim_func(private=True)`` gives a function without a global symbol.
    Inside an ``@I.ir_module`` class the function is left for the module
    decorator to parse; there ``global_var="from"`` names its GlobalVar when
    that name cannot be the def's (a Python keyword: the printer writes
    ``@T.prim_func(global_var="from")`` over ``def from_1``). A Tessera
    extension; refused on a function outside a module.
    """
    frame_locals, frame_globals = _parser.caller_namespaces(1)

    def decorate(f):
        if not inspect.isfunction(f):
            raise TVMTypeError(f"@T.prim_func expects a function, got {type(f).__name__}")
        if _parser.defined_in_class(f):
            return f
        result = _parser.parse_function(f, frame_locals, frame_globals)
        return result

    if func is None:
        return decorate
    return decorate(func)


prim_func.__tessera_script_path__ = "T.prim_func"

def _scalar_type(dtype):
    """``T.<dtype>(value)`` outside TVMScript, as TVM: the constant (or the
    cast of an expression) of that dtype; other uses stay placeholders."""

    def make(value=None, *args, **kwargs):
        from .. import tir  # pylint: disable=import-outside-toplevel

        if value is None or args or kwargs:
            return Placeholder(f"T.{dtype}(...)")
        if isinstance(value, tir.PrimExpr):
            return value if str(value.dtype) == dtype else tir.Cast(dtype, value)
        return tir.const(value, dtype)

    make.__name__ = dtype
    make.__tessera_script_path__ = f"T.{dtype}"
    return make


for _dtype in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64", "bfloat16"):
    globals()[_dtype] = _scalar_type(_dtype)
del _dtype

Buffer = Placeholder("T.Buffer")
handle = Placeholder("T.handle")

__getattr__ = namespace_getattr("T")
