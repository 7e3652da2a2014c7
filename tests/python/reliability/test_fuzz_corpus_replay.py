"""Replays the findings the coverage-guided fuzzers saved in tests/fuzz/corpus/
(roundtrip and load_module): each must now pass its target's check (round trip
structurally equal; a corrupted library refused with a TVMError naming the
file), in a capped subprocess. Findings whose cause is still open are listed in
OPEN with the reason, and are expected to fail until it is fixed."""
import os

import pytest

from .harness import run_case

FUZZ_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
CORPUS = os.path.join(FUZZ_DIR, "corpus")


def _inputs(target):
    d = os.path.join(CORPUS, target)
    return sorted(f for f in os.listdir(d) if not f.endswith(".txt")) if os.path.isdir(d) else []


def _open_reason(target, name):
    """Still-open findings: the printer writes `with T.LetStmt(...)`, which the parser does not read yet."""
    desc = os.path.join(CORPUS, target, name + ".txt")
    if os.path.exists(desc) and "T.LetStmt" in open(desc).read(2000):
        return "`with T.LetStmt` is printed but not parsed yet (issue [T])"
    return None


@pytest.mark.parametrize("target,name", [(t, n) for t in ("roundtrip", "load_module") for n in _inputs(t)])
def test_saved_finding_replays_clean(target, name):
    pytest.importorskip("atheris")
    res = run_case(f"""
        import sys, atheris
        sys.path.insert(0, {FUZZ_DIR!r})
        import fuzz_{target} as t
        t.body(atheris.FuzzedDataProvider(open({os.path.join(CORPUS, target, name)!r}, "rb").read()))
        print("clean")
    """, timeout=120)
    reason = _open_reason(target, name)
    if reason and res.returncode != 0 and not res.crashed:
        pytest.xfail(reason)
    assert res.returncode == 0 and "clean" in res.stdout, res.describe()
