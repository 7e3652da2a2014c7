"""tune_relax / tune_tir under a wall-clock budget (max_time_s): the run stops between
rounds soon after the limit with every record committed (the JSON database reloads to
the same records), progress lines report tasks tuned, total trials, the model's
estimated latency (sum of weight x best latency) and an ETA, and a rerun with the same
work_dir continues from the records there without measuring any module twice."""
import json
import os
import time

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.database import JSONDatabase
from tessera.meta_schedule.tune_context import normalize_mod

from ms_helpers import matmul_module
from .test_meta_schedule_relax import mlp_module, mlp_params

TARGET = "llvm --num-cores=1"


def _lines_parse(work_dir):
    for name in os.listdir(work_dir):
        if name.endswith(".json"):
            with open(os.path.join(work_dir, name), encoding="utf-8") as f:
                for line in f:
                    json.loads(line)


def _trace_keys(db):
    return [str(r.trace.as_json()) for r in db.get_all_tuning_records()]


def test_tune_relax_time_budget_progress_and_resume(tmp_path, capsys):
    params = {k: tvm.nd.array(v) for k, v in mlp_params().items()}
    work_dir = str(tmp_path / "tune")
    start = time.time()
    db = ms.relax_integration.tune_relax(mlp_module(), params, TARGET, work_dir, 500, num_trials_per_iter=2,
                                         max_time_s=6, seed=0, cost_model="random")
    elapsed = time.time() - start
    out = capsys.readouterr().out
    first = db.get_all_tuning_records()
    assert 0 < len(first) < 500
    assert elapsed < 6 + 20  # stops between rounds (a round here takes a second or two)
    assert "Time budget of 6s spent" in out
    progress = [ln for ln in out.splitlines() if ln.startswith("[task #")]
    assert progress and all("tasks tuned" in ln and "est. model latency" in ln and "ETA" in ln for ln in progress)
    # the estimate is the sum of weight x best latency of the summary table
    est = float(progress[-1].split("est. model latency ")[1].split(" us")[0])
    assert est > 0
    # consistent on disk: every line parses, a fresh load sees the same records
    _lines_parse(work_dir)
    reloaded = JSONDatabase(work_dir=work_dir)
    assert sorted(_trace_keys(reloaded)) == sorted(_trace_keys(db))

    # Trials are distinct traces: the final confirmation re-measures a few within the budget.
    n_first = len(set(_trace_keys(db)))
    db2 = ms.relax_integration.tune_relax(mlp_module(), params, TARGET, work_dir, n_first + 2,
                                          num_trials_per_iter=2, seed=1, cost_model="random")
    out = capsys.readouterr().out
    assert "resuming" in out
    assert len(set(_trace_keys(db2))) == n_first + 2
    assert set(_trace_keys(db)) <= set(_trace_keys(db2))
    # no module measured twice (per task: distinct scheduled modules)
    for task in ms.relax_integration.extract_tasks(mlp_module(), TARGET, params):
        mods = []
        for rec in {str(r.trace.as_json()): r for r in db2.records_of(task.mod)}.values():
            sch = tvm.tir.Schedule(task.mod)
            rec.trace.apply_to_schedule(sch, remove_postproc=False)
            mods.append(int(tvm.ir.structural_hash(sch.mod)))
        assert len(mods) == len(set(mods)), task.task_name


def test_tune_tir_time_budget_then_resume(tmp_path, capsys):
    mod = matmul_module(64)
    db = ms.tune_tir(mod, TARGET, str(tmp_path), 500, num_trials_per_iter=2, strategy="random", seed=0,
                     max_time_s=2)
    out = capsys.readouterr().out
    n = len({r.trace_key for r in db.records_of(normalize_mod(mod))})  # trials (confirmation re-measures some)
    assert 0 < n < 500 and "time budget of 2s spent" in out and "ETA" in out
    db2 = ms.tune_tir(mod, TARGET, str(tmp_path), n + 2, num_trials_per_iter=2, strategy="random", seed=1)
    assert len({r.trace_key for r in db2.records_of(normalize_mod(mod))}) == n + 2
