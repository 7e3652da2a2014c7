"""pytest plugin used by run_tvm_tests.py: makes `import tvm` (and every
`tvm.<sub>` module) resolve to the matching `tessera.<sub>` module, without
copying anything, and records each test's outcome as one JSON line in the file
named by $TESSERA_COMPAT_REPORT. With $TESSERA_COMPAT_LENIENT_PARSE=1 (a
measurement aid), a TVMScript function or module that does not parse becomes
an UnparsedTVMScript object raising the ParseError when used, so the rest of
its file still loads and only the tests using it fail."""
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import sys


class _AliasLoader(importlib.abc.Loader):
    """Hands out the tessera module itself; importlib then sets __spec__ and
    __loader__ to the alias's, which exec_module puts back."""

    def __init__(self, module):
        self._module = module
        self._real_spec = module.__spec__

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        if self._real_spec is not None:
            module.__spec__ = self._real_spec
            module.__loader__ = self._real_spec.loader


class TvmAliasFinder(importlib.abc.MetaPathFinder):
    """Finds `tvm[.x.y]` as the importable `tessera[.x.y]`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tvm" and not fullname.startswith("tvm."):
            return None
        real_name = "tessera" + fullname[3:]
        try:
            module = importlib.import_module(real_name)
        except ModuleNotFoundError as err:
            if err.name == real_name:
                return None
            raise
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                              origin=getattr(module, "__file__", None))
        real_spec = module.__spec__
        if real_spec is not None and real_spec.submodule_search_locations is not None:
            spec.submodule_search_locations = list(real_spec.submodule_search_locations)
        return spec


class UnparsedTVMScript:
    """Stands for a TVMScript definition that did not parse; any use raises."""

    def __init__(self, name, error):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_error", error)

    def _raise(self, *args, **kwargs):
        from tessera.error import ParseError  # pylint: disable=import-outside-toplevel

        raise ParseError(f"UnparsedTVMScript: {self._name} did not parse: {self._error}")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._raise()

    __call__ = __getitem__ = __setattr__ = __eq__ = __iter__ = _raise
    __hash__ = object.__hash__


def _lenient_parsing():
    from tessera.error import ParseError  # pylint: disable=import-outside-toplevel
    from tessera.script import _parser  # pylint: disable=import-outside-toplevel

    def lenient(parse):
        def wrapper(obj, *args, **kwargs):
            try:
                return parse(obj, *args, **kwargs)
            except ParseError as err:
                return UnparsedTVMScript(getattr(obj, "__qualname__", repr(obj)), err)
        return wrapper

    _parser.parse_function = lenient(_parser.parse_function)
    _parser.parse_class = lenient(_parser.parse_class)


def install():
    if not any(isinstance(f, TvmAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TvmAliasFinder())
    if os.environ.get("TESSERA_COMPAT_LENIENT_PARSE") == "1":
        _lenient_parsing()


install()

_REPORT = os.environ.get("TESSERA_COMPAT_REPORT")


def _write(record):
    if _REPORT:
        with open(_REPORT, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def _reason(report):
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    return str(report.longrepr)[-2000:]


def _full_text(report):
    try:
        return str(report.longrepr)
    except Exception:  # pylint: disable=broad-except
        return ""


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and not report.passed) \
            or (report.when == "teardown" and report.failed):
        outcome = "passed" if report.passed else "skipped" if report.skipped else "failed"
        _write({"nodeid": report.nodeid, "when": report.when, "outcome": outcome,
                "reason": "" if report.passed else _reason(report),
                "text": _full_text(report) if report.failed else ""})


def pytest_collectreport(report):
    if report.failed:
        _write({"nodeid": report.nodeid, "when": "collect", "outcome": "error",
                "reason": _reason(report), "text": _full_text(report)})


# TVM v0.18's ONNX tests import onnx.mapping, which onnx 1.15+ dropped.
from onnx_mapping_shim import install as _install_onnx_mapping  # noqa: E402  pylint: disable=wrong-import-position
_install_onnx_mapping()

# TVM v0.18's test_frontend_from_fx.py imports torchvision, which cannot load beside this
# machine's pinned PyTorch: a stand-in with the torchvision.ops functions it uses.
from torchvision_shim import install as _install_torchvision  # noqa: E402  pylint: disable=wrong-import-position
_install_torchvision()
