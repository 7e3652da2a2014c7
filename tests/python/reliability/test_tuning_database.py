"""The tuning database and tune_tir under bad input and sharing: every malformed line of a
JSONDatabase raises ValueError naming file and line; opening a database never writes (a
line another process is still appending survives); runs that share a work_dir, one after
the other or at the same time, each get their own workload's records back; tune_tir's
numeric arguments are checked up front, naming the parameter; a tuning script without an
``if __name__ == "__main__":`` guard is told so. Each case runs in a subprocess
(harness.run_case)."""
import os
import subprocess
import sys
import textwrap

import pytest

from . import harness

_PRELUDE = """
import fcntl, json, os, threading, time
import tessera as tvm
from tessera import meta_schedule as ms
from tessera.meta_schedule.database import JSONDatabase, TuningRecord
from tessera import te

def matmul(n):
    a = te.placeholder((n, n), "float32", name="A")
    b = te.placeholder((n, n), "float32", name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
    return tvm.IRModule({"main": te.create_prim_func([a, b, c]).with_attr("global_symbol", "main")})

def schedule(mod, seed, tile):
    sch = tvm.tir.Schedule(mod, seed=seed)
    i, j, k = sch.get_loops(sch.get_block("C", "main"))
    sch.split(i, factors=[None, tile])
    return sch

def commit(db, mod, seed, secs, tile=4):
    sch = schedule(mod, seed, tile)
    db.commit_tuning_record(TuningRecord(sch.trace, db.commit_workload(mod), [secs], "llvm"))
"""


def _run(body, timeout=60):
    res = harness.run_case(_PRELUDE + textwrap.dedent(body) + "\nprint('CASE-OK')\n", timeout=timeout)
    assert not res.crashed and res.returncode == 0 and "CASE-OK" in res.stdout, res.describe()
    return res


# --------------------------------------------------------------------------------------
# malformed lines name the file and line
# --------------------------------------------------------------------------------------
_BAD_RECORDS = [
    ('[0]', "[workload_index, record]"),
    ('{"trace": 1}', "[workload_index, record]"),
    ('[0, {"run_secs": [1.0]}]', "'trace'"),
    ('[0, 5]', "'trace'"),
    ('["0", {"trace": []}]', "workload index must be an integer"),
    ('[7, {"trace": []}]', "refers to workload 7"),
    ('[0, {"trace": 5}]', "malformed tuning record"),
    ('[0, {"trace": [[["Bogus", [], [], []]], []], "run_secs": [1]}]', "malformed tuning record"),
    ('[0, {"trace": [[], []], "args_info": [["BAD", "x", []]]}]', "malformed tuning record"),
    ('[0, {"trace": [[], []], "workload_hash": "123"}]', "structural hash 123"),
    ('not json', "not valid JSON"),
]
_BAD_WORKLOADS = [
    ('[1]', "[structural_hash, module_json]"),
    ('[1, 2]', "[structural_hash, module_json]"),
    ('"x"', "[structural_hash, module_json]"),
    ('["12", "{not a module"]', "malformed workload"),
    ('["12", "[1, 2, 3]"]', "malformed workload"),
]


def test_malformed_lines_name_file_and_line(tmp_path):
    _run(f"""
    mod = matmul(16)
    bad_records, bad_workloads = {_BAD_RECORDS!r}, {_BAD_WORKLOADS!r}
    for case, (which, bad, match) in enumerate([("database_tuning_record.json", b, m) for b, m in bad_records] +
                                               [("database_workload.json", b, m) for b, m in bad_workloads]):
        work = os.path.join({str(tmp_path)!r}, str(case))
        db = JSONDatabase(work_dir=work)
        commit(db, mod, 1, 1e-3)
        commit(db, mod, 2, 2e-3, tile=8)
        path = os.path.join(work, which)
        lines = open(path).read().splitlines()
        lineno = 2 if which.endswith("record.json") else 1
        lines[lineno - 1] = bad
        open(path, "w").write("\\n".join(lines) + "\\n")
        try:
            JSONDatabase(work_dir=work)
        except ValueError as err:
            assert isinstance(err, tvm.error.TVMError), (bad, type(err))
            assert f"{{which}}, line {{lineno}}:" in str(err) and match in str(err), (bad, str(err))
        else:
            raise AssertionError("no error for " + bad)
    """)


