"""cache_read / cache_write with consumer_blocks (TVM semantics): for
cache_read the listed blocks read the copy (placed before the first of
them); for cache_write the listed later blocks read the cache directly.
Results are checked against NumPy and against hand-written expectations of
which buffer each block reads; bad consumers are ScheduleErrors naming the
block that leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def fan_out(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32"), D: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8), "float32")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
    for i, j in T.grid(8, 8):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] * T.float32(3)


def _reads(sch, name):
    return [r.buffer.name for r in sch.get(sch.get_block(name)).reads]


def _run(sch):
    f = tvm.build(sch.mod, target="llvm")
    a = np.random.rand(8, 8).astype("float32")
    c, d = tvm.nd.array(np.zeros((8, 8), "float32")), tvm.nd.array(np.zeros((8, 8), "float32"))
    f(tvm.nd.array(a), c, d)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(d.numpy(), a * 6, rtol=1e-6)


def test_cache_read_consumers():
    sch = tvm.tir.Schedule(fan_out)
    sch.cache_read("C", 0, "local", consumer_blocks=["C", "D"])
    assert _reads(sch, "C") == ["B_local"] and _reads(sch, "D") == ["B_local"]
    _run(sch)
    verify_trace_roundtrip(sch, fan_out)
    # Only D: C keeps reading B, the copy goes right before D.
    sch = tvm.tir.Schedule(fan_out)
    sch.cache_read("C", 0, "local", consumer_blocks=[sch.get_block("D")])
    assert _reads(sch, "C") == ["B"] and _reads(sch, "D") == ["B_local"]
    _run(sch)
    verify_trace_roundtrip(sch, fan_out)


def test_cache_write_consumers():
    sch = tvm.tir.Schedule(fan_out)
    sch.cache_write("B", 0, "local", consumer_blocks=["D"])
    assert _reads(sch, "C") == ["B"] and _reads(sch, "D") == ["B_local"]
    _run(sch)
    verify_trace_roundtrip(sch, fan_out)


def test_bad_consumers_refused():
    sch = tvm.tir.Schedule(fan_out)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='consumer block "B" does not read B'):
        sch.cache_read("C", 0, "local", consumer_blocks=["B"])
    with pytest.raises(tvm.tir.ScheduleError, match='consumer block "D" does not read C'):
        sch.cache_write("C", 0, "local", consumer_blocks=["D"])
    assert sch.mod.same_as(before)


def test_reverse_compute_inline_refuses_a_buffer_with_other_readers():
    # Found by the random schedule test: inlining the write-back block into
    # its producer would leave B_local (still read by D) unwritten.
    sch = tvm.tir.Schedule(fan_out)
    sch.cache_write("B", 0, "local", consumer_blocks=["D"])
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='block "D" also reads B_local'):
        sch.reverse_compute_inline("B_local")
    assert sch.mod.same_as(before)
    _run(sch)
