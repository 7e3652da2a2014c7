"""Smoke test of the atheris fuzz targets in tests/fuzz/: each imports and runs
a few random inputs (without the fuzzing engine) in a capped subprocess, without
a crash; the targets whose finding classes are all fixed (schedule, load_module)
must also report no finding. The real runs report the rest. `make fuzz` runs them for real; `make test` never does."""
import os

import pytest

from .harness import run_case

FUZZ_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))


@pytest.mark.parametrize("target", ["parser", "roundtrip", "schedule", "load_module"])
def test_fuzz_target_runs(target):
    pytest.importorskip("atheris")
    res = run_case(f"""
        import sys
        sys.path.insert(0, {FUZZ_DIR!r})
        import fuzz_common, fuzz_{target} as t
        rec = fuzz_common.smoke({target!r}, t.body, iterations=15)
        assert rec.execs == 15, rec.execs
        print(rec.summary())
        assert {target!r} not in ("schedule", "load_module") or not rec.seen, rec.summary()
    """, timeout=60)
    assert res.returncode == 0, res.describe()
