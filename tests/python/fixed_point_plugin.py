"""The printer's fixed point, checked on every module the tests build.

Enabled for the whole suite by ``conftest.py``. It wraps the public ways a
test gets IR (``@T.prim_func`` / ``@R.function`` / ``@I.ir_module`` /
``tvm.script.from_source``, ``Schedule.mod``, ``IRModule.from_expr``, the
inputs of ``tvm.build`` and ``relax.build``) and checks, for each distinct
IRModule / PrimFunc / relax.Function, that
``parse(print(m))`` is structurally equal to ``m`` and that
``print(parse(print(m))) == print(m)`` (printing with show_meta=True when the
printout omits metadata, i.e. Relax tensor constants). A failure fails the test that built
the object (IR built at import time is charged to the first test of its
file). Objects the parser cannot represent are skipped only for a reason
listed in ``SKIP_REASONS``. At the end of the session a summary line gives
how many objects were checked (``-p no:...`` is not needed to disable it:
set ``TESSERA_NO_FIXED_POINT=1``).
"""
import functools
import os
import sys
import traceback

import pytest

# The only reasons for which an object is not required to round-trip; each
# is recognised precisely (see _known_failure) and counted in the summary.
RELAX_NOT_PRINTABLE = "Relax functions: the Relax printer/parser is not in this build yet"
SKIP_REASONS = {RELAX_NOT_PRINTABLE: "until script.printer.RelaxSupported is registered"}


def _known_failure(parse_error=None, mismatch=None):
    """The SKIP_REASONS key explaining a failure, or None."""
    del parse_error
    del mismatch  # no structural mismatch is a known failure at present
    return None


_STATE = {
    "checking": False,      # the check itself parses and prints: do not collect that
    "current": None,        # nodeid of the running test, or None at import / collection time
    "pending": {},          # nodeid (or file) -> list of failure messages
    "parsed": {},           # printed text -> (parsed, parse error, reprinted text)
    "checked": 0,           # objects checked (each compared with the parse of its printout)
    "distinct": set(),      # distinct printouts among them
    "skipped": {},          # reason -> count
    "import_time": {},      # test file -> list of failure messages from IR built while importing it
}


_METADATA_OMITTED = "# Metadata omitted. Use show_meta=True in script() method to show it."


def _skip_reason(obj):
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    # Relax functions print and parse once the Relax TVMScript printer/parser
    # lands (relaxscript's part of issue [D]); until then modules holding
    # them are skipped, and counted under this reason.
    if isinstance(obj, tvm.IRModule) and tvm.get_global_func("script.printer.RelaxSupported", allow_missing=True) is None:
        if any(isinstance(f, tvm.relax.Function) for _, f in obj.functions.items()):
            return RELAX_NOT_PRINTABLE
    return None


def _check(obj):
    """None when the fixed point holds, else a message."""
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    reason = _skip_reason(obj)
    if reason is not None:
        _STATE["skipped"][reason] = _STATE["skipped"].get(reason, 0) + 1
        return None
    try:
        text = obj.script()
        if text.endswith(_METADATA_OMITTED):
            # Relax tensor constants print as metadata[...]: the form that
            # parses back carries them (show_meta=True).
            text = obj.script(show_meta=True)
    except Exception as err:  # pylint: disable=broad-except
        return f"printing failed: {type(err).__name__}: {err}"
    return check_text(obj, text)


def _parse_and_reprint(text):
    """(parsed object or None, parse error text or None, reprinted text), cached
    per printed text: distinct objects printing alike are parsed once."""
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    cached = _STATE["parsed"].get(text)
    if cached is None:
        try:
            parsed = tvm.script.from_source(text)
            with_meta = text.startswith("metadata = ")  # printed with show_meta=True: reprint alike
            cached = (parsed, None, parsed.script(show_meta=True) if with_meta else parsed.script())
        except Exception as err:  # pylint: disable=broad-except
            cached = (None, f"{type(err).__name__}: {err}", None)
        _STATE["parsed"][text] = cached
    return cached


def check_text(obj, text):
    """None when ``text`` (the printout of ``obj``) parses back to ``obj`` and
    prints back to itself (or fails for a listed reason), else a message."""
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    parsed, parse_error, again = _parse_and_reprint(text)
    message = None
    known = None
    if parsed is None:
        known = _known_failure(parse_error=parse_error)
        message = f"the printed text does not parse back: {parse_error}"
    else:
        # Every object is compared, even when another printed the same text.
        # Free variables (ill-formed IR built on purpose) print as `x = T.int32()`
        # definitions and come back as new variables: they are matched.
        mismatch = tvm.ir.get_first_structural_mismatch(parsed, obj, map_free_vars=True)
        if mismatch is not None:
            known = _known_failure(mismatch=mismatch)
            try:
                tvm.ir.assert_structural_equal(parsed, obj, map_free_vars=True)
            except ValueError as err:
                message = f"parse(print(m)) is not structurally equal to m:\n{err}"
        elif again != text:
            message = f"print(parse(print(m))) != print(m):\n--- print(m)\n{text}\n--- print(parse(print(m)))\n{again}"
    if known is not None:
        _STATE["skipped"][known] = _STATE["skipped"].get(known, 0) + 1
        return None
    _STATE["checked"] += 1
    _STATE["distinct"].add(text)
    if message is not None:
        message = f"{message}\n--- the printed text:\n{text}"
    return message


