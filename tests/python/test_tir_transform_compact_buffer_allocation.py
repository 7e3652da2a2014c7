"""tir.transform.CompactBufferAllocation alone: an intermediate buffer
shrinks to the region it is accessed in and is allocated at the innermost
loop enclosing all its accesses. Its input (Allocate + DeclBuffer) has no
TVMScript form the parser takes, so it is made by LowerOpaqueBlock and the
result is checked node by node and numerically."""
import numpy as np

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import find_nodes, run, run_pass


@T.prim_func
def row_tiles(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((16, 16), "float32")
    for i in range(16):
        for j in range(16):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j in range(16):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def whole_use(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("b"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
    for i in range(16):
        with T.block("c"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[15 - vi]


def _lowered(func):
    return run_pass(tvm.transform.Sequential([tvm.tir.transform.ConvertBlocksToOpaque(),
                                              tvm.tir.transform.LowerOpaqueBlock()]), func)


def test_row_buffer_shrinks_and_moves_into_the_row_loop():
    before = _lowered(row_tiles)
    (alloc_before,) = find_nodes(before, tvm.tir.Allocate)
    assert [int(e) for e in alloc_before.extents] == [16, 16]
    assert isinstance(before.body, (tvm.tir.DeclBuffer, tvm.tir.Allocate))  # at function level

    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), before)
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    (decl,) = find_nodes(after, tvm.tir.DeclBuffer)
    assert [int(e) for e in alloc.extents] == [1, 16]
    assert [int(e) for e in decl.buffer.shape] == [1, 16]
    # allocated inside the i loop: the function body is the loop now
    assert isinstance(after.body, tvm.tir.For) and after.body.loop_var.name_hint == "i"
    assert isinstance(after.body.body, (tvm.tir.Allocate, tvm.tir.DeclBuffer))
    # accesses are relative to the row: B[0, j]
    (store,) = [s for s in find_nodes(after, tvm.tir.BufferStore) if s.buffer.name == "B"]
    assert isinstance(store.indices[0], tvm.tir.IntImm) and int(store.indices[0]) == 0

    a = np.random.rand(16, 16).astype("float32")
    (_, c) = run(after, a, np.zeros((16, 16), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_buffer_used_whole_stays():
    before = _lowered(whole_use)
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), before)
    tvm.ir.assert_structural_equal(after, before)
    a = np.random.rand(16).astype("float32")
    (_, c) = run(after, a, np.zeros(16, "float32"))
    np.testing.assert_allclose(c, a[::-1])
