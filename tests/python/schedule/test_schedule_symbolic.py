"""Schedules over symbolic extents (dynamic shapes): split with an inferred
factor over `n` (outer extent ceildiv(n, k), a predicate guards the last tile),
fuse, reorder, compute_at, cache_read/write, decompose_reduction; each
scheduled kernel is built and run for several n against NumPy, and the split
and fuse results are compared with hand-written TVMScript."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol


@T.prim_func
def add_one(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] + T.float32(1)


@T.prim_func
def add_one_split(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i_0, i_1 in T.grid((n + 15) // 16, 16):
        with T.block("B"):
            vi = T.axis.spatial(n, i_0 * 16 + i_1)
            T.where(i_0 * 16 + i_1 < n)
            B[vi] = A[vi] + T.float32(1)


@T.prim_func
def two_stage(a: T.handle, c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 8), "float32")
    C = T.match_buffer(c, (n, 8), "float32")
    B = T.alloc_buffer((n, 8), "float32")
    for i, j in T.grid(n, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(n, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def scale_2d(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (8, n), "float32")
    B = T.match_buffer(b, (8, n), "float32")
    for i, j in T.grid(8, n):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def scale_2d_fused(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (8, n), "float32")
    B = T.match_buffer(b, (8, n), "float32")
    for i_j_fused in range(n * 8):
        with T.block("B"):
            vi = T.axis.spatial(8, i_j_fused // n)
            vj = T.axis.spatial(n, i_j_fused % n)
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def rowsum(a: T.handle, b: T.handle):
    n = T.int32()
    m = T.int32()
    A = T.match_buffer(a, (n, m), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i, k in T.grid(n, m):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


SIZES = [1, 5, 15, 16, 17, 33]


def _run_add_one(mod):
    f = tvm.build(mod, target="llvm")
    for n in SIZES:
        a = np.random.rand(n).astype("float32")
        b = tvm.nd.array(np.zeros(n, "float32"))
        f(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a + 1, rtol=1e-6)


def _run_two_stage(mod):
    f = tvm.build(mod, target="llvm")
    for n in SIZES:
        a = np.random.rand(n, 8).astype("float32")
        c = tvm.nd.array(np.zeros((n, 8), "float32"))
        f(tvm.nd.array(a), c)
        np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


def _run_scale_2d(mod):
    f = tvm.build(mod, target="llvm")
    for n in SIZES:
        a = np.random.rand(8, n).astype("float32")
        b = tvm.nd.array(np.zeros((8, n), "float32"))
        f(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)


def _run_rowsum(mod):
    f = tvm.build(mod, target="llvm")
    for n, m in [(1, 1), (3, 5), (7, 16), (4, 33)]:
        a = np.random.rand(n, m).astype("float32")
        b = tvm.nd.array(np.zeros(n, "float32"))
        f(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a.sum(1), rtol=1e-5)


def test_split_inferred_outer_factor():
    sch = tvm.tir.Schedule(add_one)
    (i,) = sch.get_loops("B")
    sch.split(i, [None, 16])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], add_one_split)
    _run_add_one(sch.mod)


def test_split_inferred_inner_factor_and_three_way():
    sch = tvm.tir.Schedule(add_one)
    (i,) = sch.get_loops("B")
    _, i1, _ = sch.split(i, [2, None, 4])
    assert "(n + 7) // 8" in sch.mod.script()
    sch.vectorize(sch.get_loops("B")[-1])
    _run_add_one(sch.mod)
    sch = tvm.tir.Schedule(add_one)
    sch.split(sch.get_loops("B")[0], [None, 1])  # the factor is n itself: no predicate
    assert "T.where" not in sch.mod.script()
    _run_add_one(sch.mod)


def test_split_constant_factors_over_symbolic_extent_refused():
    sch = tvm.tir.Schedule(add_one)
    (i,) = sch.get_loops("B")
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="symbolic extent n of loop i"):
        sch.split(i, [4, 16])
    tvm.ir.assert_structural_equal(sch.mod, before)  # unchanged
    with pytest.raises(tvm.tir.ScheduleError):
        sch.split(i, [None, 0])
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_split_symbolic_trace_roundtrip():
    from tessera.tir.schedule.testing import verify_trace_roundtrip

    sch = tvm.tir.Schedule(add_one)
    sch.split(sch.get_loops("B")[0], [None, 16])
    verify_trace_roundtrip(sch, add_one)


def test_fuse_symbolic():
    sch = tvm.tir.Schedule(scale_2d)
    sch.fuse(*sch.get_loops("B"))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], scale_2d_fused)
    _run_scale_2d(sch.mod)
    fused = sch.get_loops("B")[0]
    sch.split(fused, [None, 3])
    _run_scale_2d(sch.mod)


def test_reorder_and_fuse_then_split():
    sch = tvm.tir.Schedule(two_stage)
    i, j = sch.get_loops("C")
    sch.reorder(j, i)
    sch.split(sch.fuse(*sch.get_loops("B")), [None, 3])
    _run_two_stage(sch.mod)


def test_compute_at_under_symbolic_split():
    sch = tvm.tir.Schedule(two_stage)
    i, _ = sch.get_loops("C")
    io, _ = sch.split(i, [None, 4])
    sch.compute_at(sch.get_block("B"), io)
    assert len(sch.get_loops("B")) == 3
    _run_two_stage(sch.mod)


def test_reverse_compute_at_under_symbolic_split():
    sch = tvm.tir.Schedule(two_stage)
    i, _ = sch.get_loops("B")
    io, _ = sch.split(i, [None, 4])
    sch.reverse_compute_at(sch.get_block("C"), io)
    _run_two_stage(sch.mod)


def test_cache_read_write_symbolic():
    sch = tvm.tir.Schedule(two_stage)
    sch.cache_read(sch.get_block("B"), 0, "global")
    sch.cache_write(sch.get_block("C"), 0, "global")
    assert len(sch.mod["main"].body.block.alloc_buffers) == 3
    _run_two_stage(sch.mod)


def test_decompose_reduction_symbolic():
    sch = tvm.tir.Schedule(rowsum)
    _, k = sch.get_loops("B")
    ko, _ = sch.split(k, [None, 4])
    init = sch.decompose_reduction(sch.get_block("B"), ko)
    assert sch.get(init).name_hint == "B_init"
    _run_rowsum(sch.mod)


def test_unscheduled_symbolic_intermediate_buffer_runs():
    # CompactBufferAllocation keeps a symbolic dimension whole (it used to take
    # its int32 upper bound and fail to allocate).
    _run_two_stage(tvm.IRModule({"main": two_stage}))
