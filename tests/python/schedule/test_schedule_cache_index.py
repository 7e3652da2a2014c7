"""Schedule.cache_index (TVM's): a block's index expressions are precomputed
into buffers by new blocks placed before it. Checked against hand-written
expected modules, NumPy after tvm.build, trace replay and bad inputs."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip


@T.prim_func
def resize(A: T.Buffer((1, 3, 40, 40), "float32"), B: T.Buffer((1, 3, 80, 80), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i0, i1, i2, i3 in T.grid(1, 3, 80, 80):
        with T.block("A"):
            n, c, vi, vj = T.axis.remap("SSSS", [i0, i1, i2, i3])
            B[n, c, vi, vj] = A[n, c, vi // 4 + vj // 4, vj // 2]


# TVM's expected module, except that the 2-D index buffer has the default
# compact strides (TVM gives it strides=[1], which Tessera's buffers refuse)
# and that the block declares reading the index buffers (TVM leaves its reads
# as they were).
@T.prim_func
def resize_cached(A: T.Buffer((1, 3, 40, 40), "float32"), B: T.Buffer((1, 3, 80, 80), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    index_var_0 = T.alloc_buffer([80, 80], dtype="int32")
    index_var_1 = T.alloc_buffer([80], dtype="int32", strides=[1])
    for ax0, ax1 in T.grid(80, 80):
        with T.block("index_0"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads()
            T.writes(index_var_0[v0, v1])
            index_var_0[v0, v1] = v0 // 4 + v1 // 4
    for ax0 in T.serial(80):
        with T.block("index_1"):
            v0 = T.axis.spatial(80, ax0)
            T.reads()
            T.writes(index_var_1[v0])
            index_var_1[v0] = v0 // 2
    for i0, i1, i2, i3 in T.grid(1, 3, 80, 80):
        with T.block("A"):
            n, c, vi, vj = T.axis.remap("SSSS", [i0, i1, i2, i3])
            T.reads(A[n, c, vi // 4 + vj // 4, vj // 2], index_var_0[vi, vj], index_var_1[vj])
            T.writes(B[n, c, vi, vj])
            B[n, c, vi, vj] = A[n, c, index_var_0[vi, vj], index_var_1[vj]]


@T.prim_func
def gather(A: T.Buffer((64,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[(vi * 3 + 1) % 64] * A[(vi * 3 + 1) % 64 + 2] + A[vi * 2]


# With cse_thresh=2 only (vi * 3 + 1) % 64, seen twice, is precomputed; the
# sum it sits in and vi * 2 (seen once) stay.
@T.prim_func
def gather_cached(A: T.Buffer((64,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    index_var_0 = T.alloc_buffer([16], dtype="int32", strides=[1])
    for ax0 in range(16):
        with T.block("index_0"):
            v0 = T.axis.spatial(16, ax0)
            T.reads()
            T.writes(index_var_0[v0])
            index_var_0[v0] = (v0 * 3 + 1) % 64
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            # The original block's reads, and the index buffer.
            T.reads(A[T.min((vi * 3 + 1) % 64, vi * 2):T.min((vi * 3 + 1) % 64, vi * 2)
                      + (T.max((vi * 3 + 1) % 64 + 2, vi * 2) - T.min((vi * 3 + 1) % 64, vi * 2) + 1)],
                    index_var_0[vi])
            T.writes(C[vi])
            C[vi] = A[index_var_0[vi]] * A[index_var_0[vi] + 2] + A[vi * 2]


@T.prim_func
def plain_copy(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[vi]


def test_resize_matches_expected_and_runs():
    sch = tir.Schedule(resize, debug_mask="all")
    blocks = sch.cache_index(sch.get_block("A"), "global")
    assert [sch.get(b).name_hint for b in blocks] == ["index_0", "index_1"]
    tvm.ir.assert_structural_equal(sch.mod["main"], resize_cached)
    verify_trace_roundtrip(sch, mod=resize)
    lib = tvm.build(sch.mod, target="llvm")
    a = np.random.default_rng(0).standard_normal((1, 3, 40, 40)).astype("float32")
    b = tvm.nd.empty((1, 3, 80, 80), "float32")
    lib(tvm.nd.array(a), b)
    i = np.arange(80)[:, None]
    j = np.arange(80)[None, :]
    np.testing.assert_allclose(b.numpy(), a[:, :, i // 4 + j // 4, np.broadcast_to(j // 2, (80, 80))], rtol=0)


def test_threshold_keeps_only_repeated_expressions():
    sch = tir.Schedule(gather, debug_mask="all")
    blocks = sch.cache_index("C", "global", cse_thresh=2)
    assert len(blocks) == 1
    tvm.ir.assert_structural_equal(sch.mod["main"], gather_cached)
    verify_trace_roundtrip(sch, mod=gather)
    lib = tvm.build(sch.mod, target="llvm")
    a = np.random.default_rng(1).standard_normal(64).astype("float32")
    c = tvm.nd.empty((16,), "float32")
    lib(tvm.nd.array(a), c)
    v = np.arange(16)
    k = (v * 3 + 1) % 64
    np.testing.assert_allclose(c.numpy(), a[k] * a[k + 2] + a[v * 2], rtol=1e-6)


def test_threshold_zero_takes_every_candidate():
    sch = tir.Schedule(gather)
    blocks = sch.cache_index("C", "local")
    names = sorted(sch.get(b).writes[0].buffer.name for b in blocks)
    assert names == ["index_var_0", "index_var_1", "index_var_2"]
    assert all(sch.get(b).writes[0].buffer.scope() == "local" for b in blocks)


def test_index_blocks_stay_before_their_reader():
    # The block declares reading the index buffers, so a cache_write of an
    # index block puts its write-back before the block (found by the random
    # schedule test where TVM's undeclared reads put it after).
    sch = tir.Schedule(resize)
    blocks = sch.cache_index("A", "global")
    sch.cache_write(blocks[0], 0, "local")
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(0).standard_normal((1, 3, 40, 40)).astype("float32")
    b = tvm.nd.empty((1, 3, 80, 80), "float32")
    lib(tvm.nd.array(a), b)
    i = np.arange(80)[:, None]
    j = np.arange(80)[None, :]
    np.testing.assert_allclose(b.numpy(), a[:, :, i // 4 + j // 4, np.broadcast_to(j // 2, (80, 80))], rtol=0)


def test_handles_of_new_blocks_work():
    sch = tir.Schedule(resize, debug_mask="all")
    blocks = sch.cache_index("A", "global")
    sch.parallel(sch.get_loops(blocks[0])[0])
    assert sch.get(sch.get_loops(blocks[0])[0]).kind == tir.ForKind.PARALLEL
    verify_trace_roundtrip(sch, mod=resize)


@pytest.mark.parametrize("apply, error, match", [
    (lambda s: s.cache_index("C", "global"), tir.ScheduleError, 'block "C" has no index expression'),
    (lambda s: s.cache_index("C", "nowhere"), tir.ScheduleError, "not a storage scope"),
    (lambda s: s.cache_index("C", "global", -1), ValueError, "cse_thresh must be a non-negative int"),
    (lambda s: s.cache_index("D", "global"), tir.ScheduleError, 'cannot find a block named "D"'),
])
def test_refused_leave_schedule_unchanged(apply, error, match):
    sch = tir.Schedule(plain_copy, debug_mask="all")
    before = sch.mod
    with pytest.raises(error, match=match):
        apply(sch)
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_threshold_above_every_count_is_refused():
    sch = tir.Schedule(gather)
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="occurs at least 5 times"):
        sch.cache_index("C", "global", 5)
    tvm.ir.assert_structural_equal(sch.mod, before)
