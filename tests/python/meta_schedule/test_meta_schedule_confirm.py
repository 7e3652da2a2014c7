"""The final confirmation of tuning (meta_schedule/confirm.py): a first measurement of
the untuned default that came out slow (a loaded machine) must not let a slower
candidate win. A fake runner times the default 3x slow the first time only; the
confirmation re-measures default and top candidates side by side, commits the confirmed
timings, and the database's best query (compile_tir / compile_relax) returns the default."""
import time

import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax
from tessera.meta_schedule.arg_info import ArgInfo
from tessera.meta_schedule.builder import BuilderInput, LocalBuilder
from tessera.meta_schedule.database import JSONDatabase, MemoryDatabase, TuningRecord
from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
from tessera.meta_schedule.runner import LocalRunner, RunnerInput, RunnerResult
from tessera.meta_schedule.runner.runner import Runner
from tessera.meta_schedule.tune_context import normalize_mod

from ms_helpers import matmul_module, zero_fill_module
from .test_meta_schedule_relax import mlp_module, mlp_numpy, mlp_params
from .test_meta_schedule_tune import _matmul_check

TARGET = "llvm --num-cores=1"
N = 32


class HashingBuilder(LocalBuilder):
    """A LocalBuilder remembering the structural hash of each artifact's module."""

    def __init__(self, paths):
        super().__init__(max_workers=1)
        self.paths = paths

    def build(self, build_inputs):
        results = super().build(build_inputs)
        for inp, res in zip(build_inputs, results):
            if res.error_msg is None:
                self.paths[res.artifact_path] = int(tvm.ir.structural_hash(inp.mod["main"].body))
        return results


class SlowFirstDefaultRunner(Runner):
    """Checks every candidate for real (LocalRunner) but reports fixed times: a default
    schedule 1 ms, except its first measurement (3 ms, as on a loaded machine); every
    other candidate 1.5 ms."""

    def __init__(self, paths, default_hashes):
        self.inner = LocalRunner()
        self.paths, self.default_hashes = paths, default_hashes
        self.seen = set()

    def make_reference(self, mod, target, args_info, path, seed=0):
        return self.inner.make_reference(mod, target, args_info, path, seed)

    def run(self, runner_inputs):
        out = []
        for inp, res in zip(runner_inputs, self.inner.run(runner_inputs)):
            if res.error_msg is not None:
                out.append(res)
                continue
            h = self.paths[inp.artifact_path]
            if h in self.default_hashes:
                secs = 3e-3 if h not in self.seen else 1e-3
                self.seen.add(h)
            else:
                secs = 1.5e-3
            out.append(RunnerResult([secs], None))
        return out

    def close(self):
        self.inner.close()


def _default_hash(mod):
    return int(tvm.ir.structural_hash(default_schedule(normalize_mod(mod), tvm.target.Target(TARGET)).mod["main"]
                                      .body))


def _tune(mod, work_dir, confirm_top_k, trials=6, **kw):
    paths = {}
    runner = SlowFirstDefaultRunner(paths, {_default_hash(mod)})
    builder = HashingBuilder(paths)
    try:
        return ms.tune_tir(mod, TARGET, work_dir, trials, num_trials_per_iter=3, seed=0, builder=builder,
                           runner=runner, confirm_top_k=confirm_top_k, **kw)
    finally:
        builder.close()
        runner.close()


def _best_is_default(db, mod):
    rec = db.query_tuning_record(normalize_mod(mod), target=str(tvm.target.Target(TARGET)))
    return is_default_trace(rec.trace, default_schedule(normalize_mod(mod), tvm.target.Target(TARGET))), rec


def _run_matmul(db, mod):
    _matmul_check(ms.tir_integration.compile_tir(db, mod, TARGET), N)  # against NumPy


def test_confirmation_gives_the_default_back_and_compile_uses_it(tmp_path, capsys):
    mod = matmul_module(N)
    db = _tune(mod, str(tmp_path), 3)
    out = capsys.readouterr().out
    assert "confirmation (4 candidates x 5 interleaved rounds)" in out and "the default wins at 1000.0 us" in out
    assert "confirmed default/best 1.00x" in out
    is_dflt, rec = _best_is_default(db, mod)
    assert is_dflt and rec.mean_run_sec == pytest.approx(1e-3)
    _run_matmul(db, mod)
    # The files say the same: a fresh JSONDatabase on them picks the default too.
    assert _best_is_default(JSONDatabase(work_dir=str(tmp_path)), mod)[0]


