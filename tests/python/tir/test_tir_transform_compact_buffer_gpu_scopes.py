"""tir.transform.CompactBufferAllocation on thread-bound loop nests: the
storage scope decides the region (TVM's rule). A "shared" buffer gets what one
thread block touches (blockIdx loops fixed, threadIdx/vthread loops relaxed)
and is allocated in the block's loop, a "local" one what one thread touches,
a "global" one stays outside the kernel. Checked against hand-written lowered
functions (the course's chapter 6 window sum and blocked matmul) and numerically
on the CPU, where thread-bound loops run one iteration after the other."""
import sys
from pathlib import Path

import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import find_nodes, run

# The course's conformance file (beside the worktrees); its tests skip without it.
_CONF = Path(__file__).resolve().parents[4] / "shared" / "conformance"
if _CONF.is_dir() and str(_CONF) not in sys.path:
    sys.path.append(str(_CONF))


def _serial(stmt):
    """`stmt` with its thread-bound loops made serial (the CPU build refuses them);
    the CPU then runs the blocks and threads one after the other."""
    tir = tvm.tir
    if isinstance(stmt, tir.For):
        return tir.For(stmt.loop_var, stmt.min, stmt.extent, tir.ForKind.SERIAL if stmt.kind ==
                       tir.ForKind.THREAD_BINDING else stmt.kind, _serial(stmt.body))
    if isinstance(stmt, tir.SeqStmt):
        return tir.SeqStmt([_serial(s) for s in stmt.seq])
    if isinstance(stmt, tir.Allocate):
        return tir.Allocate(stmt.buffer_var, stmt.dtype, stmt.extents, stmt.condition, _serial(stmt.body))
    if isinstance(stmt, tir.DeclBuffer):
        return tir.DeclBuffer(stmt.buffer, _serial(stmt.body))
    if isinstance(stmt, tir.IfThenElse):
        return tir.IfThenElse(stmt.condition, _serial(stmt.then_case),
                              None if stmt.else_case is None else _serial(stmt.else_case))
    return stmt


def _run_serial(func, *arrays):
    return run(func.with_body(_serial(func.body)), *arrays)


def _lower_to_compaction(mod):
    seq = tvm.transform.Sequential([
        tvm.tir.transform.LowerInitBlock(),
        tvm.tir.transform.ConvertBlocksToOpaque(),
        tvm.tir.transform.LowerOpaqueBlock(),
        tvm.tir.transform.CompactBufferAllocation(),
    ])
    return seq(mod)["main"]


# The course's window sum (chapter 6.2), scheduled: split by 128, bind, cache A
# in shared memory at the thread loop (stage 2), then fetch cooperatively (stage 3).
@T.prim_func
def window_sum(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in T.grid(1024):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]


def _window_sum(stage):
    sch = tvm.tir.Schedule(tvm.IRModule({"main": window_sum}))
    block_c = sch.get_block("C")
    (i,) = sch.get_loops(block_c)
    i0, i1 = sch.split(i, [None, 128])
    sch.bind(i0, "blockIdx.x")
    sch.bind(i1, "threadIdx.x")
    a_shared = sch.cache_read(block_c, 0, "shared")
    sch.compute_at(a_shared, i1)
    if stage >= 3:
        ax = sch.get_loops(a_shared)[-1]
        _, ax1 = sch.split(ax, [None, 128])
        sch.bind(ax1, "threadIdx.x")
    return sch.mod