# --------------------------------------------------------------------------------------
# a reader never writes; repair happens under the writer's lock
# --------------------------------------------------------------------------------------
def test_opening_never_writes_and_a_line_being_appended_survives(tmp_path):
    _run(f"""
    work = {str(tmp_path)!r}
    mod = matmul(16)
    db = JSONDatabase(work_dir=work)
    commit(db, mod, 1, 1e-3)
    path = os.path.join(work, "database_tuning_record.json")
    full = open(path, "rb").read()
    line = full.splitlines(keepends=True)[0]
    # another writer holds the lock and has written half of its line
    writer = open(path, "ab")
    fcntl.flock(writer.fileno(), fcntl.LOCK_EX)
    writer.write(line[:40]); writer.flush()
    before = open(path, "rb").read()
    reader = JSONDatabase(work_dir=work)             # a reader: skips the half line, writes nothing
    assert len(reader.get_all_tuning_records()) == 1
    assert open(path, "rb").read() == before
    appended = threading.Thread(target=commit, args=(reader, mod, 2, 2e-3, 8))
    appended.start()                                 # an appender waits for the lock
    time.sleep(0.3)
    assert appended.is_alive() and open(path, "rb").read() == before
    writer.write(line[40:]); writer.flush()
    fcntl.flock(writer.fileno(), fcntl.LOCK_UN); writer.close()
    appended.join(10)
    assert not appended.is_alive()
    assert len(JSONDatabase(work_dir=work).get_all_tuning_records()) == 3
    # a line cut short by a killed writer (no lock held) is removed by the next append
    with open(path, "ab") as f:
        f.write(line[:25])
    cut = open(path, "rb").read()
    db2 = JSONDatabase(work_dir=work)
    assert len(db2.get_all_tuning_records()) == 3 and open(path, "rb").read() == cut
    commit(db2, mod, 3, 3e-3, 2)
    text = open(path).read()
    assert text.endswith("\\n") and len(text.splitlines()) == 4
    assert len(JSONDatabase(work_dir=work).get_all_tuning_records()) == 4
    """)


# --------------------------------------------------------------------------------------
# shared work_dir: each workload gets its own records back
# --------------------------------------------------------------------------------------
def test_databases_opened_together_keep_their_workloads_apart(tmp_path):
    _run(f"""
    work = {str(tmp_path)!r}
    a, b = matmul(16), matmul(32)
    db_a, db_b = JSONDatabase(work_dir=work), JSONDatabase(work_dir=work)  # both see an empty directory
    commit(db_a, a, 1, 1e-3, 4)
    commit(db_b, b, 2, 2e-3, 8)
    commit(db_a, a, 3, 3e-3, 2)
    commit(db_b, a, 4, 0.5e-3, 8)     # b's database learns a's workload from the file
    db = JSONDatabase(work_dir=work)
    assert len(open(os.path.join(work, "database_workload.json")).read().splitlines()) == 2
    assert sorted(r.run_secs[0] for r in db.records_of(a)) == [0.5e-3, 1e-3, 3e-3]
    assert [r.run_secs[0] for r in db.records_of(b)] == [2e-3]
    for mod in (a, b):  # the best record of each has tile 8; it replays on its own workload (ScheduleError before)
        tvm.ir.assert_structural_equal(db.query_schedule(mod).mod, schedule(mod, 0, 8).mod)
    """)


def _barrier_code(parties):
    """Code making each process wait until ``parties`` processes have opened their
    database (so their lifetimes overlap: each opened before any committed)."""
    return f"""
def barrier(directory, me):
    open(os.path.join(directory, str(me)), "w").close()
    deadline = time.time() + 60
    while len(os.listdir(directory)) < {parties} and time.time() < deadline:
        time.sleep(0.01)
"""


_CONCURRENT_WRITER = """
import sys
sys.path.insert(0, {python!r})
exec({prelude!r})
exec({barrier!r})
n, tile, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
mod = matmul(n)
db = JSONDatabase(work_dir={work!r})
barrier({barrier_dir!r}, n)
for i in range(count):
    commit(db, mod, i, (i + 1) * 1e-3, tile)
"""


def test_concurrent_processes_sharing_a_work_dir(tmp_path):
    work, barrier_dir = str(tmp_path / "work"), tmp_path / "barrier"
    barrier_dir.mkdir()
    script = _CONCURRENT_WRITER.format(python=harness._PYTHON_DIR, prelude=_PRELUDE, work=work,
                                       barrier=_barrier_code(3), barrier_dir=str(barrier_dir))
    procs = [subprocess.Popen([sys.executable, "-c", script, str(n), str(tile), "25"], stderr=subprocess.PIPE,
                              text=True) for n, tile in ((16, 4), (32, 8), (24, 6))]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    _run(f"""
    db = JSONDatabase(work_dir={work!r})
    assert len(open(os.path.join({work!r}, "database_workload.json")).read().splitlines()) == 3
    for n, tile in ((16, 4), (32, 8), (24, 6)):
        mod = matmul(n)
        recs = db.records_of(mod)
        assert sorted(r.run_secs[0] for r in recs) == [(i + 1) * 1e-3 for i in range(25)], n
        tvm.ir.assert_structural_equal(db.query_schedule(mod).mod, schedule(mod, 0, tile).mod)
    """)


