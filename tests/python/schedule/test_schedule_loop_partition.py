"""loop_partition (TVM semantics): a loop cut into consecutive ranges, each a
copy of the loop in its own opaque block, blocks renamed per range with
narrowed domains; compared with hand-written TVMScript, run against NumPy,
replayed from Python and JSON traces; bad arguments are ScheduleErrors that
leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def scale(A: T.Buffer((10, 4), "float32"), B: T.Buffer((10, 4), "float32")):
    for i, j in T.grid(10, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def scale_partitioned(A: T.Buffer((10, 4), "float32"), B: T.Buffer((10, 4), "float32")):
    with T.block("root"):
        T.reads()
        T.writes()
        with T.block("B_i_common"):
            T.reads()
            T.writes()
            with T.block("B_i0_partition"):
                T.reads()
                T.writes()
                for i0 in range(3):
                    for j in range(4):
                        with T.block("B_i0"):
                            vi = T.axis.spatial((0, 3), i0)
                            vj = T.axis.spatial(4, j)
                            T.reads(A[0:3, 0:4])
                            T.writes(B[0:3, 0:4])
                            B[vi, vj] = A[vi, vj] * T.float32(2)
            with T.block("B_i1_partition"):
                T.reads()
                T.writes()
                for i1 in range(3, 10):
                    for j in range(4):
                        with T.block("B_i1"):
                            vi = T.axis.spatial((3, 10), i1)
                            vj = T.axis.spatial(4, j)
                            T.reads(A[3:10, 0:4])
                            T.writes(B[3:10, 0:4])
                            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def row_sum(A: T.Buffer((6, 9), "float32"), C: T.Buffer((6,), "float32")):
    for i, k in T.grid(6, 9):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]


@T.prim_func
def symbolic(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]


def test_partition_with_inferred_rest():
    sch = tvm.tir.Schedule(scale)
    loops = sch.loop_partition(sch.get_loops("B")[0], [3, None])
    assert [sch.get(lp).loop_var.name for lp in loops] == ["i0", "i1"]
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], scale_partitioned)
    verify_trace_roundtrip(sch, scale)
    a = np.random.rand(10, 4).astype("float32")
    b = tvm.nd.array(np.zeros((10, 4), "float32"))
    tvm.build(sch.mod, target="llvm -bound-check")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)


def test_partition_of_a_reduction_loop_with_a_remainder_then_more_scheduling():
    sch = tvm.tir.Schedule(row_sum)
    loops = sch.loop_partition(sch.get_loops("C")[1], [2, 3])  # 2 + 3, the remaining 4 on their own
    assert len(loops) == 3 and [int(sch.get(lp).extent) for lp in loops] == [2, 3, 4]
    sch.unroll(loops[0])
    sch.unroll(loops[2])
    verify_trace_roundtrip(sch, row_sum)
    a = np.random.rand(6, 9).astype("float32")
    c = tvm.nd.array(np.zeros(6, "float32"))
    tvm.build(sch.mod, target="llvm -bound-check")(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a.sum(axis=1), rtol=1e-5)


@pytest.mark.parametrize("prog, factors, match", [
    (scale, [8, 4], "do not fit"),
    (scale, [10, None], "do not fit"),
    (scale, [0, None], "not positive"),
    (scale, [None, None], "at most one factor"),
    (symbolic, [4, None], "symbolic range"),
])
def test_refusals_leave_the_module(prog, factors, match):
    sch = tvm.tir.Schedule(prog)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.loop_partition(sch.get_loops("B")[0], factors)
    assert sch.mod.same_as(before)


def test_bad_factor_types():
    sch = tvm.tir.Schedule(scale)
    with pytest.raises(TypeError):
        sch.loop_partition(sch.get_loops("B")[0], 4)
    with pytest.raises(tvm.tir.ScheduleError, match="not an integer"):
        sch.loop_partition(sch.get_loops("B")[0], ["4"])
