"""The Relax dialect of TVMScript (``from tessera.script import relax as R``).

Not parsed yet: ``@R.function`` raises NotImplementedError (inside an
``@I.ir_module`` class the module parser reports it). The other names are
placeholders so that modules mentioning Relax can at least be defined.
"""
import inspect

from . import _parser
from ._placeholder import namespace_getattr


def function(func=None, pure=True, private=False, check_well_formed=True):
    """Decorator for Relax functions (not supported by the parser yet)."""

    def decorate(f):
        if inspect.isfunction(f) and _parser.defined_in_class(f):
            return f  # the @I.ir_module decorator reports it
        raise NotImplementedError("Relax functions (@R.function) are not supported by the TVMScript parser yet")

    if func is None:
        return decorate
    return decorate(func)


function.__tessera_script_path__ = "R.function"

__getattr__ = namespace_getattr("R")
