"""tir.transform.UnrollLoop alone: `T.unroll` loops of constant extent
(<= 256) are replaced by one copy of the body per iteration."""
import numpy as np

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, find_nodes, run, run_pass


@T.prim_func
def before(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.unroll(3):
        B[i] = A[i] + T.float32(1)


@T.prim_func
def expected(A: T.Buffer((3,), "float32"), B: T.Buffer((3,), "float32")):
    T.func_attr({"tir.noalias": True})
    B[0] = A[0] + T.float32(1)
    B[1] = A[1] + T.float32(1)
    B[2] = A[2] + T.float32(1)


@T.prim_func
def too_long(A: T.Buffer((300,), "float32"), B: T.Buffer((300,), "float32")):
    for i in T.unroll(300):
        B[i] = A[i]


@T.prim_func
def symbolic(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in T.unroll(n):
        B[i] = A[i]


def test_constant_loop_is_unrolled():
    after = check(tvm.tir.transform.UnrollLoop(), before, expected)
    a = np.random.rand(3).astype("float32")
    (_, b) = run(after, a, np.zeros(3, "float32"))
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_long_or_symbolic_loops_stay_loops():
    for func in (too_long, symbolic):
        (loop,) = find_nodes(run_pass(tvm.tir.transform.UnrollLoop(), func), tvm.tir.For)
        assert loop.extent.same_as(func.body.extent) or int(loop.extent) == 300
        assert loop.kind in (tvm.tir.ForKind.SERIAL, tvm.tir.ForKind.UNROLLED)
    a = np.random.rand(300).astype("float32")
    (_, b) = run(run_pass(tvm.tir.transform.UnrollLoop(), too_long), a, np.zeros(300, "float32"))
    np.testing.assert_allclose(b, a)
