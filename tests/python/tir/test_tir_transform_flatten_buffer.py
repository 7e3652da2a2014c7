"""tir.transform.FlattenBuffer alone: every access becomes one-dimensional
(row-major, or by explicit strides)."""
import numpy as np

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, find_nodes, run, run_pass


@T.prim_func
def before(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 4), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(4, 8):
        B[j, i] = A[i, j] + T.float32(1)


@T.prim_func
def expected(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 4), "float32")):
    T.func_attr({"tir.noalias": True})
    A_1 = T.Buffer((T.int64(32),), data=A.data)
    B_1 = T.Buffer((T.int64(32),), data=B.data)
    for i, j in T.grid(4, 8):
        B_1[j * 4 + i] = A_1[i * 8 + j] + T.float32(1)


@T.prim_func
def strided(A: T.Buffer((4, 4), "float32", strides=(8, 1)), B: T.Buffer((4, 4), "float32")):
    T.func_attr({"tir.noalias": True})
    for i, j in T.grid(4, 4):
        B[i, j] = A[i, j]


def test_accesses_become_flat():
    check(tvm.tir.transform.FlattenBuffer(), before, expected)


def test_flat_program_computes_the_transpose():
    a = np.random.rand(4, 8).astype("float32")
    (_, b) = run(run_pass(tvm.tir.transform.FlattenBuffer(), before), a, np.zeros((8, 4), "float32"))
    np.testing.assert_allclose(b, a.T + 1, rtol=1e-6)


def test_explicit_strides_are_used():
    after = run_pass(tvm.tir.transform.FlattenBuffer(), strided)
    (load,) = find_nodes(after, tvm.tir.BufferLoad)
    assert len(load.indices) == 1
    text = after.script()
    assert "i * 8 + j" in text and "i * 4 + j" in text, text


@T.prim_func
def huge(A: T.Buffer((65536, 65536), "int8"), B: T.Buffer((4,), "int8")):
    T.func_attr({"tir.noalias": True})
    for i in range(4):
        B[i] = A[65535 - i, i]


@T.prim_func
def huge_expected(A: T.Buffer((65536, 65536), "int8"), B: T.Buffer((4,), "int8")):
    T.func_attr({"tir.noalias": True})
    A_1 = T.Buffer((T.int64(4294967296),), "int8", data=A.data)
    B_1 = T.Buffer((T.int64(4),), "int8", data=B.data)
    for i in range(4):
        B_1[i] = A_1[T.Cast("int64", 65535 - i) * T.int64(65536) + T.Cast("int64", i)]


@T.prim_func
def huge_strided(A: T.Buffer((2, 4), "int8", strides=(2**31, 1)), B: T.Buffer((4,), "int8")):
    T.func_attr({"tir.noalias": True})
    for i in range(4):
        B[i] = A[1, i]


def test_offsets_past_int32_are_computed_in_int64():
    # 65535 * 65536 + i wraps in int32: the whole offset is widened first.
    check(tvm.tir.transform.FlattenBuffer(), huge, huge_expected)


def test_strides_past_int32_widen_the_offset_too():
    after = run_pass(tvm.tir.transform.FlattenBuffer(), huge_strided)
    (load,) = find_nodes(after, tvm.tir.BufferLoad)
    assert load.indices[0].dtype == "int64", after.script()


def test_offsets_within_int32_keep_int32():
    after = run_pass(tvm.tir.transform.FlattenBuffer(), before)
    for node in find_nodes(after, tvm.tir.BufferLoad) + find_nodes(after, tvm.tir.BufferStore):
        assert node.indices[0].dtype == "int32", after.script()
