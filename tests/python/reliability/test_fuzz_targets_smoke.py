"""Smoke test of the atheris fuzz targets in tests/fuzz/: each imports and runs
a few random inputs (without the fuzzing engine) in a capped subprocess, without
a crash; the targets whose finding classes are all fixed (schedule, load_module)
must also report no finding. The real runs report the rest. `make fuzz` runs them for real; `make test` never does."""
import os

import pytest

from .harness import run_case

FUZZ_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))


@pytest.mark.parametrize("target", ["parser", "roundtrip", "schedule", "load_module", "relax_parser", "relax_build"])
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


def test_recorder_numbers_new_findings_after_the_saved_ones(tmp_path):
    """A later fuzzing run must not overwrite the reproducers an earlier run saved."""
    import sys
    sys.path.insert(0, FUZZ_DIR)
    import fuzz_common as fc
    rec = fc.Recorder("any")
    rec.dir = str(tmp_path)
    (tmp_path / "finding-3").write_bytes(b"earlier run")
    rec.record("call: ValueError (not a TVMError): x", b"first")
    rec.record("call: KeyError (not a TVMError): y", b"second")
    assert (tmp_path / "finding-3").read_bytes() == b"earlier run"
    assert (tmp_path / "finding-4").read_bytes() == b"first"
    assert (tmp_path / "finding-5").read_bytes() == b"second"
