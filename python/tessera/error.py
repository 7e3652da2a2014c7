"""Tessera's exception hierarchy (``tvm.error``).

Every error raised by the C++ core carries a *kind*; the FFI maps each kind
to one class below.  Each class derives from both :class:`TVMError` (so code
written for TVM catches it) and the matching built-in exception (so idiomatic
Python catches it too): ``except ValueError`` and ``except tvm.TVMError``
both see a bad-argument error.
"""
import builtins
import re

from . import _core

__all__ = [
    "TVMError", "InternalError", "TVMValueError", "TVMTypeError", "TVMIndexError", "TVMOverflowError",
    "TVMZeroDivisionError", "TVMMemoryError", "TVMKeyError", "TVMAttributeError", "TVMFileNotFoundError", "TVMOSError",
    "TVMImportError", "OpNotImplemented", "DiagnosticError",
    "ParseError", "ScheduleError", "TVMRecursionError", "TVMTimeoutError", "register_error",
]


_LOCATION = re.compile(r"^(.*?):(\d+):(\d+): ")


class TVMError(builtins.RuntimeError):
    """Base class of every error Tessera raises."""


class InternalError(TVMError):
    """A broken internal invariant: a bug in Tessera, please report it."""


class TVMValueError(TVMError, builtins.ValueError):
    """An argument has the right type but a wrong value (shape, dtype, name...)."""


class TVMTypeError(TVMError, builtins.TypeError):
    """An argument has the wrong type."""


class TVMIndexError(TVMError, builtins.IndexError):
    """An index is out of range."""


class TVMKeyError(TVMError, builtins.KeyError):
    """A key (function name, attribute) is missing."""

    def __str__(self):  # KeyError quotes its message; keep it readable
        return builtins.Exception.__str__(self)


class TVMAttributeError(TVMError, builtins.AttributeError):
    """An object has no such attribute."""


class TVMOSError(TVMError, builtins.OSError):
    """A file or system resource could not be used (unreadable source, failed I/O)."""


class TVMFileNotFoundError(TVMError, builtins.FileNotFoundError):
    """A file (module library, tuning database) does not exist."""


class TVMImportError(TVMError, builtins.ImportError):
    """An optional dependency (xgboost, ray) is not installed."""


class TVMOverflowError(TVMError, builtins.OverflowError):
    """A value does not fit its type (e.g. 2**40 passed to an int32 parameter)."""


class TVMZeroDivisionError(TVMError, builtins.ZeroDivisionError):
    """An integer division or modulo by zero in a compiled kernel."""


class TVMMemoryError(TVMError, builtins.MemoryError):
    """An allocation that is too large or that the system refused."""


class OpNotImplemented(TVMError, builtins.NotImplementedError):
    """The operation or construct is not implemented (yet)."""


class DiagnosticError(TVMError):
    """An error reported against a source location (TVMScript, frontends)."""


class ParseError(DiagnosticError, builtins.SyntaxError):
    """Malformed or unsupported TVMScript; the message shows line:column and a caret.

    As a SyntaxError it also carries ``msg``, ``filename``, ``lineno`` and
    ``offset`` (read from the message's ``file:line:col:`` prefix), which
    Python's traceback prints for an uncaught one (without ``msg`` it would
    print "<no detail available>", e.g. when a test module fails to import).
    """

    def __init__(self, *args):
        super().__init__(*args)
        text = str(args[0]) if args else ""
        self.msg = text or "TVMScript parse error"
        first = text.split("\n", 1)[0]
        match = _LOCATION.match(first)
        if match:
            self.filename = match.group(1)
            self.lineno = int(match.group(2))
            self.offset = int(match.group(3))

    def __str__(self):
        return builtins.Exception.__str__(self)


class ScheduleError(TVMError, builtins.ValueError):
    """A schedule primitive was not applicable; the schedule is left unchanged."""


class TVMTimeoutError(TVMError, builtins.TimeoutError):
    """An operation did not finish within its time limit (a worker process's call)."""


class TVMRecursionError(TVMError, builtins.RecursionError):
    """A structure (expression, statement, nested container) is nested too
    deeply for the recursion that walks it; raised before the stack overflows."""


_KINDS = {
    "TVMError": TVMError,
    "RuntimeError": TVMError,
    "InternalError": InternalError,
    "ValueError": TVMValueError,
    "TypeError": TVMTypeError,
    "IndexError": TVMIndexError,
    "KeyError": TVMKeyError,
    "AttributeError": TVMAttributeError,
    "NotImplementedError": OpNotImplemented,
    "OverflowError": TVMOverflowError,
    "ZeroDivisionError": TVMZeroDivisionError,
    "MemoryError": TVMMemoryError,
    # A kernel stopped by Ctrl-C (runtime/interrupt.h): Python's own class.
    "KeyboardInterrupt": builtins.KeyboardInterrupt,
    "DiagnosticError": DiagnosticError,
    "ParseError": ParseError,
    "ScheduleError": ScheduleError,
    "RecursionError": TVMRecursionError,
}


def as_tvm_error(exc, context):
    """The TVMError twin of a builtin exception ``exc`` (TypeError ->
    TVMTypeError, UnicodeError -> TVMValueError, ...), its message prefixed with
    ``context``; ``exc`` itself when it already is a TVMError or has no twin."""
    if isinstance(exc, TVMError):
        return exc
    for builtin_cls, twin in ((builtins.NotImplementedError, OpNotImplemented),
                              (builtins.FileNotFoundError, TVMFileNotFoundError),
                              (builtins.OSError, TVMOSError),
                              (builtins.OverflowError, TVMOverflowError),
                              (builtins.IndexError, TVMIndexError),
                              (builtins.KeyError, TVMKeyError),
                              (builtins.AttributeError, TVMAttributeError),
                              (builtins.TypeError, TVMTypeError),
                              (builtins.ValueError, TVMValueError),  # UnicodeError included
                              (builtins.RecursionError, TVMRecursionError)):
        if isinstance(exc, builtin_cls):
            detail = exc.args[0] if isinstance(exc, builtins.KeyError) and exc.args else str(exc)
            if isinstance(exc, builtins.UnicodeError):
                detail = f"a string is not valid Unicode text ({exc})"
            return twin(f"{context}: {detail}")
    return exc


def register_error(func_name=None, cls=None):
    """Registers ``cls`` as the Python class of C++ errors of kind ``func_name``
    (default: the class name).  Usable as a decorator, as in TVM."""
    if callable(func_name) and cls is None:
        cls, func_name = func_name, func_name.__name__

    def register(mycls):
        _core._register_error_class(func_name or mycls.__name__, mycls)
        return mycls

    return register(cls) if cls is not None else register


for _kind, _cls in _KINDS.items():
    _core._register_error_class(_kind, _cls)
