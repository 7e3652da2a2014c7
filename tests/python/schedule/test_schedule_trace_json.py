"""Trace.as_json in TVM's form ([insts, decisions], random variables by bare
name), its replay, and the {"insts", "decisions"} dict form Tessera wrote
before (tuning databases on disk) still read."""
import json

import numpy as np
import pytest

import tessera as tvm
from tessera import meta_schedule as ms
from tessera.script import tir as T
from tessera.tir.schedule import Trace


@T.prim_func
def add_one(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


def _scheduled():
    sch = tvm.tir.Schedule(add_one, seed=3)
    b = sch.get_block("B")
    i, _ = sch.get_loops(b)
    f = sch.sample_categorical([2, 4], [0.0, 1.0])
    sch.split(i, factors=[None, f])
    return sch


def test_as_json_is_tvms_list_form():
    js = _scheduled().trace.as_json()
    assert js == [
        [
            ["GetBlock", [], ["B", "main"], ["b0"]],
            ["GetLoops", ["b0"], [], ["l1", "l2"]],
            ["SampleCategorical", [], [[2, 4], [0.0, 1.0]], ["v3"]],
            ["Split", ["l1", [None, "v3"]], js[0][3][2], ["l4", "l5"]],
        ],
        [[2, 1]],
    ]
    assert json.loads(json.dumps(js)) == js


def test_json_replay_gives_the_same_module():
    sch = _scheduled()
    new = tvm.tir.Schedule(add_one)
    Trace.apply_json_to_schedule(sch.trace.as_json(), new)
    tvm.ir.assert_structural_equal(new.mod, sch.mod)
    assert new.trace.as_python() == sch.trace.as_python()


def test_old_dict_form_still_read():
    old = {"insts": [["GetBlock", [], ["B", "main"], ["b0"]], ["GetLoops", [{"rv": "b0"}], [], ["l1", "l2"]],
                     ["Split", [{"rv": "l1"}, None, 4], [True, False], ["l3", "l4"]]],
           "decisions": []}
    trace = Trace.from_json(old)
    sch = tvm.tir.Schedule(add_one)
    trace.apply_to_schedule(sch)
    want = tvm.tir.Schedule(add_one)
    want.split(want.get_loops(want.get_block("B"))[0], factors=[None, 4])
    tvm.ir.assert_structural_equal(sch.mod, want.mod)
    # ... and written back in TVM's form.
    assert Trace.from_json(trace.as_json()).as_json()[0][2][1] == ["l1", None, 4]


def test_split_with_tvms_flat_inputs():
    # TVM records split's factors flat among the inputs: (loop, *factors).
    trace = Trace.from_json([[["GetBlock", [], ["B", "main"], ["b0"]], ["GetLoops", ["b0"], [], ["l1", "l2"]],
                              ["Split", ["l1", None, 4], [True, False], ["l3", "l4"]]], []])
    assert trace.as_python()[-1] == ("l3, l4 = sch.split(loop=l1, factors=[None, 4], preserve_unit_iters=True, "
                                     "disable_predication=False)")
    sch = tvm.tir.Schedule(add_one)
    trace.apply_to_schedule(sch)
    want = tvm.tir.Schedule(add_one)
    want.split(want.get_loops(want.get_block("B"))[0], factors=[None, 4])
    tvm.ir.assert_structural_equal(sch.mod, want.mod)


def test_database_with_old_records_loads(tmp_path):
    sch = _scheduled()
    db = ms.database.JSONDatabase(work_dir=str(tmp_path))
    workload = db.commit_workload(tvm.IRModule({"main": add_one}))
    db.commit_tuning_record(ms.database.TuningRecord(sch.trace, workload, [1e-3]))
    path = tmp_path / "database_tuning_record.json"
    idx, rec = json.loads(path.read_text().splitlines()[0])
    insts, decisions = rec["trace"]

    def to_old(v, names):  # inputs by {"rv": name}, as Tessera wrote them before
        if isinstance(v, list):
            return [to_old(x, names) for x in v]
        return {"rv": v} if isinstance(v, str) and v in names else v

    names = {o for inst in insts for o in inst[3]}
    rec["trace"] = {"insts": [[k, to_old(i, names), a, o] for k, i, a, o in insts], "decisions": decisions}
    path.write_text(json.dumps([idx, rec]) + "\n")
    again = ms.database.JSONDatabase(work_dir=str(tmp_path))
    (loaded,) = again.get_all_tuning_records()
    assert loaded.trace.as_json() == sch.trace.as_json()


@pytest.mark.parametrize("bad", [[[]], [[["GetBlock", [], ["B"]]], []], "[1, 2, 3]", 7])
def test_malformed_json_is_a_value_error(bad):
    with pytest.raises(ValueError):
        Trace.from_json(bad)
