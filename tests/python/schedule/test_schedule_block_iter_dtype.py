"""reorder_block_iter_var and unsafe_set_dtype (TVM semantics), compared with
hand-written TVMScript and run against NumPy; bad arguments are
ScheduleErrors naming the block that leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def two_stage(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float32")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def two_stage_reordered_f16(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8), "float16")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.Cast("float16", A[vi, vj] * T.float32(2))
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vj, vi = T.axis.remap("SS", [j, i])
            C[vi, vj] = T.Cast("float32", B[vi, vj]) + T.float32(1)


def _run(mod):
    f = tvm.build(mod, target="llvm")
    a = np.random.rand(16, 8).astype("float32")
    c = tvm.nd.array(np.zeros((16, 8), "float32"))
    f(tvm.nd.array(a), c)
    return a, c.numpy()


def test_reorder_block_iter_var_and_set_dtype():
    sch = tvm.tir.Schedule(two_stage)
    sch.unsafe_set_dtype("B", 0, "float16")
    sch.reorder_block_iter_var("C", [1, 0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], two_stage_reordered_f16)
    a, c = _run(sch.mod)
    np.testing.assert_allclose(c, (a * 2).astype("float16").astype("float32") + 1, rtol=1e-6)
    verify_trace_roundtrip(sch, two_stage)


def test_bad_arguments_refused():
    sch = tvm.tir.Schedule(two_stage)
    before = sch.mod
    for order, match in [([1], "2 iteration variables"), ([0, 2], "out of range"), ([-1, 0], "out of range"),
                         ([1, 1], "twice")]:
        with pytest.raises(tvm.tir.ScheduleError, match=match):
            sch.reorder_block_iter_var("C", order)
    with pytest.raises(tvm.tir.ScheduleError, match="function parameter"):
        sch.unsafe_set_dtype("C", 0, "float16")
    with pytest.raises(tvm.tir.ScheduleError, match="out of range"):
        sch.unsafe_set_dtype("B", 1, "float16")
    with pytest.raises(tvm.tir.ScheduleError, match="not a data type"):
        sch.unsafe_set_dtype("B", 0, "floaty")
    assert sch.mod.same_as(before)
