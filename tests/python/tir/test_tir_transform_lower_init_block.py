"""tir.transform.LowerInitBlock alone: a reduction block's init becomes a
store guarded by "every reduction variable at its first value"."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, run, run_pass


@T.prim_func
def before(A: T.Buffer((4, 8, 2), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, k, l in T.grid(4, 8, 2):
        with T.block("sum"):
            vi, vk, vl = T.axis.remap("SRR", [i, k, l])
            T.reads(A[vi, vk, vl])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(1)
            B[vi] = B[vi] + A[vi, vk, vl]


@T.prim_func
def expected(A: T.Buffer((4, 8, 2), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, k, l in T.grid(4, 8, 2):
        with T.block("sum"):
            vi, vk, vl = T.axis.remap("SRR", [i, k, l])
            T.reads(A[vi, vk, vl])
            T.writes(B[vi])
            if vk == 0 and vl == 0:
                B[vi] = T.float32(1)
            B[vi] = B[vi] + A[vi, vk, vl]


@T.prim_func
def no_init(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("copy"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi]


def test_init_becomes_guarded_store():
    check(tvm.tir.transform.LowerInitBlock(), before, expected)


def test_function_without_init_is_returned_as_is():
    assert run_pass(tvm.tir.transform.LowerInitBlock(), no_init).same_as(no_init)


def test_lowered_reduction_computes_the_sum():
    a = np.random.rand(4, 8, 2).astype("float32")
    lowered = run_pass(tvm.tir.transform.LowerInitBlock(), before)
    (_, b) = run(lowered, a, np.full(4, 123, "float32"))  # garbage in B must be overwritten by the init
    np.testing.assert_allclose(b, 1 + a.sum(axis=(1, 2)), rtol=1e-5)


def test_info():
    info = tvm.tir.transform.LowerInitBlock().info
    assert (info.name, info.opt_level) == ("LowerInitBlock", 0)
    with pytest.raises(TypeError):
        tvm.tir.transform.LowerInitBlock()(before)  # expects a module
