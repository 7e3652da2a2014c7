"""Static check of docs/reliability.md's promise that every error Tessera raises is a
tvm.error.TVMError subclass (which also derives from the matching builtin, so
``except ValueError`` keeps working): no ``raise <builtin exception>`` in python/tessera
outside the commented allow-list below. Plus the twins of the builtins in tvm.error."""
import ast
import builtins
import os

from . import harness

_PACKAGE = os.path.join(harness._PYTHON_DIR, "tessera")  # pylint: disable=protected-access

# (file relative to python/tessera, enclosing function, exception) that must stay builtin.
_ALLOWED = {
    # The C++ core could not be loaded: tessera.error (which needs it) does not exist yet.
    ("_lib.py", None, "ImportError"),
    # A resolver the TVMScript parser calls for each free name: KeyError is its "not
    # found" protocol, caught by the parser itself; no user sees it.
    ("script/_parser.py", "resolve", "KeyError"),
}
# Protocols Python itself defines: __getattr__ signals "no such attribute" (hasattr,
# getattr with a default, copy and pickle probing) with AttributeError; iterators stop
# with StopIteration.
_PROTOCOL_EXCEPTIONS = {("__getattr__", "AttributeError"), (None, "StopIteration"),
                        (None, "StopAsyncIteration"), (None, "GeneratorExit")}

_BUILTIN_EXCEPTIONS = {name for name, obj in vars(builtins).items()
                       if isinstance(obj, type) and issubclass(obj, BaseException)}


def _builtin_raises(path):
    """(line, enclosing function, exception name) of each `raise <builtin>` in ``path``."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = []

    def visit(node, func):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Raise) and child.exc is not None:
                exc = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
                if isinstance(exc, ast.Name) and exc.id in _BUILTIN_EXCEPTIONS:
                    found.append((child.lineno, func, exc.id))
            visit(child, func)

    visit(tree, None)
    return found


def test_no_builtin_exception_is_raised_in_the_package():
    offenders = []
    for dirpath, _, files in os.walk(_PACKAGE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, _PACKAGE).replace(os.sep, "/")
            for line, func, exc in _builtin_raises(path):
                if (rel, func, exc) in _ALLOWED or (func, exc) in _PROTOCOL_EXCEPTIONS \
                        or (None, exc) in _PROTOCOL_EXCEPTIONS:
                    continue
                offenders.append(f"python/tessera/{rel}:{line}: raise {exc} (in {func or 'module level'})")
    assert not offenders, ("raise the tvm.error twin (TVMValueError, TVMTypeError, OpNotImplemented, ...) instead:\n"
                           + "\n".join(offenders))


def test_the_scan_finds_a_builtin_raise(tmp_path):
    """The scanner itself: it must see the forms used in the package."""
    path = tmp_path / "m.py"
    path.write_text("def f(x):\n    if x:\n        raise ValueError('x')\n    raise NotImplementedError\n"
                    "class C:\n    def __getattr__(self, n):\n        raise AttributeError(n)\n")
    assert _builtin_raises(str(path)) == [(3, "f", "ValueError"), (4, "f", "NotImplementedError"),
                                          (7, "__getattr__", "AttributeError")]


_TWINS = [("TVMValueError", "ValueError"), ("TVMTypeError", "TypeError"), ("TVMIndexError", "IndexError"),
          ("TVMKeyError", "KeyError"), ("TVMAttributeError", "AttributeError"), ("TVMOverflowError", "OverflowError"),
          ("TVMMemoryError", "MemoryError"), ("OpNotImplemented", "NotImplementedError"),
          ("TVMFileNotFoundError", "FileNotFoundError"), ("TVMOSError", "OSError"),
          ("TVMImportError", "ImportError"), ("TVMRecursionError", "RecursionError")]


def test_each_twin_derives_from_tvm_error_and_its_builtin():
    res = harness.run_case(f"""
import builtins
import tessera as tvm
for twin, builtin in {_TWINS!r}:
    cls = getattr(tvm.error, twin)
    assert issubclass(cls, tvm.error.TVMError) and issubclass(cls, getattr(builtins, builtin)), twin
    try:
        raise cls("the message")
    except getattr(builtins, builtin) as err:
        assert "the message" in str(err), twin
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
