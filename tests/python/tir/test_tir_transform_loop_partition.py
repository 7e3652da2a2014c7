"""tir.transform.LoopPartition alone: a loop whose condition holds on a
prefix of its iterations is split into the prefix (no check) and the rest
(checked)."""
import numpy as np

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, run, run_pass


@T.prim_func
def before(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i0, i1 in T.grid(3, 4):
        if i0 * 4 + i1 < 10:
            B[i0 * 4 + i1] = A[i0 * 4 + i1] + T.float32(1)


@T.prim_func
def expected(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i0, i1 in T.grid(2, 4):
        B[i0 * 4 + i1] = A[i0 * 4 + i1] + T.float32(1)
    for i0 in range(2, 3):
        for i1 in range(2):
            B[i0 * 4 + i1] = A[i0 * 4 + i1] + T.float32(1)
        for i1 in range(2, 4):
            if i0 * 4 + i1 < 10:
                B[i0 * 4 + i1] = A[i0 * 4 + i1] + T.float32(1)


@T.prim_func
def data_dependent(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        if A[i] > T.float32(0):
            B[i] = A[i]


def test_non_dividing_split_is_partitioned():
    check(tvm.tir.transform.LoopPartition(), before, expected)


def test_partitioned_loop_computes_the_same():
    a = np.random.rand(10).astype("float32")
    (_, b) = run(run_pass(tvm.tir.transform.LoopPartition(), before), a, np.zeros(10, "float32"))
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_condition_not_on_loop_variables_is_left_alone():
    tvm.ir.assert_structural_equal(run_pass(tvm.tir.transform.LoopPartition(), data_dependent), data_dependent)


def test_opt_level_two():
    assert tvm.tir.transform.LoopPartition().info.opt_level == 2
