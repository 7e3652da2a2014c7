"""ms.schedule_rule.AddRFactor (C++ rule): a reduction with little spatial parallelism
branches into rfactor on the outer part, on the inner part, and the original; checked
against hand-written expected modules and NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera.meta_schedule.schedule_rule import AddRFactor
from tessera.script import tir as T

from _ms_rule_util import apply_rule, assert_func_equal


@T.prim_func
def row_sum(A: T.Buffer((2, 256), "float32"), S: T.Buffer((2,), "float32")):
    for i, k in T.grid(2, 256):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]


# seed 2: k -> [128, 2], rfactor of k_0 (factor_axis 1: one spatial loop)
@T.prim_func
def row_sum_rf_outer(A: T.Buffer((2, 256), "float32"), S: T.Buffer((2,), "float32")):
    S_rf = T.alloc_buffer((2, 128))
    for i, k_0, k_1 in T.grid(2, 128, 2):
        with T.block("S_rf"):
            vk_0, vi, vk_1 = T.axis.remap("SSR", [k_0, i, k_1])
            T.reads(A[vi, vk_0 * 2 + vk_1])
            T.writes(S_rf[vi, vk_0])
            with T.init():
                S_rf[vi, vk_0] = T.float32(0)
            S_rf[vi, vk_0] = S_rf[vi, vk_0] + A[vi, vk_0 * 2 + vk_1]
    for i, k_0 in T.grid(2, 128):
        with T.block("S"):
            vk_0, vi = T.axis.remap("RS", [k_0, i])
            T.reads(S_rf[vi, vk_0])
            T.writes(S[vi])
            T.block_attr({"meta_schedule.random_compute_producer": 1})
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + S_rf[vi, vk_0]


@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_branches_in_three_and_each_branch_sums_correctly():
    out = apply_rule(AddRFactor(16, 16), row_sum, "S", seed=2)
    assert len(out) == 3
    assert_func_equal(out[0].mod["main"], row_sum_rf_outer)
    assert [i.kind.name for i in out[1].trace.insts].count("RFactor") == 1
    assert_func_equal(out[2].mod["main"], row_sum)              # the original
    a = np.random.rand(2, 256).astype("float32")
    for sch in out:
        s = tvm.nd.empty((2,), "float32")
        tvm.build(sch.mod, target="llvm")["row_sum"](tvm.nd.array(a), s)
        np.testing.assert_allclose(s.numpy(), a.sum(axis=1), rtol=1e-5)


def test_enough_spatial_parallelism_or_spatial_blocks_leave_it_alone():
    (sch,) = apply_rule(AddRFactor(16, 16), matmul, "C")       # space 4096 >= reduce 64
    assert_func_equal(sch.mod["main"], matmul)
    (sch,) = apply_rule(AddRFactor(16, 16), row_sum, "root")
    assert_func_equal(sch.mod["main"], row_sum)
    # a reduction no longer than the cores: nothing to gain
    (sch,) = apply_rule(AddRFactor(16, 16), row_sum, "S", target="llvm --num-cores=512")
    assert_func_equal(sch.mod["main"], row_sum)


def test_bad_arguments():
    with pytest.raises(ValueError, match="max_jobs_per_core"):
        AddRFactor(max_jobs_per_core=0)
