"""decompose_padding (TVM semantics): a padding block splits into a block
filling the pad value and the block restricted to its in-bound region
(loops below the decomposition point shrink where they bind one variable,
otherwise a predicate); compared with hand-written TVMScript, run against
NumPy, replayed from Python and JSON traces; blocks that are not padding
blocks, trivial conditions and loops not above the block are ScheduleErrors
that leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


@T.prim_func
def pad1d(x: T.Buffer(10, "int32"), y: T.Buffer(14, "int32")):
    for i in range(14):
        with T.block("pad"):
            vi = T.axis.remap("S", [i])
            y[vi] = T.if_then_else(vi >= 2 and vi < 12, x[vi - 2], -1, dtype="int32")


@T.prim_func
def pad1d_decomposed(x: T.Buffer(10, "int32"), y: T.Buffer(14, "int32")):
    for i in range(14):
        with T.block("pad_pad_const"):
            vi = T.axis.spatial(14, i)
            T.reads()
            T.writes(y[vi])
            y[vi] = -1
    for i in range(10):
        with T.block("pad"):
            vi = T.axis.spatial(10, i)
            T.reads(x[vi])
            T.writes(y[vi + 2])
            y[vi + 2] = x[vi]


@T.prim_func
def pad2d(x: T.Buffer((4, 6, 6), "float32"), y: T.Buffer((4, 9, 8), "float32")):
    for c, h, w in T.grid(4, 9, 8):
        with T.block("pad"):
            vc, vh, vw = T.axis.remap("SSS", [c, h, w])
            y[vc, vh, vw] = T.if_then_else(1 <= vh and vh < 7 and 1 <= vw and vw < 7, x[vc, vh - 1, vw - 1],
                                           T.float32(0), dtype="float32")


@T.prim_func
def pad2d_at_h(x: T.Buffer((4, 6, 6), "float32"), y: T.Buffer((4, 9, 8), "float32")):
    for c in range(4):
        for h, w in T.grid(9, 8):
            with T.block("pad_pad_const"):
                vc, vh, vw = T.axis.remap("SSS", [c, h, w])
                y[vc, vh, vw] = T.float32(0)
        for h, w in T.grid(6, 6):
            with T.block("pad"):
                vc, vh, vw = T.axis.remap("SSS", [c, h, w])
                y[vc, vh + 1, vw + 1] = x[vc, vh, vw]


@T.prim_func
def pad2d_at_w(x: T.Buffer((4, 6, 6), "float32"), y: T.Buffer((4, 9, 8), "float32")):
    for c, h in T.grid(4, 9):
        for w in range(8):
            with T.block("pad_pad_const"):
                vc, vh, vw = T.axis.remap("SSS", [c, h, w])
                y[vc, vh, vw] = T.float32(0)
        for w in range(6):
            with T.block("pad"):
                vc = T.axis.spatial(4, c)
                vh = T.axis.spatial(6, h - 1)
                vw = T.axis.spatial(6, w)
                T.where(1 <= h and h < 7)
                y[vc, vh + 1, vw + 1] = x[vc, vh, vw]


@T.prim_func
def pad2d_tiled(x: T.Buffer((4, 6, 6), "float32"), y: T.Buffer((4, 9, 8), "float32")):
    for c, h0, h1, w in T.grid(4, 3, 3, 8):
        with T.block("pad"):
            vc = T.axis.spatial(4, c)
            vh = T.axis.spatial(9, h0 * 3 + h1)
            vw = T.axis.spatial(8, w)
            y[vc, vh, vw] = T.if_then_else(1 <= vh and vh < 7 and 1 <= vw and vw < 7, x[vc, vh - 1, vw - 1],
                                           T.float32(0), dtype="float32")


@T.prim_func
def pad2d_tiled_decomposed(x: T.Buffer((4, 6, 6), "float32"), y: T.Buffer((4, 9, 8), "float32")):
    for c in range(4):
        for h0, h1, w in T.grid(3, 3, 8):
            with T.block("pad_pad_const"):
                vc = T.axis.spatial(4, c)
                vh = T.axis.spatial(9, h0 * 3 + h1)
                vw = T.axis.spatial(8, w)
                y[vc, vh, vw] = T.float32(0)
        for h0, h1, w in T.grid(3, 3, 6):
            with T.block("pad"):
                vc = T.axis.spatial(4, c)
                vh = T.axis.spatial(6, h0 * 3 + h1 - 1)
                vw = T.axis.spatial(6, w)
                T.where(1 <= h0 * 3 + h1 and h0 * 3 + h1 < 7)
                y[vc, vh + 1, vw + 1] = x[vc, vh, vw]


def _numpy_pad2d(x):
    y = np.zeros((4, 9, 8), "float32")
    y[:, 1:7, 1:7] = x
    return y


def _run_pad2d(func):
    lib = tvm.build(func, target="llvm")
    x = np.random.default_rng(0).uniform(-1, 1, (4, 6, 6)).astype("float32")
    y = tvm.nd.array(np.full((4, 9, 8), 7, "float32"))
    lib(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), _numpy_pad2d(x))


def test_1d():
    sch = tir.Schedule(pad1d, debug_mask="all")
    block = sch.get_block("pad")
    const = sch.decompose_padding(block, sch.get_loops(block)[0])
    assert sch.get(const).name_hint == "pad_pad_const"
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], pad1d_decomposed)
    verify_trace_roundtrip(sch, pad1d)
    assert "b2 = sch.decompose_padding(block=b0, loop=l1)" in "\n".join(sch.trace.as_python())
    lib = tvm.build(sch.mod, target="llvm")
    x = np.arange(10, dtype="int32")
    y = tvm.nd.array(np.zeros(14, "int32"))
    lib(tvm.nd.array(x), y)
    np.testing.assert_array_equal(y.numpy(), np.pad(x, 2, constant_values=-1))


@pytest.mark.parametrize("at, expected", [(1, pad2d_at_h), (2, pad2d_at_w)])
def test_2d_at_each_loop(at, expected):
    sch = tir.Schedule(pad2d, debug_mask="all")
    block = sch.get_block("pad")
    sch.decompose_padding(block, sch.get_loops(block)[at])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], expected)
    verify_trace_roundtrip(sch, pad2d)
    _run_pad2d(sch.mod["main"])


def test_tiled_loops_get_a_predicate():
    sch = tir.Schedule(pad2d_tiled, debug_mask="all")
    block = sch.get_block("pad")
    sch.decompose_padding(block, sch.get_loops(block)[1])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], pad2d_tiled_decomposed)
    verify_trace_roundtrip(sch, pad2d_tiled)
    _run_pad2d(sch.mod["main"])


def test_after_split_and_compute_at_runs():
    @T.prim_func
    def padded_sum(x: T.Buffer((8, 8), "float32"), out: T.Buffer((8, 8), "float32")):
        p = T.alloc_buffer((10, 10), "float32")
        for i, j in T.grid(10, 10):
            with T.block("p"):
                vi, vj = T.axis.remap("SS", [i, j])
                p[vi, vj] = T.if_then_else(1 <= vi and vi < 9 and 1 <= vj and vj < 9, x[vi - 1, vj - 1],
                                           T.float32(0), dtype="float32")
        for i, j, k in T.grid(8, 8, 3):
            with T.block("out"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    out[vi, vj] = T.float32(0)
                out[vi, vj] = out[vi, vj] + p[vi + vk, vj + 1]

    sch = tir.Schedule(padded_sum, debug_mask="all")
    i, _, _ = sch.get_loops(sch.get_block("out"))
    io, _ = sch.split(i, [None, 4])
    sch.compute_at(sch.get_block("p"), io)
    block = sch.get_block("p")
    assert sch.can_decompose_padding(block, sch.get_loops(block)[1])
    sch.decompose_padding(block, sch.get_loops(block)[1])
    verify_trace_roundtrip(sch, padded_sum)
    lib = tvm.build(sch.mod, target="llvm")
    x = np.random.default_rng(1).uniform(-1, 1, (8, 8)).astype("float32")
    out = tvm.nd.array(np.zeros((8, 8), "float32"))
    lib(tvm.nd.array(x), out)
    p = np.pad(x, 1)
    want = sum(p[k:k + 8, 1:9] for k in range(3))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5)


@T.prim_func
def trivial(x: T.Buffer(8, "int32"), y: T.Buffer(8, "int32")):
    for i in range(8):
        with T.block("pad"):
            vi = T.axis.remap("S", [i])
            y[vi] = T.if_then_else(0 <= vi and vi < 8, x[vi], 0, dtype="int32")


@T.prim_func
def not_padding(x: T.Buffer(8, "int32"), y: T.Buffer(8, "int32")):
    for i in range(8):
        with T.block("copy"):
            vi = T.axis.remap("S", [i])
            y[vi] = x[vi]


@T.prim_func
def data_dependent(x: T.Buffer(8, "int32"), y: T.Buffer(8, "int32")):
    for i in range(8):
        with T.block("pad"):
            vi = T.axis.remap("S", [i])
            y[vi] = T.if_then_else(vi * vi < 8, x[vi], 0, dtype="int32")


@pytest.mark.parametrize("func, name, match", [
    (trivial, "pad", "whole iteration domain"),
    (not_padding, "copy", "not T.if_then_else"),
    (data_dependent, "pad", "compare single iteration variables"),
])
def test_refused_blocks_leave_schedule_unchanged(func, name, match):
    sch = tir.Schedule(func, debug_mask="all")
    block = sch.get_block(name)
    loop = sch.get_loops(block)[0]
    before = sch.mod
    assert not sch.can_decompose_padding(block, loop)
    with pytest.raises(tir.ScheduleError, match=match):
        sch.decompose_padding(block, loop)
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_loop_not_above_block():
    sch = tir.Schedule(pad2d_tiled_decomposed, debug_mask="all")
    block = sch.get_block("pad")
    other = sch.get_loops(sch.get_block("pad_pad_const"))[1]
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="not an ancestor"):
        sch.decompose_padding(block, other)
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_name_taken():
    sch = tir.Schedule(pad2d, debug_mask="all")
    block = sch.get_block("pad")
    sch.decompose_padding(block, sch.get_loops(block)[2])
    before = sch.mod
    with pytest.raises(tir.ScheduleError):
        sch.decompose_padding(block, sch.get_loops(block)[0])
    tvm.ir.assert_structural_equal(sch.mod, before)


@T.prim_func
def _pad_then_row_sum(A: T.Buffer((8, 6), "float32"), C: T.Buffer((10,), "float32")):
    P = T.alloc_buffer((10, 9), "float32")
    for i, j in T.grid(10, 9):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = T.if_then_else(1 <= vi and vi < 9 and 2 <= vj and vj < 8, A[vi - 1, vj - 2],
                                       T.float32(0.5), dtype="float32")
    for i, j in T.grid(10, 9):
        with T.block("C"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + P[vi, vj]


def test_inner_extent_using_the_outer_loop_refers_to_its_copy():
    # Found by the random schedule test (case 20467): computed at the outer
    # of C's fused rows split in 4 tiles of 23, P's row loop has extent
    # (i0 * 23 + 22) // 9 + 1 - i0 * 23 // 9; the constant-filling nest copied
    # it with the original i0, out of scope there ("i0 is used but never defined").
    sch = tir.Schedule(_pad_then_row_sum, debug_mask="all")
    fused = sch.fuse(*sch.get_loops(sch.get_block("C")))
    outer, _ = sch.split(fused, [4, None])
    sch.compute_at(sch.get_block("P"), outer)
    block = sch.get_block("P")
    const = sch.decompose_padding(block, sch.get_loops(block)[0])
    _, rows, _ = sch.get_loops(const)
    # compute_at now bounds the varying row extent by its largest value, the predicate
    # keeping the rows exact (TVM keeps the varying extent): a constant in the copy too.
    assert sch.get(rows).extent.value == max((v * 23 + 22) // 9 + 1 - v * 23 // 9 for v in range(4))
    verify_trace_roundtrip(sch, _pad_then_row_sum)
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(20467).uniform(-1, 1, (8, 6)).astype("float32")
    c = tvm.nd.array(np.zeros(10, "float32"))
    lib(tvm.nd.array(a), c)
    p = np.full((10, 9), 0.5, "float32")
    p[1:9, 2:8] = a
    np.testing.assert_allclose(c.numpy(), p.sum(axis=1), rtol=1e-5)
