"""The untuned default schedule (tir.transform.DefaultCPUSchedule) is the first
candidate of every CPU task: measured in the first round, recorded in the database
(its trace replays the default schedule), never measured twice when resuming, so the
best record is never slower than not tuning. Small workloads, few trials."""
import numpy as np

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
from tessera.meta_schedule.tune_context import normalize_mod

from ms_helpers import matmul_module

TARGET = "llvm --num-cores=1"


def _identity_space(sch):
    """A restricted space: the unscheduled loop nest only (naive, slow)."""
    return sch


def _default_records(db, mod, target):
    dflt = default_schedule(normalize_mod(mod), tvm.target.Target(target))
    assert dflt is not None
    return [r for r in db.records_of(normalize_mod(mod)) if is_default_trace(r.trace, dflt)], dflt


def test_default_trace_replays_the_default_schedule():
    mod = normalize_mod(matmul_module(64))
    target = tvm.target.Target(TARGET)
    dflt = default_schedule(mod, target)
    expected = tvm.tir.transform.DefaultCPUSchedule(target)(mod)["main"]
    got = dflt.mod["main"]
    # Same body; DefaultCPUSchedule also marks the function "tir.is_scheduled".
    assert tvm.ir.structural_equal(got.body, expected.body)
    assert default_schedule(mod, tvm.target.Target("cuda")) is None


def test_restricted_space_ends_no_slower_than_the_default(tmp_path):
    n = 128
    mod = matmul_module(n)
    space = ms.space_generator.ScheduleFn(_identity_space)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 2, num_trials_per_iter=2, space=space, strategy="random", seed=0)
    recs = db.records_of(normalize_mod(mod))
    assert len(recs) == 2  # the default and the one candidate of the space
    dflt_recs, _ = _default_records(db, mod, TARGET)
    assert len(dflt_recs) == 1 and dflt_recs[0].is_valid
    best = min(r.mean_run_sec for r in recs if r.is_valid)
    assert best <= dflt_recs[0].mean_run_sec
    # The best record builds and computes the matmul.
    sch = ms.tir_integration.compile_tir(db, mod, TARGET)
    rng = np.random.default_rng(0)
    a, b = (rng.random((n, n)).astype("float32") for _ in range(2))
    c = tvm.nd.empty((n, n), "float32")
    tvm.build(sch.mod, target="llvm")["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_default_is_measured_once_across_resumed_runs(tmp_path):
    mod = matmul_module(64)
    for budget in (2, 4):
        db = ms.tune_tir(mod, TARGET, str(tmp_path), budget, num_trials_per_iter=2, strategy="random", seed=0)
    assert len(db.records_of(normalize_mod(mod))) == 4
    dflt_recs, _ = _default_records(db, mod, TARGET)
    assert len(dflt_recs) == 1
