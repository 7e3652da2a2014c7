"""reindex_cache_read / reindex_cache_write (TVM semantics): a buffer a block
accesses at one point is cached in "<name>_<scope>" laid out by an index map
of the block's iteration variables, with a copy block placed below the
lowest loop shared with the buffer's producers (consumers); compared with
hand-written TVMScript, run against NumPy, replayed from Python and JSON
traces; maps that drop an index variable or are not bijective, accesses at
several points and bad arguments leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def elementwise(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def elementwise_read(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    B_shared = T.alloc_buffer((8, 8, 2), scope="shared")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("B_shared"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_shared[vj, vi // 2, vi % 2] = B[vi, vj]
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B_shared[vj, vi // 2, vi % 2] + T.float32(1)


@T.prim_func
def elementwise_write(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.alloc_buffer((16, 8))
    B_local = T.alloc_buffer((8, 16), scope="local")
    for i, j in T.grid(16, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_local[vj, vi] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("B_local"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = B_local[vj, vi]
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def row_sums(A: T.Buffer((4, 6, 5), "float32"), C: T.Buffer((4,), "float32")):
    B = T.alloc_buffer((4, 6))
    for i, j in T.grid(4, 6):
        for k in range(5):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    B[vi, vj] = T.float32(0)
                B[vi, vj] = B[vi, vj] + A[vi, vj, vk]
        with T.block("C"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi, vj]


@T.prim_func
def row_sums_written(A: T.Buffer((4, 6, 5), "float32"), C: T.Buffer((4,), "float32")):
    B = T.alloc_buffer((4, 6))
    B_shared = T.alloc_buffer((6, 4), scope="shared")
    C_shared = T.alloc_buffer((4,), scope="shared")
    for i, j in T.grid(4, 6):
        for k in range(5):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    B_shared[vj, vi] = T.float32(0)
                B_shared[vj, vi] = B_shared[vj, vi] + A[vi, vj, vk]
        with T.block("B_shared"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = B_shared[vj, vi]
        with T.block("C"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                C_shared[vi] = T.float32(0)
            C_shared[vi] = C_shared[vi] + B[vi, vj]
    for i in range(4):
        with T.block("C_shared"):
            vi = T.axis.spatial(4, i)
            C[vi] = C_shared[vi]


@T.prim_func
def tiled(D: T.Buffer((64,), "float32")):
    A = T.alloc_buffer((64,))
    B = T.alloc_buffer((64,))
    for i in range(4):
        for j in range(16):
            with T.block("A"):
                vi = T.axis.spatial(64, i * 16 + j)
                A[vi] = T.Cast("float32", vi)
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(64, i * 16 + j)
                B[vi] = A[vi] + T.float32(1)
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            D[vi] = A[vi] * B[vi]


@T.prim_func
def tiled_read(D: T.Buffer((64,), "float32")):
    A = T.alloc_buffer((64,))
    B = T.alloc_buffer((64,))
    A_shared = T.alloc_buffer((2, 32), scope="shared")
    for i in range(4):
        for j in range(16):
            with T.block("A"):
                vi = T.axis.spatial(64, i * 16 + j)
                A[vi] = T.Cast("float32", vi)
        for j in range(16):
            with T.block("A_shared"):
                vi = T.axis.spatial(64, i * 16 + j)
                A_shared[vi // 32, vi % 32] = A[vi]
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(64, i * 16 + j)
                B[vi] = A_shared[vi // 32, vi % 32] + T.float32(1)
    for i in range(64):
        with T.block("D"):
            vi = T.axis.spatial(64, i)
            D[vi] = A[vi] * B[vi]


def _run_elementwise(mod):
    lib = tvm.build(mod, target="llvm")
    a = np.random.default_rng(0).standard_normal((16, 8)).astype("float32")
    c = tvm.nd.empty((16, 8), "float32")
    lib(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


def test_read():
    sch = tir.Schedule(elementwise, debug_mask="all")
    copy = sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i // 2, i % 2))
    assert sch.get(copy).name_hint == "B_shared"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], elementwise_read)
    verify_trace_roundtrip(sch, elementwise)
    assert "reindex_cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\", index_map=lambda" in \
        "\n".join(sch.trace.as_python())
    _run_elementwise(sch.mod)


def test_write():
    sch = tir.Schedule(elementwise, debug_mask="all")
    sch.reindex_cache_write(sch.get_block("B"), 0, "local", lambda i, j: (j, i))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], elementwise_write)
    verify_trace_roundtrip(sch, elementwise)
    _run_elementwise(sch.mod)


def test_write_reductions():
    sch = tir.Schedule(row_sums, debug_mask="all")
    sch.reindex_cache_write("B", 0, "shared", lambda i, j, k: (j, i))
    sch.reindex_cache_write("C", 0, "shared", lambda i, j: [i])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], row_sums_written)
    verify_trace_roundtrip(sch, row_sums)
    lib = tvm.build(sch.mod, target="llvm")
    a = np.random.default_rng(1).standard_normal((4, 6, 5)).astype("float32")
    c = tvm.nd.empty((4,), "float32")
    lib(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a.sum(axis=(1, 2)), rtol=1e-5)


def test_read_below_shared_loop():
    sch = tir.Schedule(tiled, debug_mask="all")
    sch.reindex_cache_read("B", 0, "shared", lambda i: (i // 32, i % 32))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], tiled_read)
    lib = tvm.build(sch.mod, target="llvm")
    d = tvm.nd.empty((64,), "float32")
    lib(d)
    x = np.arange(64, dtype="float32")
    np.testing.assert_allclose(d.numpy(), x * (x + 1))


@T.prim_func
def two_points(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = A[vi] + A[7 - vi]


@pytest.mark.parametrize("apply, match", [
    (lambda s: s.reindex_cache_read("C", 0, "shared", lambda i, j: (j * 2,)), "does not use iteration variable vi"),
    (lambda s: s.reindex_cache_write("B", 0, "shared", lambda i, j: (i,)), "does not use iteration variable vj"),
    (lambda s: s.reindex_cache_read("C", 0, "shared", lambda i, j: (i % 4, j)), "not a bijective"),
    (lambda s: s.reindex_cache_read("C", 3, "shared", lambda i, j: (i, j)), "out of range"),
    (lambda s: s.reindex_cache_read("C", 0, "nowhere", lambda i, j: (i, j)), "not a storage scope"),
    (lambda s: s.reindex_cache_read("C", 0, "shared", lambda i: (i,)), "takes 1 indices"),
    (lambda s: (s.reindex_cache_write("B", 0, "shared", lambda i, j: (i, j)),
                s.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i))), "taken"),
])
def test_refused_leave_schedule_unchanged(apply, match):
    sch = tir.Schedule(elementwise, debug_mask="all")
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match=match):
        apply(sch)
    if "taken" not in match:
        tvm.ir.assert_structural_equal(sch.mod, before)


def test_several_points_refused():
    sch = tir.Schedule(two_points, debug_mask="all")
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="more than one point"):
        sch.reindex_cache_read("C", 0, "shared", lambda i: (i,))
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_bad_argument_types():
    sch = tir.Schedule(elementwise)
    with pytest.raises(TypeError, match="index_map must be an IndexMap or a function"):
        sch.reindex_cache_read("C", 0, "shared", 3)
    with pytest.raises(TypeError, match="read_buffer_index must be an int"):
        sch.reindex_cache_read("C", "0", "shared", lambda i, j: (i, j))
