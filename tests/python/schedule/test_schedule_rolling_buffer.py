"""rolling_buffer (TVM v0.18 semantics): an intermediate buffer computed tile
by tile under its consumer's loop becomes a circular buffer along the
outermost loop whose tiles overlap. Compared with hand-written TVMScript,
replayed from Python and JSON traces, built with bound checks and run against
NumPy; bad inputs are ScheduleErrors naming the culprit that leave the module
and the trace unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import assert_structural_equal_ignore_global_symbol, verify_trace_roundtrip


# A 1-D sliding window sum feeding a sliding window max (pool-like chain).
@T.prim_func
def window_chain(A: T.Buffer((20,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((18,), "float32")
    for i, k in T.grid(18, 3):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi + vk]
    for i, k in T.grid(16, 3):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(-1e30)
            C[vi] = T.max(C[vi], B[vi + vk])


# Written by hand: B keeps one tile (6 = 4 + overlap 2) addressed modulo 6;
# tiles after the first skip the 2 elements the previous tile computed.
@T.prim_func
def window_chain_rolled(A: T.Buffer((20,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((6,), "float32")
    for i_0 in range(4):
        for ax0, ax1 in T.grid(6, 3):
            with T.block("B"):
                T.where(i_0 < 1 or 2 <= ax0)
                vi = T.axis.opaque(18, i_0 * 4 + ax0)
                vk = T.axis.reduce(3, ax1)
                T.reads(A[vi + vk])
                T.writes(B[vi % 6])
                with T.init():
                    B[vi % 6] = T.float32(0)
                B[vi % 6] = B[vi % 6] + A[vi + vk]
        for i_1, k in T.grid(4, 3):
            with T.block("C"):
                vi = T.axis.opaque(16, i_0 * 4 + i_1)
                vk = T.axis.reduce(3, k)
                T.reads(B[(vi + vk) % 6])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(-1e30)
                C[vi] = T.max(C[vi], B[(vi + vk) % 6])


def _computed_at(func, tile=4):
    sch = tir.Schedule(func, debug_mask="all")
    i = sch.get_loops(sch.get_block("C"))[0]
    io, _ = sch.split(i, [None, tile])
    sch.compute_at(sch.get_block("B"), io)
    return sch


def _window_chain_ref(a):
    b = a[0:18] + a[1:19] + a[2:20]
    return np.maximum(np.maximum(b[0:16], b[1:17]), b[2:18])


def test_window_chain_expected_and_trace():
    sch = _computed_at(window_chain)
    sch.rolling_buffer(sch.get_block("B"), 0)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], window_chain_rolled)
    assert sch.trace.as_python()[-1] == "sch.rolling_buffer(block=b6, write_buffer_index=0)"
    verify_trace_roundtrip(sch, window_chain)


def test_window_chain_block_by_name_and_keyword():
    sch = _computed_at(window_chain)
    sch.rolling_buffer(block="B", write_buffer_index=0)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], window_chain_rolled)


def test_window_chain_numpy():
    sch = _computed_at(window_chain)
    sch.rolling_buffer(sch.get_block("B"), 0)
    f = tvm.build(sch.mod, target="llvm -bound-check")
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, 20).astype("float32")
    c = tvm.nd.array(np.zeros(16, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), _window_chain_ref(a), rtol=1e-6)


# A 3x3 max pool of a 3x3 max pool, tiled along H (rolled) and W (tiles
# overlap there too, so the predicate skips both overlaps).
@T.prim_func
def pool_chain(A: T.Buffer((12, 12), "int8"), C: T.Buffer((8, 8), "int8")):
    B = T.alloc_buffer((10, 10), "int8")
    for h, w, rh, rw in T.grid(10, 10, 3, 3):
        with T.block("B"):
            vh, vw, vrh, vrw = T.axis.remap("SSRR", [h, w, rh, rw])
            with T.init():
                B[vh, vw] = T.int8(-128)
            B[vh, vw] = T.max(B[vh, vw], A[vh + vrh, vw + vrw])
    for h, w, rh, rw in T.grid(8, 8, 3, 3):
        with T.block("C"):
            vh, vw, vrh, vrw = T.axis.remap("SSRR", [h, w, rh, rw])
            with T.init():
                C[vh, vw] = T.int8(-128)
            C[vh, vw] = T.max(C[vh, vw], B[vh + vrh, vw + vrw])


@T.prim_func
def pool_chain_rolled(A: T.Buffer((12, 12), "int8"), C: T.Buffer((8, 8), "int8")):
    B = T.alloc_buffer((6, 10), "int8")
    for h_0, w_0 in T.grid(2, 2):
        for ax0, ax1, ax2, ax3 in T.grid(6, 6, 3, 3):
            with T.block("B"):
                T.where((h_0 < 1 or 2 <= ax0) and (w_0 < 1 or 2 <= ax1))
                vh = T.axis.opaque(10, h_0 * 4 + ax0)
                vw = T.axis.spatial(10, w_0 * 4 + ax1)
                vrh, vrw = T.axis.remap("RR", [ax2, ax3])
                T.reads(A[vh + vrh, vw + vrw])
                T.writes(B[vh % 6, vw])
                with T.init():
                    B[vh % 6, vw] = T.int8(-128)
                B[vh % 6, vw] = T.max(B[vh % 6, vw], A[vh + vrh, vw + vrw])
        for h_1, w_1, rh, rw in T.grid(4, 4, 3, 3):
            with T.block("C"):
                vh = T.axis.opaque(8, h_0 * 4 + h_1)
                vw = T.axis.spatial(8, w_0 * 4 + w_1)
                vrh, vrw = T.axis.remap("RR", [rh, rw])
                T.reads(B[(vh + vrh) % 6, vw + vrw])
                T.writes(C[vh, vw])
                with T.init():
                    C[vh, vw] = T.int8(-128)
                C[vh, vw] = T.max(C[vh, vw], B[(vh + vrh) % 6, vw + vrw])


def _pool_scheduled():
    sch = tir.Schedule(pool_chain, debug_mask="all")
    h, w, _, _ = sch.get_loops(sch.get_block("C"))
    ho, hi = sch.split(h, [2, 4])
    wo, wi = sch.split(w, [2, 4])
    sch.reorder(ho, wo, hi, wi)
    sch.compute_at(sch.get_block("B"), wo)
    return sch


def _pool3(x):
    n = x.shape[0] - 2
    out = np.full((n, n), -128, dtype=x.dtype)
    for dh in range(3):
        for dw in range(3):
            out = np.maximum(out, x[dh:dh + n, dw:dw + n])
    return out


def test_pool_chain_expected_and_numpy():
    sch = _pool_scheduled()
    sch.rolling_buffer(sch.get_block("B"), 0)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], pool_chain_rolled)
    verify_trace_roundtrip(sch, pool_chain)
    f = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(1).integers(-128, 128, (12, 12)).astype("int8")
    c = tvm.nd.array(np.zeros((8, 8), "int8"))
    f(tvm.nd.array(a), c)
    np.testing.assert_array_equal(c.numpy(), _pool3(_pool3(a)))


def _assert_refused(sch, match, *args):
    before = sch.mod
    steps = len(sch.trace.as_python())
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.rolling_buffer(*args)
    tvm.ir.assert_structural_equal(sch.mod, before)
    assert len(sch.trace.as_python()) == steps


def test_refuses_output_block():
    sch = _computed_at(window_chain)
    _assert_refused(sch, r'block "C" is an output block: it writes buffer C', sch.get_block("C"), 0)


def test_refuses_index_out_of_range():
    sch = _computed_at(window_chain)
    _assert_refused(sch, r'block "B" has 1 written buffers; index 1 is out of range', sch.get_block("B"), 1)
    _assert_refused(sch, r"index -1 is out of range", sch.get_block("B"), -1)


def test_refuses_without_compute_at():
    # B and C share no loop: no loop rolls.
    sch = tir.Schedule(window_chain, debug_mask="all")
    _assert_refused(sch, r'lowest common ancestor of block "B" and the consumers of buffer B is not a loop',
                    sch.get_block("B"), 0)


def test_refuses_tiles_without_overlap():
    @T.prim_func
    def pointwise(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.alloc_buffer((16,), "float32")
        for i in range(16):
            with T.block("B"):
                vi = T.axis.spatial(16, i)
                B[vi] = A[vi] * T.float32(2)
        for i in range(16):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                C[vi] = B[vi] + T.float32(1)

    sch = _computed_at(pointwise)
    _assert_refused(sch, r"has no dimension matching the rolling pattern", sch.get_block("B"), 0)


def test_refuses_second_writer():
    @T.prim_func
    def two_writers(A: T.Buffer((20,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.alloc_buffer((18,), "float32")
        for i_0 in range(4):
            for ax0 in range(6):
                with T.block("B0"):
                    vi = T.axis.spatial(18, i_0 * 4 + ax0)
                    B[vi] = A[vi]
            for ax0 in range(6):
                with T.block("B1"):
                    vi = T.axis.spatial(18, i_0 * 4 + ax0)
                    B[vi] = B[vi] + A[vi + 2]
            for i_1, k in T.grid(4, 3):
                with T.block("C"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vk = T.axis.reduce(3, k)
                    with T.init():
                        C[vi] = T.float32(0)
                    C[vi] = C[vi] + B[vi + vk]

    sch = tir.Schedule(two_writers, debug_mask="all")
    _assert_refused(sch, r'block "B0" must have only read-after-write dependencies, but block "B1" also writes',
                    sch.get_block("B0"), 0)


def test_refuses_bound_loop():
    # The skipped overlap was computed by the previous iteration: the rolled
    # loop must run in order.
    sch = _computed_at(window_chain)
    sch.bind(sch.get_loops(sch.get_block("C"))[0], "blockIdx.x")
    _assert_refused(sch, r"loop i_0, along which the tiles of buffer B overlap, must be a serial",
                    sch.get_block("B"), 0)


def test_refuses_non_integer_index():
    sch = _computed_at(window_chain)
    before = sch.mod
    with pytest.raises(TypeError, match="write_buffer_index must be an int"):
        sch.rolling_buffer(sch.get_block("B"), "0")
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_rolled_blocks_cannot_move():
    # The rolled iteration variables are opaque (each iteration reuses what
    # the previous one computed): as TVM, compute_at and reverse_compute_at
    # refuse such blocks (neither complete nor reduction blocks).
    sch = _computed_at(window_chain)
    sch.rolling_buffer(sch.get_block("B"), 0)
    before = sch.mod
    loop = sch.get_loops(sch.get_block("C"))[1]
    with pytest.raises(tvm.tir.ScheduleError, match=r'block "B" is neither a complete nor a reduction block'):
        sch.compute_at(sch.get_block("B"), loop)
    tvm.ir.assert_structural_equal(sch.mod, before)
    # sample_compute_location finds no legal loop and leaves it in place.
    sch.compute_at(sch.get_block("B"), sch.sample_compute_location(sch.get_block("B")))
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_decompose_reduction_refuses_overlapping_tiles():
    # Before rolling, B recomputes the 2 overlapping elements of each tile,
    # each time a fresh reduction: an init hoisted above the tile loop would
    # add both runs into one (found by the random schedule test).
    sch = _computed_at(window_chain)
    before = sch.mod
    tile_loop = sch.get_loops(sch.get_block("B"))[0]
    with pytest.raises(tvm.tir.ScheduleError, match=r'bindings of block "B" are not one-to-one in the loops below'):
        sch.decompose_reduction(sch.get_block("B"), tile_loop)
    tvm.ir.assert_structural_equal(sch.mod, before)
    # Below the tile loop each element is reduced once: allowed, and correct.
    sch.decompose_reduction(sch.get_block("B"), sch.get_loops(sch.get_block("B"))[1])
    f = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(2).uniform(-1, 1, 20).astype("float32")
    c = tvm.nd.array(np.zeros(16, "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), _window_chain_ref(a), rtol=1e-6)


# ---- regressions found by the random schedule test (window_chain program) ----------------
def _window_chain_run(sch):
    from .test_schedule_random import window_chain  # pylint: disable=import-outside-toplevel

    _, _, _, ref = window_chain()
    a = np.random.default_rng(0).standard_normal((2, 20)).astype("float32")
    c = tvm.nd.empty((2, 16), "float32")
    tvm.build(sch.mod, target="llvm -bound-check")["main"](tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), ref(a)[0], rtol=1e-5, atol=1e-5)


def _window_chain_schedule():
    from .test_schedule_random import window_chain  # pylint: disable=import-outside-toplevel

    return tvm.tir.Schedule(window_chain()[0])


def test_reduction_variable_at_the_rolled_position_stays_a_reduction():
    """After reorder_block_iter_var the consumer's iterator at the rolled
    position is its reduction variable: made opaque it would drop out of
    the init condition (TVM does so; the init then ran at every step)."""
    sch = _window_chain_schedule()
    sch.reorder_block_iter_var(sch.get_block("C"), [0, 2, 1])
    sch.rolling_buffer(sch.get_block("B"), 0)
    kinds = [iv.iter_type for iv in sch.get(sch.get_block("C")).iter_vars]
    assert kinds[1] == tvm.tir.IterVar.CommReduce
    _window_chain_run(sch)


def test_overlap_measured_under_the_block_predicate():
    """A non-divisible split of the producer's tile loop (6 rows as 5 x 2
    under a predicate): the rolled extent and the overlap come from the 6
    rows written, not the 10 iterations."""
    sch = _window_chain_schedule()
    ax0 = sch.get_loops(sch.get_block("B"))[2]
    sch.split(ax0, [5, None])
    sch.rolling_buffer(sch.get_block("B"), 0)
    assert [int(x) for x in sch.get(sch.get_block("C")).reads[0].buffer.shape] == [2, 6]
    _window_chain_run(sch)


def test_decompose_reduction_refuses_the_opaque_iterator_rolling_leaves():
    """Random schedule case 862: after rolling_buffer the consumer's rolled
    iterator is opaque; decompose_reduction (TVM: reduction blocks only)
    refused it instead of emitting an init block that used it undefined."""
    sch = _window_chain_schedule()
    sch.rolling_buffer(sch.get_block("B"), 0)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="neither spatial nor a reduction"):
        sch.decompose_reduction(sch.get_block("C"), sch.get_loops(sch.get_block("C"))[0])
    assert sch.mod.same_as(before)
    _window_chain_run(sch)
