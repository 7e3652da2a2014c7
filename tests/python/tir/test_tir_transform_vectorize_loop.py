"""tir.transform.VectorizeLoop alone: `T.vectorized` loops become vector
statements (16-lane chunks plus a scalar tail when wider); unvectorizable
bodies and disabled vectorization leave serial loops."""
import numpy as np

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, find_nodes, run, run_pass


@T.prim_func
def before(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(8):
        B[i] = A[i] * T.float32(2)


@T.prim_func
def expected(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    B[0:8] = A[0:8] * T.Broadcast(T.float32(2), 8)


@T.prim_func
def wide(A: T.Buffer((20,), "float32"), B: T.Buffer((20,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(20):
        B[i] = A[i] + T.float32(1)


@T.prim_func
def wide_expected(A: T.Buffer((20,), "float32"), B: T.Buffer((20,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i_vo in range(1):
        B[i_vo * 16:i_vo * 16 + 16] = A[i_vo * 16:i_vo * 16 + 16] + T.Broadcast(T.float32(1), 16)
    for i in range(16, 20):
        B[i] = A[i] + T.float32(1)


@T.prim_func
def serial_expected(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(8):
        B[i] = A[i] * T.float32(2)


@T.prim_func
def inner_loop(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(4):
        for k in range(4):
            B[i] = B[i] + A[i, k]


def test_loop_becomes_vector_statement():
    check(tvm.tir.transform.VectorizeLoop(), before, expected)


def test_wide_loop_becomes_chunks_and_tail():
    after = check(tvm.tir.transform.VectorizeLoop(), wide, wide_expected)
    a = np.random.rand(20).astype("float32")
    (_, b) = run(after, a, np.zeros(20, "float32"))
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_disabled_vectorization_leaves_a_serial_loop():
    check(tvm.tir.transform.VectorizeLoop(enable_vectorize=False), before, serial_expected)
    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
        check(tvm.tir.transform.VectorizeLoop(), before, serial_expected)


def test_body_with_inner_loop_stays_serial_and_correct():
    after = run_pass(tvm.tir.transform.VectorizeLoop(), inner_loop)
    loops = find_nodes(after, tvm.tir.For)
    assert [(int(l.extent), l.kind) for l in loops] == [(4, tvm.tir.ForKind.SERIAL)] * 2
    a = np.random.rand(4, 4).astype("float32")
    (_, b) = run(after, a, np.zeros(4, "float32"))
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


@T.prim_func
def widened_index(A: T.Buffer((T.int64(64),), "float32"), B: T.Buffer((T.int64(64),), "float32")):
    T.func_attr({"tir.noalias": True})
    for j in range(4):
        for i in T.vectorized(16):
            B[T.Cast("int64", j * 16 + i)] = A[T.Cast("int64", j * 16 + i)] * T.float32(2)


def test_widened_int32_ramp_stays_a_ramp():
    """int32 loop variables indexing int64-shaped buffers (a hand-written PrimFunc fused
    into Relax's int64 shapes): Cast(int64, ramp) stays a ramp, so the access is one
    contiguous vector load, not a gather (the course's MLP left to the default
    schedules ran 84 us instead of 5 us in vm.profile)."""
    after = run_pass(tvm.tir.transform.VectorizeLoop(), widened_index)
    loads = find_nodes(after, tvm.tir.BufferLoad)
    assert loads and all(isinstance(l.indices[0], tvm.tir.Ramp) and l.indices[0].dtype == "int64x16"
                         for l in loads), [l.indices[0] for l in loads]
    a = np.random.rand(64).astype("float32")
    (_, b) = run(after, a, np.zeros(64, "float32"))
    np.testing.assert_allclose(b, 2 * a, rtol=1e-6)
