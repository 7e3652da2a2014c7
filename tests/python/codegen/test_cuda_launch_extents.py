"""KernelLaunchExtents (src/codegen/cuda/launch_extents.cc): launch tags, extents and dynamic shared memory
of a kernel region, as SplitHostDevice and CodeGenCUDA read them."""
import pytest

import tessera as tvm
from tessera.script import tir as T

_extents = tvm.get_global_func("codegen.KernelLaunchExtents")


def _launch(func, name="f"):
    tags, extents, dyn = _extents(func.body, name)
    return [str(t) for t in tags], extents, dyn


def test_tags_in_order_and_max_of_constants():
    @T.prim_func
    def f(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        for ty in T.thread_binding(4, thread="threadIdx.y"):
            for bx in T.thread_binding(8, thread="blockIdx.x"):
                for tx in T.thread_binding(32, thread="threadIdx.x"):
                    B[bx * 32 + tx] = A[bx * 32 + tx]
                for tx in T.thread_binding(16, thread="threadIdx.x"):
                    B[bx * 16 + tx] = A[bx * 16 + tx] + T.float32(ty)
                for v in T.thread_binding(2, thread="vthread"):
                    B[v] = A[v]

    tags, extents, dyn = _launch(f)
    assert tags == ["blockIdx.x", "threadIdx.x", "threadIdx.y"]
    assert [int(e) for e in extents] == [8, 32, 4]
    assert int(dyn) == 0


def test_symbolic_extent_kept():
    @T.prim_func
    def f(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for bx in T.thread_binding(n, thread="blockIdx.x"):
            B[bx] = A[bx]
        for bx in T.thread_binding(n, thread="blockIdx.x"):
            B[bx] = A[bx] * T.float32(2)

    tags, extents, _ = _launch(f)
    assert tags == ["blockIdx.x"]
    assert isinstance(extents[0], tvm.tir.Var) and extents[0].name == "n"


def test_different_symbolic_extents_rejected():
    @T.prim_func
    def f(a: T.handle, m: T.int32):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        for bx in T.thread_binding(n, thread="blockIdx.x"):
            A[bx] = T.float32(0)
        for bx in T.thread_binding(m, thread="blockIdx.x"):
            A[bx] = T.float32(1)

    with pytest.raises(ValueError, match=r"myfunc.*blockIdx.x.*different extents"):
        _launch(f, "myfunc")


def test_extent_from_inside_the_kernel_rejected():
    @T.prim_func
    def f(A: T.Buffer((64,), "float32")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(bx + 1, thread="threadIdx.x"):
                A[bx * 16 + tx] = T.float32(0)

    with pytest.raises(ValueError, match=r"threadIdx.x.*bx.*defined inside the kernel"):
        _launch(f, "g")


def test_dynamic_shared_memory_bytes():
    @T.prim_func
    def f(A: T.Buffer((128,), "float32")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            S = T.allocate([32], "float32", "shared.dyn")
            R = T.allocate([8], "float16", "shared.dyn")
            L = T.allocate([4], "float32", "local")
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                A[bx * 32 + tx] = T.float32(0)

    _, _, dyn = _launch(f)
    assert int(tvm.arith.Analyzer().simplify(dyn)) == 32 * 4 + 16  # each allocation rounded up to 16 bytes
