"""transform_block_layout (TVM semantics): a block's iteration space
re-laid out by a bijective affine index map; compared with hand-written
TVMScript, run against NumPy, replayed from Python and JSON traces; bad
arguments are ScheduleErrors that leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def scale(A: T.Buffer((6, 8), "float32"), B: T.Buffer((6, 8), "float32")):
    for i, j in T.grid(6, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def scale_flat(A: T.Buffer((6, 8), "float32"), B: T.Buffer((6, 8), "float32")):
    for ax0 in range(48):
        with T.block("B"):
            v0 = T.axis.spatial(48, ax0)
            T.reads(A[v0 // 8, v0 % 8])
            T.writes(B[v0 // 8, v0 % 8])
            B[v0 // 8, v0 % 8] = A[v0 // 8, v0 % 8] * T.float32(2)


@T.prim_func
def row_sum(A: T.Buffer((4, 6, 5), "float32"), C: T.Buffer((4, 6), "float32")):
    for i, j, k in T.grid(4, 6, 5):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vj, vk]


@T.prim_func
def row_sum_transformed(A: T.Buffer((4, 6, 5), "float32"), C: T.Buffer((4, 6), "float32")):
    for ax0, ax1 in T.grid(5, 24):
        with T.block("C"):
            v0 = T.axis.reduce(5, ax0)
            v1 = T.axis.spatial(24, ax1)
            T.reads(A[v1 // 6, v1 % 6, v0])
            T.writes(C[v1 // 6, v1 % 6])
            with T.init():
                C[v1 // 6, v1 % 6] = T.float32(0)
            C[v1 // 6, v1 % 6] = C[v1 // 6, v1 % 6] + A[v1 // 6, v1 % 6, v0]


@T.prim_func
def unit_dim(A: T.Buffer((1, 8), "float32"), B: T.Buffer((1, 8), "float32")):
    for i, j in T.grid(1, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func
def unit_dim_swapped(A: T.Buffer((1, 8), "float32"), B: T.Buffer((1, 8), "float32")):
    for ax0, ax1 in T.grid(8, 1):
        with T.block("B"):
            vj, vi = T.axis.remap("SS", [ax0, ax1])
            B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func
def two_blocks_one_loop(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            C[vi] = A[vi] * T.float32(2)


def _run_row_sum(mod):
    a = np.random.rand(4, 6, 5).astype("float32")
    c = tvm.nd.array(np.zeros((4, 6), "float32"))
    tvm.build(mod, target="llvm")(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a.sum(axis=2), rtol=1e-5)


def test_flatten_spatial_block():
    sch = tvm.tir.Schedule(scale)
    sch.transform_block_layout("B", lambda i, j: (i * 8 + j,))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], scale_flat)
    verify_trace_roundtrip(sch, scale)
    a = np.random.rand(6, 8).astype("float32")
    b = tvm.nd.array(np.zeros((6, 8), "float32"))
    tvm.build(sch.mod, target="llvm")(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)


def test_reduction_moved_outermost_and_spatial_fused():
    sch = tvm.tir.Schedule(row_sum)
    block = sch.get_block("C")
    sch.transform_block_layout(block, lambda i, j, k: (k, i * 6 + j))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], row_sum_transformed)
    assert [iv.iter_type for iv in sch.get(block).iter_vars] == [tvm.tir.IterVar.CommReduce, tvm.tir.IterVar.DataPar]
    verify_trace_roundtrip(sch, row_sum)
    _run_row_sum(sch.mod)
    # The result can still be scheduled (the loops are fresh handles).
    sch.split(sch.get_loops(block)[1], factors=[None, 4])
    _run_row_sum(sch.mod)


def test_unit_extent_variable_stays_a_variable():
    sch = tvm.tir.Schedule(unit_dim)
    sch.transform_block_layout("B", lambda i, j: (j, i))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], unit_dim_swapped)
    verify_trace_roundtrip(sch, unit_dim)


def test_trace_prints_tvm_form():
    sch = tvm.tir.Schedule(scale)
    sch.transform_block_layout("B", lambda i, j: (j, i))
    assert "sch.transform_block_layout(block=b0, index_map=lambda i, j: (j, i))" in "\n".join(sch.trace.as_python())


def _split_first(sch):
    sch.split(sch.get_loops("B")[0], factors=[None, 2])


@pytest.mark.parametrize("prog, prepare, block, index_map, match", [
    (scale, None, "B", lambda i, j: (i + j,), "bijective"),
    (scale, None, "B", lambda i: (i,), "takes 1 indices"),
    (row_sum, None, "C", lambda i, j, k: (i * 30 + j * 5 + k,), "mixes iteration variables"),
    (scale, _split_first, "B", lambda i, j: (j, i), "trivial binding"),
    (two_blocks_one_loop, None, "C", lambda i: (i,), "holds other statements"),
])
def test_refusals_leave_the_module(prog, prepare, block, index_map, match):
    sch = tvm.tir.Schedule(prog)
    if prepare:
        prepare(sch)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.transform_block_layout(block, index_map)
    assert sch.mod.same_as(before)


def test_bad_index_map_type():
    sch = tvm.tir.Schedule(scale)
    with pytest.raises(TypeError):
        sch.transform_block_layout("B", 3)


@T.prim_func
def _predicated_fill(C: T.Buffer((10, 5), "float32")):
    for i, j in T.grid(10, 5):
        with T.block("fill"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(3 <= j and i < 7)
            C[vi, vj] = T.Cast("float32", vi * 5 + vj)


def test_predicate_follows_the_new_loops():
    """Random schedule case 18726: the block's predicate (over its old loops)
    is rewritten over the new loops; it kept the old loop variables, which
    the new nest no longer defines."""
    sch = tvm.tir.Schedule(_predicated_fill.with_attr("global_symbol", "main"))
    sch.transform_block_layout("fill", lambda i, j: (j, i))
    c = tvm.nd.array(np.full((10, 5), -1, "float32"))
    tvm.build(sch.mod, target="llvm -bound-check")["main"](c)
    want = np.full((10, 5), -1, "float32")
    for i in range(7):
        for j in range(3, 5):
            want[i, j] = i * 5 + j
    np.testing.assert_array_equal(c.numpy(), want)