def test_tune_tir_runs_sharing_a_work_dir(tmp_path):
    """tune_tir on two workloads with one work_dir: one after the other in a process
    (each with a database opened up front), then two processes at the same time."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {harness._PYTHON_DIR!r})
        exec({_PRELUDE!r})
        exec({_barrier_code(2)!r})
        def space(sch):
            i, j, k = sch.get_loops(sch.get_block("C", "main"))
            sch.split(i, factors=sch.sample_perfect_tile(i, n=2))
            return sch
        if __name__ == "__main__":
            work, barrier_dir, sizes = sys.argv[1], sys.argv[2], [int(n) for n in sys.argv[3:]]
            dbs = [JSONDatabase(work_dir=work) for _ in sizes]
            barrier(barrier_dir, sizes[0])
            for n, db in zip(sizes, dbs):
                ms.tune_tir(matmul(n), "llvm --num-cores=1", work, 2, num_trials_per_iter=2, strategy="random",
                            space=ms.space_generator.ScheduleFn(space), cost_model="random", seed=n,
                            num_tuning_cores=1, database=db)
    """)
    path = tmp_path / "tune.py"
    path.write_text(script)
    for mode, groups in (("sequential", [[16, 32]]), ("concurrent", [[16], [32]])):
        work, barrier_dir = tmp_path / mode, tmp_path / (mode + "_barrier")
        barrier_dir.mkdir()
        if mode == "sequential":
            (barrier_dir / "other").touch()  # one process: nobody to wait for
        procs = [subprocess.Popen([sys.executable, str(path), str(work), str(barrier_dir)] + [str(n) for n in g],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for g in groups]
        for p in procs:
            out, _ = p.communicate(timeout=120)
            assert p.returncode == 0, out
        _run(f"""
        db = JSONDatabase(work_dir={str(work)!r})
        for n in (16, 32):
            recs = db.records_of(matmul(n))
            assert len(recs) == 2 and all(r.is_valid for r in recs), (n, recs)
            db.query_schedule(matmul(n))   # replays on its own workload
        assert len(db.get_all_tuning_records()) == 4
        """)


# --------------------------------------------------------------------------------------
# tune_tir / tune_relax arguments
# --------------------------------------------------------------------------------------
_BAD_ARGUMENTS = [
    ("seed", "2**70", "ValueError"), ("seed", "-5", "ValueError"), ("seed", "2**31", "ValueError"),
    ("seed", "'7'", "TypeError"), ("seed", "True", "TypeError"), ("seed", "1.5", "TypeError"),
    ("num_trials_per_iter", "0", "ValueError"), ("num_trials_per_iter", "2.5", "TypeError"),
    ("max_trials_global", "-1", "ValueError"), ("max_trials_global", "'10'", "TypeError"),
    ("num_tuning_cores", "0", "ValueError"), ("num_tuning_cores", "'many'", "ValueError"),
]


@pytest.mark.parametrize("entry", ["tune_tir", "tune_relax"])
def test_tuning_arguments_are_checked_up_front(tmp_path, entry):
    _run(f"""
    from tessera import relax
    work = {str(tmp_path)!r}
    def call(**kw):
        trials = kw.pop("max_trials_global", 4)
        if {entry!r} == "tune_tir":
            ms.tune_tir(matmul(16), "llvm", work, trials, **kw)
        else:
            ms.relax_integration.tune_relax(tvm.IRModule(), None, "llvm", work, trials, **kw)
    for name, value, kind in {_BAD_ARGUMENTS!r}:
        try:
            call(**{{name: eval(value)}})
        except (TypeError, ValueError) as err:
            assert isinstance(err, tvm.error.TVMError), (name, value, type(err))
            assert isinstance(err, {{"ValueError": ValueError, "TypeError": TypeError}}[kind]), (name, value, err)
            assert f"{{name}}=" in str(err) and name in str(err), (name, value, str(err))
        else:
            raise AssertionError(f"no error for {{name}}={{value}}")
    assert not os.listdir(work), os.listdir(work)   # nothing was started or written
    """)


def test_unguarded_tuning_script_is_told_to_guard_its_entry_point(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {harness._PYTHON_DIR!r})
        exec({_PRELUDE!r})
        ms.tune_tir(matmul(16), "llvm --num-cores=1", {str(tmp_path / 'work')!r}, 2, num_trials_per_iter=2,
                    strategy="random", cost_model="random", seed=1, num_tuning_cores=1)
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, OMP_NUM_THREADS="1"), check=False)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert "TVMError" in last and 'if __name__ == "__main__":' in last, proc.stderr[-3000:]
