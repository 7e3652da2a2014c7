"""meta_schedule databases: JSON lines round trip, queries, a truncated last line (a
killed writer) and kill -9 of a tuning run followed by a resume from the same work_dir."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.arg_info import ArgInfo, TensorInfo
from tessera.meta_schedule.database import TuningRecord

from ms_helpers import matmul_module, stochastic_schedule_mm

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/python
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def _hand_schedule(mod, i_inner, j_inner):
    """The module stochastic_schedule_mm gives for these inner factors, by hand."""
    sch = tvm.tir.Schedule(mod)
    block = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block)
    i_0, i_1 = sch.split(i, factors=[None, i_inner])
    j_0, j_1 = sch.split(j, factors=[None, j_inner])
    sch.reorder(i_0, j_0, k, i_1, j_1)
    sch.decompose_reduction(block, k)
    return sch.mod


def _records(mod, db):
    workload = db.commit_workload(mod)
    out = []
    for seed, secs, err in ((1, [3e-3, 3.2e-3], None), (2, [1e-3], None), (3, None, "run crash: died"),
                            (4, [2e-3], None)):
        sch = stochastic_schedule_mm(tvm.tir.Schedule(mod, seed=seed))
        rec = TuningRecord(sch.trace, workload, secs, "llvm --num-cores=1",
                           ArgInfo.from_prim_func(mod["main"]), err)
        db.commit_tuning_record(rec)
        out.append((sch, rec))
    return out


@pytest.mark.parametrize("kind", ["json", "memory"])
def test_records_round_trip_and_queries(tmp_path, kind):
    mod = matmul_module(32)
    db = ms.database.JSONDatabase(work_dir=str(tmp_path)) if kind == "json" else ms.database.MemoryDatabase()
    made = _records(mod, db)
    dbs = [db]
    if kind == "json":
        dbs.append(ms.database.JSONDatabase(work_dir=str(tmp_path)))
    for d in dbs:
        recs = d.get_all_tuning_records()
        assert len(recs) == 4
        for (sch, want), got in zip(made, recs):
            assert str(got.trace) == str(sch.trace)
            assert got.run_secs == want.run_secs
            assert got.target == "llvm --num-cores=1"
            assert got.args_info == [TensorInfo("float32", [32, 32])] * 3
            assert got.error_msg == want.error_msg
        best = d.query_tuning_record(mod, "llvm --num-cores=1")
        assert best.run_secs == [1e-3]
        # the best record's schedule equals the hand-written schedule with its decisions
        tiles = [inst for inst in best.trace.insts if inst.kind.name == "SamplePerfectTile"]
        (_, i_in), (_, j_in) = [[int(x) for x in best.trace.decisions[inst]] for inst in tiles]
        sch = d.query_schedule(mod, "llvm --num-cores=1")
        tvm.ir.assert_structural_equal(sch.mod, _hand_schedule(mod, i_in, j_in))
        tvm.ir.assert_structural_equal(d.query_ir_module(mod), sch.mod)
        assert [r.run_secs for r in d.get_top_k(d.commit_workload(mod), 2)] == [[1e-3], [2e-3]]
        assert d.query_tuning_record(matmul_module(16)) is None
        assert d.query_tuning_record(mod, "llvm -mcpu=other") is None


def test_json_files_are_json_lines(tmp_path):
    mod = matmul_module(32)
    _records(mod, ms.database.JSONDatabase(work_dir=str(tmp_path)))
    with open(tmp_path / "database_tuning_record.json") as f:
        lines = f.read().splitlines()
    assert len(lines) == 4
    for line in lines:
        idx, rec = json.loads(line)
        assert idx == 0 and set(rec) >= {"trace", "run_secs", "target", "args_info"}
    with open(tmp_path / "database_workload.json") as f:
        assert len(f.read().splitlines()) == 1


def test_truncated_last_line_is_skipped_and_repaired_by_the_next_append(tmp_path):
    mod = matmul_module(32)
    _records(mod, ms.database.JSONDatabase(work_dir=str(tmp_path)))
    path = tmp_path / "database_tuning_record.json"
    with open(path, "a") as f:
        f.write('[0, {"trace": {"insts": [["GetBl')   # a record cut short by kill -9
    cut = path.read_text()
    db = ms.database.JSONDatabase(work_dir=str(tmp_path))
    assert len(db.get_all_tuning_records()) == 4
    assert path.read_text() == cut  # opening only reads; the next append (under the lock) repairs
    sch = stochastic_schedule_mm(tvm.tir.Schedule(mod, seed=9))
    db.commit_tuning_record(TuningRecord(sch.trace, db.commit_workload(mod), [5e-3]))
    assert path.read_text().endswith("\n") and len(path.read_text().splitlines()) == 5
    assert len(ms.database.JSONDatabase(work_dir=str(tmp_path)).get_all_tuning_records()) == 5


def test_database_bad_inputs(tmp_path):
    with pytest.raises(ValueError, match="work_dir"):
        ms.database.JSONDatabase()
    db = ms.database.MemoryDatabase()
    mod = matmul_module(16)
    sch = stochastic_schedule_mm(tvm.tir.Schedule(mod, seed=1))
    with pytest.raises(ValueError, match="never committed"):
        db.commit_tuning_record(TuningRecord(sch.trace, ms.database.Workload(mod), [1e-3]))
    with pytest.raises(TypeError, match="TuningRecord"):
        db.commit_tuning_record("record")
    with pytest.raises(TypeError, match="tir.Trace"):
        TuningRecord("trace", ms.database.Workload(mod))
    # a corrupt line in the middle is an error naming the line, not silently dropped
    _records(mod, ms.database.JSONDatabase(work_dir=str(tmp_path)))
    path = tmp_path / "database_tuning_record.json"
    lines = path.read_text().splitlines()
    lines[1] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="line 2"):
        ms.database.JSONDatabase(work_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError):
        ms.database.JSONDatabase(work_dir=None, path_workload=str(tmp_path / "no_w.json"),
                                 path_tuning_record=str(tmp_path / "no_r.json"), allow_missing=False)


_TUNE_SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = [{here!r}, {python!r}]
    from tessera import meta_schedule as ms
    from ms_helpers import matmul_module
    ms.tune_tir(matmul_module(64), "llvm --num-cores=1", {work_dir!r}, {trials}, num_trials_per_iter=1,
                strategy="random", seed=3)
""")


