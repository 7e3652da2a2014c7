"""A pytest plugin for builds that leave a backend out (CMake TESSERA_USE_LLVM=OFF):
a test that fails only because it compiles for a target kind this build lacks
("target kind 'llvm' is not built into this Tessera", raised by tvm.build, or
shown in a subprocess's output that the failure quotes) is reported as skipped
with that reason. Tests that know they need LLVM say so with
``tvm.testing.requires_llvm``; this catches the rest. Loaded by tests/python/conftest.py."""
import re

import pytest

# The message of codegen/target_build.cc for a kind whose backend a build option left out.
_MISSING = re.compile(r"target kind '([\w.-]+)' is not built into this Tessera")


def missing_backend(text):
    """The target kind a failure's text says is not built in, else None."""
    found = _MISSING.search(text or "")
    return found.group(1) if found else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or not report.failed:
        return
    kind = missing_backend(str(call.excinfo.value)) or missing_backend(str(report.longrepr))
    if kind is None:
        return
    from .markers import _backend_built  # pylint: disable=import-outside-toplevel

    if _backend_built(kind):  # the backend exists: the message is the test's own failure
        return
    report.outcome = "skipped"
    report.longrepr = (str(item.path), item.location[1] or 0,
                       f"Skipped: needs target kind '{kind}', which this Tessera is built without")