def _caller_test_file():
    frame = sys._getframe(2)  # pylint: disable=protected-access
    while frame is not None:
        name = os.path.basename(frame.f_code.co_filename)
        if name.startswith("test_"):
            return os.path.abspath(frame.f_code.co_filename)
        frame = frame.f_back
    return None


def _attr(obj, name):
    """obj.name, or None (also where a package stub raises NotImplementedError)."""
    try:
        return getattr(obj, name, None)
    except NotImplementedError:
        return None


def _checked_types(tvm):
    """IRModules, PrimFuncs and (once the Relax package is there) Relax functions."""
    relax_function = _attr(_attr(tvm, "relax"), "Function")
    if isinstance(relax_function, type):
        return (tvm.IRModule, tvm.tir.PrimFunc, relax_function)
    return (tvm.IRModule, tvm.tir.PrimFunc)


def _collect(obj):
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    if _STATE["checking"] or not isinstance(obj, _checked_types(tvm)):
        return
    _STATE["checking"] = True
    try:
        message = _check(obj)
    finally:
        _STATE["checking"] = False
    if message is None:
        return
    frames = [f for f in traceback.extract_stack()[:-2] if "/_pytest/" not in f.filename and "/pluggy/" not in f.filename]
    where = "".join(traceback.format_list(frames[-4:]))
    entry = f"{message}\n--- built at:\n{where}"
    if _STATE["current"] is not None:
        _STATE["pending"].setdefault(_STATE["current"], []).append(entry)
    else:
        _STATE["import_time"].setdefault(_caller_test_file(), []).append(entry)


def _wrap_returning(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        result = func(*args, **kwargs)
        _collect(result)
        return result

    return wrapper


def _wrap_taking_first(func):
    @functools.wraps(func)
    def wrapper(inputs, *args, **kwargs):
        _collect(inputs)
        return func(inputs, *args, **kwargs)

    return wrapper


def install():
    """Wraps the public entry points (once)."""
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    from tessera.script import _parser  # pylint: disable=import-outside-toplevel
    from tessera.tir.schedule import Schedule  # pylint: disable=import-outside-toplevel

    if getattr(_parser, "_fixed_point_installed", False):
        return
    _parser._fixed_point_installed = True  # pylint: disable=protected-access
    for name in ("parse_function", "parse_class"):  # what @T.prim_func / @I.ir_module call
        setattr(_parser, name, _wrap_returning(getattr(_parser, name)))
    tvm.script.from_source = _wrap_returning(tvm.script.from_source)
    Schedule.mod = property(_wrap_returning(Schedule.mod.fget), doc=Schedule.mod.__doc__)
    tvm.IRModule.from_expr = staticmethod(_wrap_returning(tvm.IRModule.from_expr))
    tvm.build = _wrap_taking_first(tvm.build)
    tvm.driver.build = tvm.build
    # Relax modules reach relax.build after passes (BindParams...): check them there too.
    relax = _attr(tvm, "relax")
    build = _attr(relax, "build")
    if callable(build):
        relax.build = _wrap_taking_first(build)
        vm = _attr(relax, "vm")
        if vm is not None and _attr(vm, "build") is build:
            vm.build = relax.build


def enabled():
    return os.environ.get("TESSERA_NO_FIXED_POINT", "") != "1"


def pytest_configure(config):  # pylint: disable=unused-argument
    if enabled():
        install()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _STATE["current"] = item.nodeid
    failures = list(_STATE["import_time"].pop(os.path.abspath(str(item.fspath)), []))
    try:
        yield
    finally:
        _STATE["current"] = None
    failures += _STATE["pending"].pop(item.nodeid, [])
    if failures:
        pytest.fail(f"{len(failures)} IR object(s) built by this test do not round-trip through the printer:\n\n"
                    + "\n\n".join(failures), pytrace=False)


def pytest_terminal_summary(terminalreporter):
    if not enabled():
        return
    skipped = ", ".join(f"{n} skipped ({reason})" for reason, n in sorted(_STATE["skipped"].items()))
    terminalreporter.write_line(
        f"printer fixed point: {_STATE['checked']} IR objects checked ({len(_STATE['distinct'])} distinct "
        f"printouts){'; ' + skipped if skipped else ''}")
