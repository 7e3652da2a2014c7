"""Schedule.cache_inplace (TVM's): a block that reads and writes one buffer
works on a copy filled before it and written back after it. Checked against
hand-written expected modules, NumPy after tvm.build, trace replay, and the
block handles of the two copy blocks, which share a name."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def scale_rows(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(4):
        with T.block("S"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 4:vi * 4 + 4], B[vi * 4:vi * 4 + 4])
            T.writes(A[vi * 4:vi * 4 + 4])
            for k in range(4):
                A[vi * 4 + k] = A[vi * 4 + k] * T.float32(2) + B[vi * 4 + k]


@T.prim_func
def scale_rows_cached(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    A_local = T.alloc_buffer((16,), "float32", scope="local")
    for i in range(4):
        for ax0 in range(4):
            with T.block("A_local"):
                v0 = T.axis.spatial(16, i * 4 + ax0)
                T.reads(A[v0])
                T.writes(A_local[v0])
                A_local[v0] = A[v0]
        with T.block("S"):
            vi = T.axis.spatial(4, i)
            T.reads(A_local[vi * 4:vi * 4 + 4], B[vi * 4:vi * 4 + 4])
            T.writes(A_local[vi * 4:vi * 4 + 4])
            for k in range(4):
                A_local[vi * 4 + k] = A_local[vi * 4 + k] * T.float32(2) + B[vi * 4 + k]
        for ax0 in range(4):
            with T.block("A_local"):
                v0 = T.axis.spatial(16, i * 4 + ax0)
                T.reads(A_local[v0])
                T.writes(A[v0])
                A[v0] = A_local[v0]


@T.prim_func
def write_only_part(A: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(1):
        with T.block("W"):
            T.reads(A[0:8])
            T.writes(A[0:16])
            for k in range(16):
                A[k] = A[k % 8] + T.float32(1)


def _run(mod):
    lib = tvm.build(mod, target="llvm")
    rng = np.random.default_rng(0)
    a = rng.standard_normal(16).astype("float32")
    b = rng.standard_normal(16).astype("float32")
    a_nd = tvm.nd.array(a)
    lib(a_nd, tvm.nd.array(b))
    np.testing.assert_allclose(a_nd.numpy(), a * 2 + b, rtol=1e-6)


def test_cache_inplace_matches_expected_and_runs():
    sch = tir.Schedule(scale_rows, debug_mask="all")
    blocks = sch.cache_inplace(sch.get_block("S"), 0, "local")
    assert len(blocks) == 2
    assert [sch.get(b).name_hint for b in blocks] == ["A_local", "A_local"]
    tvm.ir.assert_structural_equal(sch.mod["main"], scale_rows_cached)
    _run(sch.mod)
    verify_trace_roundtrip(sch, mod=scale_rows)


def test_buffer_given_by_name():
    sch = tir.Schedule(scale_rows)
    sch.cache_inplace("S", "A", "local")
    tvm.ir.assert_structural_equal(sch.mod["main"], scale_rows_cached)


def test_same_named_blocks_have_distinct_handles():
    sch = tir.Schedule(scale_rows, debug_mask="all")
    copy_in, copy_out = sch.cache_inplace(sch.get_block("S"), 0, "local")
    assert sch.get(copy_in).writes[0].buffer.name == "A_local"
    assert sch.get(copy_out).writes[0].buffer.name == "A"
    # A name no longer tells the two apart: get_block refuses, naming the block.
    with pytest.raises(tir.ScheduleError, match='several blocks are named "A_local"'):
        sch.get_block("A_local")
    # Each handle follows its own block through later primitives.
    loops_in = sch.get_loops(copy_in)
    loops_out = sch.get_loops(copy_out)
    assert not sch.get(loops_in[-1]).same_as(sch.get(loops_out[-1]))
    sch.vectorize(loops_out[-1])
    assert sch.get(copy_out).writes[0].buffer.name == "A"
    sch.annotate(copy_in, "which", "in")
    assert sch.get(copy_in).annotations["which"] == "in"
    assert "which" not in sch.get(copy_out).annotations
    _run(sch.mod)
    verify_trace_roundtrip(sch, mod=scale_rows)


def test_cache_read_and_write_on_the_copies():
    # As TVM's test_cache_inplace: the returned handles go on to cache_read /
    # cache_write, which may create blocks sharing a name too.
    sch = tir.Schedule(scale_rows, debug_mask="all")
    blocks = sch.cache_inplace(sch.get_block("S"), 0, "local")
    r = sch.cache_read(blocks[0], 0, "global", [blocks[0]])
    w = sch.cache_write(blocks[1], 0, "global")
    assert sch.get(r).name_hint == sch.get(w).name_hint == "A_global"
    assert sch.get(r).reads[0].buffer.name == "A"
    assert sch.get(w).writes[0].buffer.name == "A"
    assert sch.get(blocks[0]).reads[0].buffer.name == "A_global"
    _run(sch.mod)
    verify_trace_roundtrip(sch, mod=scale_rows)


def test_child_blocks_of_shared_name_resolve_by_identity():
    sch = tir.Schedule(scale_rows)
    copy_in, copy_out = sch.cache_inplace(sch.get_block("S"), 0, "local")
    children = sch.get_child_blocks(sch.get_loops(sch.get_block("S"))[0])
    assert [sch.get(c).same_as(sch.get(x)) for c, x in zip(children[::2], [copy_in, copy_out])] == [True, True]


def test_handles_follow_a_replaced_block():
    sch = tir.Schedule(scale_rows, debug_mask="all")
    copy_in, copy_out = sch.cache_inplace(sch.get_block("S"), 0, "local")
    outer = sch.blockize(sch.get_loops(copy_out)[-1])
    assert sch.get(outer).name_hint == "A_local_o"
    # The inner block is a new node of the same name: copy_out follows it.
    assert sch.get(copy_out).name_hint == "A_local"
    assert sch.get(copy_out).writes[0].buffer.name == "A"
    assert sch.get(copy_in).writes[0].buffer.name == "A_local"
    _run(sch.mod)
    verify_trace_roundtrip(sch, mod=scale_rows)


@pytest.mark.parametrize("apply, match", [
    (lambda s: s.cache_inplace("S", 2, "local"), "out of range"),
    (lambda s: s.cache_inplace("S", 1, "local"), 'block "S" reads buffer B but does not write it'),
    (lambda s: s.cache_inplace("S", "C", "local"), "reads no buffer named C"),
    (lambda s: s.cache_inplace("S", 0, "nowhere"), "not a storage scope"),
])
def test_refused_leave_schedule_unchanged(apply, match):
    sch = tir.Schedule(scale_rows, debug_mask="all")
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match=match):
        apply(sch)
    tvm.ir.assert_structural_equal(sch.mod, before)
    assert len(sch.trace.insts) <= 1  # at most the get_block


def test_written_region_not_read_is_refused():
    sch = tir.Schedule(write_only_part)
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match='block "W" declares writing a region of A it does not declare reading'):
        sch.cache_inplace("W", 0, "local")
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_block_under_parallel_loop_is_refused():
    # Each iteration would copy the region in and back at once, over the
    # others' updates (TVM does not check).
    sch = tir.Schedule(scale_rows)
    sch.parallel(sch.get_loops("S")[0])
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="runs under loop i whose iterations run at once"):
        sch.cache_inplace("S", 0, "local")
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_bad_argument_types():
    sch = tir.Schedule(scale_rows)
    with pytest.raises(TypeError):
        sch.cache_inplace("S", 0, 3)
    with pytest.raises(TypeError):
        sch.cache_inplace("S", 1.5, "local")