def test_disabled_confirmation_keeps_the_single_measurements(tmp_path, capsys):
    mod = matmul_module(N)
    db = _tune(mod, str(tmp_path), 0)
    assert "confirmation" not in capsys.readouterr().out
    is_dflt, rec = _best_is_default(db, mod)
    assert not is_dflt and rec.mean_run_sec == pytest.approx(1.5e-3)  # the old behaviour: the noise wins
    assert len(db.records_of(normalize_mod(mod))) == 6
    _run_matmul(db, mod)


def test_resumed_run_confirms_and_its_record_wins(tmp_path, capsys):
    mod = matmul_module(N)
    _tune(mod, str(tmp_path), 0)
    assert not _best_is_default(JSONDatabase(work_dir=str(tmp_path)), mod)[0]
    # Rerun with the budget already spent: no new trial, but the confirmation runs.
    db = _tune(mod, str(tmp_path), 2)
    out = capsys.readouterr().out
    assert "resuming: 6 trials" in out and "confirmation (3 candidates x 5 interleaved rounds)" in out
    assert _best_is_default(db, mod)[0] and _best_is_default(JSONDatabase(work_dir=str(tmp_path)), mod)[0]
    # Confirmed records count as no new trial; a third run measures and confirms nothing more.
    n_recs = len(db.get_all_tuning_records())
    db = _tune(mod, str(tmp_path), 2)
    out = capsys.readouterr().out
    assert "resuming: 6 trials" in out and "confirmation" not in out
    assert len(db.get_all_tuning_records()) == n_recs


def test_confirmation_is_skipped_when_no_time_is_left(tmp_path, capsys):
    mod = matmul_module(N)
    _tune(mod, str(tmp_path), 0)
    _tune(mod, str(tmp_path), 3, max_time_s=1e-6)
    assert "confirmation skipped: the time budget is spent" in capsys.readouterr().out
    assert not _best_is_default(JSONDatabase(work_dir=str(tmp_path)), mod)[0]


def test_time_budget_keeps_room_for_the_confirmation(tmp_path, capsys):
    mod = matmul_module(N)
    start = time.time()
    db = _tune(mod, str(tmp_path), 3, trials=500, max_time_s=6)
    elapsed = time.time() - start
    out = capsys.readouterr().out
    assert "time budget of 6s spent" in out and "the default wins" in out, out
    assert elapsed < 6 + 8, out  # a round and the confirmation may overrun a little on a loaded machine
    assert _best_is_default(db, mod)[0]


