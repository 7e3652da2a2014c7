"""The module level of TVMScript (``from tessera.script import ir as I``).

``@I.ir_module`` (also ``@tvm.script.ir_module``) parses a class whose
methods are ``@T.prim_func`` functions into a ``tvm.IRModule``, each
function under its Python name.
"""
import inspect

from . import _parser
from ._placeholder import namespace_getattr
from ..error import TVMTypeError


def ir_module(cls=None, check_well_formed=True):
    """Decorator: parses an ``@I.ir_module`` class into a ``tvm.IRModule``."""
    frame_locals, frame_globals = _parser.caller_namespaces(1)

    def decorate(c):
        if not inspect.isclass(c):
            raise TVMTypeError(f"@I.ir_module expects a class, got {type(c).__name__}")
        return _parser.parse_class(c, frame_locals, frame_globals)

    if cls is None:
        return decorate
    return decorate(cls)


ir_module.__tessera_script_path__ = "I.ir_module"

__getattr__ = namespace_getattr("I")
