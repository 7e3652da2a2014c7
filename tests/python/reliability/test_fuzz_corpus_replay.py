"""Replays the findings the coverage-guided fuzzers saved in tests/fuzz/corpus/
(roundtrip, load_module, relax_parser, relax_build): each must now pass its target's check (round trip
structurally equal; a corrupted library refused with a TVMError naming the
file), in a capped subprocess."""
import os

import pytest

from .harness import run_case

FUZZ_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
CORPUS = os.path.join(FUZZ_DIR, "corpus")


def _inputs(target):
    d = os.path.join(CORPUS, target)
    return sorted(f for f in os.listdir(d) if not f.endswith(".txt")) if os.path.isdir(d) else []


@pytest.mark.parametrize("target,name", [(t, n) for t in ("roundtrip", "load_module", "relax_parser", "relax_build") for n in _inputs(t)])
def test_saved_finding_replays_clean(target, name):
    pytest.importorskip("atheris")
    res = run_case(f"""
        import sys, atheris
        sys.path.insert(0, {FUZZ_DIR!r})
        import fuzz_{target} as t
        t.body(atheris.FuzzedDataProvider(open({os.path.join(CORPUS, target, name)!r}, "rb").read()))
        print("clean")
    """, timeout=120)
    assert res.returncode == 0 and "clean" in res.stdout, res.describe()