def test_tune_relax_confirms_every_task_and_compile_relax_matches_numpy(tmp_path, capsys):
    mod, params = mlp_module(), mlp_params()
    nd_params = {k: tvm.nd.array(v) for k, v in params.items()}
    tasks = ms.relax_integration.extract_tasks(mod, TARGET, nd_params)
    paths = {}
    runner = SlowFirstDefaultRunner(paths, {_default_hash(t.dispatched[0]) for t in tasks})
    builder = HashingBuilder(paths)
    try:
        db = ms.relax_integration.tune_relax(mod, nd_params, TARGET, str(tmp_path), 8, num_trials_per_iter=2,
                                             seed=0, builder=builder, runner=runner, database="memory")
    finally:
        builder.close()
        runner.close()
    out = capsys.readouterr().out
    for t in tasks:
        dflt = default_schedule(normalize_mod(t.dispatched[0]), tvm.target.Target(TARGET))
        rec = db.query_tuning_record(t.dispatched[0], target=str(tvm.target.Target(TARGET)))
        assert is_default_trace(rec.trace, dflt), (t.task_name, out)
    assert out.count("the default wins") == len(tasks)
    ex = ms.relax_integration.compile_relax(db, mod, TARGET, nd_params)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.random.default_rng(1).random((1, 32)).astype("float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), mlp_numpy(x, params), rtol=1e-4, atol=1e-4)


def test_local_runner_times_candidates_interleaved_and_rejects_a_wrong_one(tmp_path):
    mod = normalize_mod(matmul_module(N))
    target = tvm.target.Target(TARGET)
    args_info = ArgInfo.from_prim_func(mod["main"])
    runner, builder = LocalRunner(number=2), LocalBuilder(max_workers=1)
    try:
        ref = runner.make_reference(mod, target, args_info, str(tmp_path / "ref.npz"))
        mods = [default_schedule(mod, target).mod, mod, normalize_mod(zero_fill_module(N))]
        builds = builder.build([BuilderInput(m, str(target)) for m in mods])
        res = runner.run_interleaved([RunnerInput(b.artifact_path, "cpu", args_info, ref) for b in builds], 4)
    finally:
        builder.close()
        runner.close()
    assert [len(r) for r in res[:2]] == [4, 4] and all(t > 0 for r in res[:2] for t in r)
    assert isinstance(res[2], str) and "wrong result" in res[2]


def _rec(db, wl, sch, secs, error=None):
    db.commit_tuning_record(TuningRecord(sch.trace, wl, None if secs is None else [secs], TARGET, None, error))


def test_best_query_uses_latest_measurement_and_prefers_confirmed_traces():
    mod = normalize_mod(matmul_module(N))
    db = MemoryDatabase()
    wl = db.commit_workload(mod)
    schs = []
    for factor in (2, 4, 8):
        sch = tvm.tir.Schedule(mod)
        sch.split(sch.get_loops(sch.get_block("C", "main"))[0], factors=[None, factor])
        schs.append(sch)
    a, b, c = schs
    _rec(db, wl, a, 3e-3)
    _rec(db, wl, b, 1e-3)
    _rec(db, wl, c, 2e-3)
    assert db.query_tuning_record(mod).run_secs == [1e-3]
    # b and a are confirmed: b slower than a now; c (measured once, 2 ms) cannot win over them.
    _rec(db, wl, a, 2.5e-3)
    _rec(db, wl, b, 2.8e-3)
    best = db.query_tuning_record(mod)
    assert str(best.trace.as_json()) == str(a.trace.as_json()) and best.run_secs == [2.5e-3]
    top = db.get_top_k(wl, 3)
    assert [r.run_secs for r in top] == [[2e-3], [2.5e-3], [2.8e-3]]  # one per trace, its latest
    # A confirmation that failed removes the trace: b is the best confirmed one.
    _rec(db, wl, a, None, "confirmation: run timed out")
    assert db.query_tuning_record(mod).run_secs == [2.8e-3]


def test_confirm_top_k_bad_values(tmp_path):
    mod = matmul_module(N)
    with pytest.raises(tvm.error.TVMError, match="confirm_top_k"):
        ms.tune_tir(mod, TARGET, str(tmp_path), 2, confirm_top_k=-1)
    with pytest.raises(TypeError, match="confirm_top_k"):
        ms.tune_tir(mod, TARGET, str(tmp_path), 2, confirm_top_k=1.5)
    with pytest.raises(ValueError, match="confirm_top_k"):
        ms.relax_integration.tune_relax(mlp_module(), None, TARGET, str(tmp_path), 2, confirm_top_k=-2)


def test_reserve_covers_one_task_confirmation_when_trials_are_slow():
    from tessera.meta_schedule.budget import TuningBudget
    budget = TuningBudget(500, max_time_s=6, start=0.0)
    budget.record_round(3, 3.6)  # 1.2 s per trial, as on a loaded machine
    budget.reserve_for(1, 3, 0.15)
    assert abs(budget.reserve_s - 4 * (1.2 + 0.15)) < 1e-9  # not capped at a fifth (1.2 s)
    budget.reserve_for(10, 3, 0.15)
    assert abs(budget.reserve_s - 4 * (1.2 + 0.15)) < 1e-9  # the fifth is below one task: one task
    big = TuningBudget(5000, max_time_s=1200, start=0.0)
    big.record_round(100, 100.0)
    big.reserve_for(30, 3, 0.15)
    assert abs(big.reserve_s - 30 * 4 * (1.0 + 0.15)) < 1e-9  # 138 s: under a fifth (240 s)
    big.reserve_for(60, 3, 0.15)
    assert abs(big.reserve_s - 240.0) < 1e-9  # 276 s capped at a fifth
