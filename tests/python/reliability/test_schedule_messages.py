"""User mistakes with schedules give user errors naming the primitive,
instruction or handle, never an InternalError or a C++ file:line (issue 9,
"unclear errors"): fuse() without loops, and replaying a trace on a
schedule it does not fit (every prefix of a real trace, on changed modules)."""
import pytest

from .harness import run_case, expect_error
from .programs import MATMUL


@pytest.mark.parametrize("call", ["sch.fuse()", "sch.fuse([])", "sch.fuse(())"])
def test_fuse_without_loops(call):
    expect_error(MATMUL + f"""
sch = tvm.tir.Schedule(matmul)
{call}
""", "tvm.error.ScheduleError", "no loops were given")


# Changes that make a trace recorded on the original matmul not fit.
CHANGES = [
    "sch2.fuse(*sch2.get_loops(sch2.get_block('C'))[:2])",
    "sch2.split(sch2.get_loops(sch2.get_block('C'))[0], [None, 4])",
    "sch2.reorder(*sch2.get_loops(sch2.get_block('C'))[::-1])",
    "sch2.cache_write(sch2.get_block('C'), 0, 'global')",
    "sch2.decompose_reduction(sch2.get_block('C'), sch2.get_loops(sch2.get_block('C'))[0])",
]
# Recorded schedules (lines run on `sch`, whose block "C" is `b`).
RECORDINGS = [
    "i, j, k = sch.get_loops(b); sch.split(i, [None, 8])",
    "i, j, k = sch.get_loops(b); sch.fuse(i, j)",
    "i, j, k = sch.get_loops(b); io, ii = sch.split(i, [None, 8]); sch.parallel(sch.fuse(io, ii))",
    "i, j, k = sch.get_loops(b); sch.vectorize(sch.split(j, [None, 16])[1])",
    "i, j, k = sch.get_loops(b); sch.reorder(k, i)",
    "i, j, k = sch.get_loops(b); sch.decompose_reduction(b, j)",
]


def test_replaying_a_trace_that_does_not_fit():
    res = run_case(MATMUL + f"""
import re
import tessera as tvm
outcomes = []
for rec in {RECORDINGS!r}:
    for change in {CHANGES!r}:
        sch = tvm.tir.Schedule(matmul, seed=1)
        b = sch.get_block("C")
        exec(rec)
        sch2 = tvm.tir.Schedule(matmul, seed=1)
        exec(change)
        before = sch2.mod
        try:
            sch.trace.apply_to_schedule(sch2, remove_postproc=False)
            outcomes.append("ok")
        except tvm.error.TVMError as e:
            msg = str(e)
            assert not isinstance(e, tvm.error.InternalError), (rec, change, msg)
            assert not re.search(r"[.](cc|h):[0-9]+", msg), (rec, change, msg)
            assert "instruction" in msg, (rec, change, msg)
            assert isinstance(e, (ValueError, TypeError, IndexError, KeyError)), (rec, change, type(e).__mro__)
            tvm.ir.assert_structural_equal(sch2.mod, before)
            outcomes.append("error")
print("OUTCOMES", outcomes)
assert outcomes.count("error") >= 5, outcomes
""", timeout=180)
    assert res.returncode == 0, res.describe()
