"""Resuming a tuning run replays each database record's trace once: the cost model's warm
start, the task's set of measured modules and the search strategy's seeds share that one
replay (a counter on Trace.apply_to_schedule, per record, with the XGBoost model that warm
starts and with the random one that does not); the resumed run still knows every module
it measured (a further round measures none twice)."""
import collections

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.database import JSONDatabase
from tessera.meta_schedule.tune_context import normalize_mod
from tessera.tir.schedule.trace import Trace

from ms_helpers import matmul_module

TARGET = "llvm --num-cores=1"


def _count_replays(monkeypatch, traces):
    counts = collections.Counter()
    ids = {id(t) for t in traces}
    original = Trace.apply_to_schedule

    def counting(self, sch, *args, **kwargs):
        if id(self) in ids:
            counts[id(self)] += 1
        return original(self, sch, *args, **kwargs)

    monkeypatch.setattr(Trace, "apply_to_schedule", counting)
    return counts


def _module_hashes(db, mod):
    out = []
    for rec in db.records_of(mod):
        sch = tvm.tir.Schedule(mod)
        rec.trace.apply_to_schedule(sch, remove_postproc=False)
        out.append(int(tvm.ir.structural_hash(sch.mod)))
    return out


def test_resume_replays_each_record_once(tmp_path, monkeypatch):
    mod = matmul_module(32)
    work_dir = str(tmp_path)
    # confirm_top_k=0: the final confirmation (its own tests) would replay its candidates again
    ms.tune_tir(mod, TARGET, work_dir, 4, num_trials_per_iter=2, seed=0, confirm_top_k=0)
    for cost_model in ("xgb", "random"):
        db = JSONDatabase(work_dir=work_dir)
        recs = db.get_all_tuning_records()
        assert len(recs) == 4
        counts = _count_replays(monkeypatch, [r.trace for r in recs])
        # the budget is spent: the run only prepares (warm start, measured set, seeds)
        ms.tune_tir(mod, TARGET, work_dir, 4, num_trials_per_iter=2, seed=1, database=db, cost_model=cost_model,
                    confirm_top_k=0)
        assert [counts[id(r.trace)] for r in recs] == [1] * 4, cost_model
        monkeypatch.undo()
    # a resumed round still skips every module measured before
    db = ms.tune_tir(mod, TARGET, work_dir, 6, num_trials_per_iter=2, seed=2, confirm_top_k=0)
    hashes = _module_hashes(db, normalize_mod(mod))
    assert len(hashes) == 6 and len(set(hashes)) == 6