# Expected: 130 floats per block, allocated in the blockIdx loop, indices
# relative to the block's first element i_0 * 128. (The allocation's scope is
# its DeclBuffer's: the data variable carries no pointer type, hence "global"
# on T.allocate.)
@T.prim_func
def window_sum_shared_expected(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i_0 in T.thread_binding(8, thread="blockIdx.x"):
        A_shared = T.allocate([130], "float32", "global")
        A_shared_1 = T.decl_buffer((130,), data=A_shared, scope="shared")
        for i_1 in T.thread_binding(128, thread="threadIdx.x"):
            for ax0 in range(130):
                A_shared_1[ax0] = A[i_0 * 128 + ax0]
            B[i_0 * 128 + i_1] = A_shared_1[i_1] + A_shared_1[i_1 + 1] + A_shared_1[i_1 + 2]


@T.prim_func
def window_sum_cooperative_expected(A: T.Buffer((1027,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i_0 in T.thread_binding(8, thread="blockIdx.x"):
        A_shared = T.allocate([130], "float32", "global")
        A_shared_1 = T.decl_buffer((130,), data=A_shared, scope="shared")
        for i_1 in T.thread_binding(128, thread="threadIdx.x"):
            for ax0_0 in range(2):
                for ax0_1 in T.thread_binding(128, thread="threadIdx.x"):
                    if ax0_0 * 128 + ax0_1 < 130:
                        A_shared_1[ax0_0 * 128 + ax0_1] = A[i_0 * 128 + (ax0_0 * 128 + ax0_1)]
            B[i_0 * 128 + i_1] = A_shared_1[i_1] + A_shared_1[i_1 + 1] + A_shared_1[i_1 + 2]


def _check_window_sum(after):
    a = np.random.default_rng(0).uniform(size=1027).astype("float32")
    (_, b) = _run_serial(after, a, np.zeros(1024, "float32"))
    np.testing.assert_allclose(b, a[:1024] + a[1:1025] + a[2:1026], rtol=1e-6)


def test_shared_cache_is_one_block_region_in_the_block_loop():
    after = _lower_to_compaction(_window_sum(2))
    tvm.ir.assert_structural_equal(after, window_sum_shared_expected)
    _check_window_sum(after)


def test_shared_cooperative_fetch_is_one_block_region():
    after = _lower_to_compaction(_window_sum(3))
    tvm.ir.assert_structural_equal(after, window_sum_cooperative_expected)
    _check_window_sum(after)


def test_conformance_window_sum_lowers_to_130_shared_floats():
    """The conformance file's own schedule (stages 2 and 3) through tvm.lower."""
    conf = pytest.importorskip("test_ch6_gpu_tensorize")
    make_window_sum, schedule_window_sum = conf.make_window_sum, conf.schedule_window_sum

    for stage in (2, 3):
        lowered = tvm.lower(schedule_window_sum(tvm.tir.Schedule(make_window_sum()), stage=stage).mod)["main"]
        shared = {s.buffer.name: [int(e) for e in s.buffer.shape]
                  for s in find_nodes(lowered, tvm.tir.BufferStore) if s.buffer.scope() == "shared"}
        assert shared == {"A_shared": [130]}, shared
        (alloc,) = find_nodes(lowered, tvm.tir.Allocate)
        assert [int(e) for e in alloc.extents] == [130]


def test_local_blocking_is_one_thread_tile():
    """blocking(sch, 8, 8, 8, 8, 4) of the course's 1024 matmul: C_local is 8x8 per thread,
    allocated inside the innermost thread loop, indexed by the per-thread offsets only."""
    conf = pytest.importorskip("test_ch6_gpu_tensorize")
    blocking, make_matmul_1024 = conf.blocking, conf.make_matmul_1024

    after = _lower_to_compaction(blocking(tvm.tir.Schedule(make_matmul_1024()), 8, 8, 8, 8, 4).mod)
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    (decl,) = find_nodes(after, tvm.tir.DeclBuffer)
    assert decl.buffer.scope() == "local" and [int(e) for e in decl.buffer.shape] == [8, 8]
    loops = []
    node = after.body
    while isinstance(node, tvm.tir.For):
        loops.append(node.thread_binding.thread_tag)
        node = node.body
    assert loops == ["blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"]
    assert node.same_as(alloc) or (isinstance(node, tvm.tir.DeclBuffer) and node.body.same_as(alloc)) or \
        isinstance(node, tvm.tir.Allocate)
    stores = [s for s in find_nodes(after, tvm.tir.BufferStore) if s.buffer.name == "C_local"]
    assert stores and all(isinstance(ix, tvm.tir.Var) for s in stores for ix in s.indices)


# A shared buffer used whole by each block (one row per block): same size,
# but still allocated in the block's loop (shared memory is per block).
@T.prim_func
def row_shared(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    S = T.alloc_buffer((32,), "float32", scope="shared")
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for j in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                S[vj] = A[vi, vj]
        for j in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = S[31 - vj] * T.float32(2)


@T.prim_func
def row_shared_expected(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in T.thread_binding(4, thread="blockIdx.x"):
        S = T.allocate([32], "float32", "global")
        S_1 = T.decl_buffer((32,), data=S, scope="shared")
        for j in T.thread_binding(32, thread="threadIdx.x"):
            S_1[j] = A[i, j]
        for j in T.thread_binding(32, thread="threadIdx.x"):
            B[i, j] = S_1[31 - j] * T.float32(2)


def test_shared_buffer_of_same_size_moves_into_the_block_loop():
    after = _lower_to_compaction(tvm.IRModule({"main": row_shared}))
    tvm.ir.assert_structural_equal(after, row_shared_expected)
    a = np.random.default_rng(1).uniform(size=(4, 32)).astype("float32")
    (_, b) = _run_serial(after, a, np.zeros((4, 32), "float32"))
    np.testing.assert_allclose(b, a[:, ::-1] * 2, rtol=1e-6)


# The same with a "global" intermediate: shrinks nowhere and is not moved into
# the kernel (global memory is allocated outside thread-bound loops).
@T.prim_func
def row_global(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    S = T.alloc_buffer((4, 32), "float32")
    for i in T.thread_binding(4, thread="blockIdx.x"):
        for j in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                S[vi, vj] = A[vi, vj]
        for j in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = S[vi, 31 - vj] * T.float32(2)


def test_global_buffer_stays_outside_thread_loops():
    before = tvm.transform.Sequential([tvm.tir.transform.ConvertBlocksToOpaque(),
                                       tvm.tir.transform.LowerOpaqueBlock()])(tvm.IRModule({"main": row_global}))["main"]
    after = _lower_to_compaction(tvm.IRModule({"main": row_global}))
    tvm.ir.assert_structural_equal(after, before)
    (decl,) = find_nodes(after, tvm.tir.DeclBuffer)
    assert [int(e) for e in decl.buffer.shape] == [4, 32]


# A shared tile per reduction step below the thread loops (the tiled matmul's
# A_shared at k0): threadIdx relaxed, k0 fixed, allocated inside k0.
@T.prim_func
def tiled_rowsum(A: T.Buffer((8, 64), "float32"), B: T.Buffer((8, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    S = T.alloc_buffer((8, 64), "float32", scope="shared")
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            for ty in T.thread_binding(16, thread="threadIdx.y"):
                with T.block("init"):
                    vi = T.axis.spatial(8, bx * 4 + tx)
                    vj = T.axis.spatial(16, ty)
                    B[vi, vj] = T.float32(0)
                for k0 in range(4):
                    for f in T.thread_binding(16, thread="threadIdx.y"):
                        for r in range(4):
                            with T.block("fetch"):
                                vi = T.axis.spatial(8, bx * 4 + r)
                                vk = T.axis.spatial(64, k0 * 16 + f)
                                S[vi, vk] = A[vi, vk]
                    with T.block("acc"):
                        vi = T.axis.spatial(8, bx * 4 + tx)
                        vj = T.axis.spatial(16, ty)
                        vk = T.axis.spatial(64, k0 * 16 + ty)
                        B[vi, vj] = B[vi, vj] + S[vi, vk]


def test_shared_tile_below_thread_loops_is_per_step():
    after = _lower_to_compaction(tvm.IRModule({"main": tiled_rowsum}))
    (decl,) = find_nodes(after, tvm.tir.DeclBuffer)
    assert decl.buffer.scope() == "shared" and [int(e) for e in decl.buffer.shape] == [4, 16]
    (k0,) = [f for f in find_nodes(after, tvm.tir.For) if f.loop_var.name == "k0"]
    assert isinstance(k0.body, (tvm.tir.Allocate, tvm.tir.DeclBuffer))
    a = np.random.default_rng(2).uniform(size=(8, 64)).astype("float32")
    (_, b) = _run_serial(after, a, np.zeros((8, 16), "float32"))
    np.testing.assert_allclose(b, a.reshape(8, 4, 16).sum(axis=1), rtol=1e-5)