def _tune_process(work_dir, trials):
    script = _TUNE_SCRIPT.format(here=HERE, python=os.path.join(ROOT, "python"), work_dir=work_dir, trials=trials)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, text=True)


def _count_lines(path):
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return f.read().count("\n")


def test_kill_9_mid_run_then_resume(tmp_path):
    work_dir = str(tmp_path / "work")
    rec_path = os.path.join(work_dir, "database_tuning_record.json")
    proc = _tune_process(work_dir, 40)
    deadline = time.time() + 120
    while _count_lines(rec_path) < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, proc.stdout.read()
    os.killpg(proc.pid, signal.SIGKILL)      # the tuner and its worker processes
    proc.wait()
    db = ms.database.JSONDatabase(work_dir=work_dir)
    kept = len(db.get_all_tuning_records())
    assert 3 <= kept < 40
    assert all(r.is_valid for r in db.get_all_tuning_records())

    total = kept + 3
    proc = _tune_process(work_dir, total)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert f"resuming: {kept} trials already in the database" in out
    recs = ms.database.JSONDatabase(work_dir=work_dir).get_all_tuning_records()
    assert len({r.trace_key for r in recs}) == total  # trials; the final confirmation may re-measure a few
    mod = matmul_module(64)
    hashes = set()
    for r in recs:
        sch = tvm.tir.Schedule(mod)
        r.trace.apply_to_schedule(sch)
        hashes.add(tvm.ir.structural_hash(sch.mod))
    assert len(hashes) == total     # the resumed run measured no module twice
