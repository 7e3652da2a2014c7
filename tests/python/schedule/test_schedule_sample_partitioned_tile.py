"""sample_partitioned_tile (TVM semantics): perfect tilings whose inner part
is a multiple of innerpart_factor, decisions replayed (and repaired as TVM
does), the split built from them checked against NumPy, traces replayed from
Python and JSON; bad arguments are refused."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def scale(A: T.Buffer((96,), "float32"), B: T.Buffer((96,), "float32")):
    for i in range(96):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] * T.float32(2)


@pytest.mark.parametrize("n, pos, factor", [(2, 0, 1), (3, 1, 4), (4, 2, 8), (3, 2, 3), (2, 1, 96)])
def test_samples_satisfy_the_partition(n, pos, factor):
    for seed in range(20):
        sch = tvm.tir.Schedule(scale, seed=seed)
        loop = sch.get_loops("B")[0]
        vals = [int(sch.get(v)) for v in sch.sample_partitioned_tile(loop, n, pos, factor)]
        assert len(vals) == n and int(np.prod(vals)) == 96 and all(v >= 1 for v in vals)
        assert int(np.prod(vals[pos:])) % factor == 0, vals


def test_split_by_the_sample_runs_and_replays():
    sch = tvm.tir.Schedule(scale, seed=7)
    loop = sch.get_loops("B")[0]
    factors = sch.sample_partitioned_tile(loop, 3, partition_pos=1, innerpart_factor=4)
    sch.split(loop, factors=factors)
    verify_trace_roundtrip(sch, scale)
    a = np.random.rand(96).astype("float32")
    b = tvm.nd.array(np.zeros(96, "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)
    assert "sch.sample_partitioned_tile(loop=l1, n=3, partition_pos=1, innerpart_factor=4, decision=" in str(sch.trace)


def test_decisions_are_kept_or_repaired_as_in_tvm():
    sch = tvm.tir.Schedule(scale)
    loop = sch.get_loops("B")[0]
    got = [int(sch.get(v)) for v in sch.sample_partitioned_tile(loop, 3, 1, 4, decision=[2, 12, 4])]
    assert got == [2, 12, 4]
    # Inner part 20 is a multiple of 4 but 96 % 5 != 0: the inner factor becomes the rest; the outer takes what is left.
    got = [int(sch.get(v)) for v in sch.sample_partitioned_tile(loop, 3, 1, 4, decision=[3, 4, 5])]
    assert got == [1, 1, 96]
    # Inner part 3 is not a multiple of 4: TVM's trivial default (96 / 4, 4, 1).
    got = [int(sch.get(v)) for v in sch.sample_partitioned_tile(loop, 3, 1, 4, decision=[32, 3, 1])]
    assert got == [24, 4, 1]


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=1), "n must be"),
    (dict(n=3, partition_pos=3), "out of range"),
    (dict(n=2, innerpart_factor=0), "positive"),
    (dict(n=2, innerpart_factor=5), "does not divide"),
])
def test_bad_arguments(kwargs, match):
    sch = tvm.tir.Schedule(scale)
    loop = sch.get_loops("B")[0]
    n_before = len(sch.trace.insts)
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.sample_partitioned_tile(loop, **kwargs)
    assert len(sch.trace.insts) == n_before


def test_bad_decision_length():
    sch = tvm.tir.Schedule(scale)
    with pytest.raises(ValueError, match="2 factors"):
        sch.sample_partitioned_tile(sch.get_loops("B")[0], 3, decision=[8, 12])
