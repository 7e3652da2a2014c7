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


@T.prim_func
def accumulator_under_reduction(A: T.Buffer((8, 6), "float32"), C: T.Buffer((8,), "float32")):
    # A row sum whose accumulator (cache_write) is used under the reduction
    # loop k: k is outside the row loop ii and the write-back sits beside the
    # update (cache_write, reorder, reverse_compute_at).
    T.func_attr({"tir.noalias": True})
    C_local = T.alloc_buffer((8,), "float32")
    for io in range(2):
        for k in range(6):
            for ii in range(4):
                with T.block("acc"):
                    vi = T.axis.spatial(8, io * 4 + ii)
                    vk = T.axis.reduce(6, k)
                    with T.init():
                        C_local[vi] = T.float32(0)
                    C_local[vi] = C_local[vi] + A[vi, vk]
                with T.block("wb"):
                    vi = T.axis.spatial(8, io * 4 + ii)
                    C[vi] = C_local[vi]


def test_accumulator_stays_above_the_reduction_loop():
    # Every access of C_local lies in the ii loop, but the partial sums flow
    # from one iteration of k to the next: the buffer may move into io (its
    # iterations touch disjoint rows) and no further.
    before = run_pass(tvm.transform.Sequential([tvm.tir.transform.LowerInitBlock(),
                                                tvm.tir.transform.ConvertBlocksToOpaque(),
                                                tvm.tir.transform.LowerOpaqueBlock()]), accumulator_under_reduction)
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), before)
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [4]
    assert isinstance(after.body, tvm.tir.For) and after.body.loop_var.name_hint == "io"
    assert isinstance(after.body.body, (tvm.tir.Allocate, tvm.tir.DeclBuffer))
    # the k loop is below the allocation
    k_loops = [f for f in find_nodes(after.body.body, tvm.tir.For) if f.loop_var.name_hint == "k"]
    assert len(k_loops) == 1
    assert not find_nodes(k_loops[0], tvm.tir.Allocate)
    # accesses are relative to the tile: C_local[ii]
    (store,) = [s for s in find_nodes(after, tvm.tir.BufferStore)
                if s.buffer.name == "C_local" and not isinstance(s.value, tvm.tir.FloatImm)]
    assert isinstance(store.indices[0], tvm.tir.Var) and store.indices[0].name_hint == "ii"

    a = np.random.rand(8, 6).astype("float32")
    (_, c) = run(after, a, np.zeros(8, "float32"))
    np.testing.assert_allclose(c, a.sum(axis=1), rtol=1e-5)


def test_accumulator_of_scheduled_matmul_keeps_partial_sums():
    # The schedule the random test found (cache_write, reduction loop moved
    # outside, write-back moved under it), built end to end against NumPy.
    @T.prim_func
    def matmul(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"), C: T.Buffer((16, 12), "float32")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid(16, 12, 8):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    sch = tvm.tir.Schedule(matmul)
    block = sch.get_block("C")
    writeback = sch.cache_write(block, 0, "local")
    i, j, k = sch.get_loops(block)
    sch.reorder(k, i, j)
    sch.reverse_compute_at(writeback, i)
    a = np.random.rand(16, 8).astype("float32")
    b = np.random.rand(8, 12).astype("float32")
    (_, _, c) = run(sch.mod["main"], a, b, np.zeros((16, 12), "float32"))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@T.prim_func
def fused_rows(A: T.Buffer((4, 8, 16), "float32"), C: T.Buffer((4, 8, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((4, 8, 16), "float32")
    for f in range(32):
        for j in range(16):
            with T.block("b"):
                vi = T.axis.spatial(4, f // 8)
                vr = T.axis.spatial(8, f % 8)
                vj = T.axis.spatial(16, j)
                B[vi, vr, vj] = A[vi, vr, vj] * T.float32(2)
        for j in range(16):
            with T.block("c"):
                vi = T.axis.spatial(4, f // 8)
                vr = T.axis.spatial(8, f % 8)
                vj = T.axis.spatial(16, j)
                C[vi, vr, vj] = B[vi, vr, vj] + T.float32(1)


def test_row_buffer_of_a_fused_loop_moves_into_it():
    """Rows indexed [f // 8, f % 8, :] by a fused loop f are disjoint per iteration
    (the flattened start moves by 16): the buffer becomes one row inside the loop."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(fused_rows))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [1, 1, 16]
    assert isinstance(after.body, tvm.tir.For) and after.body.loop_var.name_hint == "f"
    a = np.random.rand(4, 8, 16).astype("float32")
    (_, c) = run(after, a, np.zeros((4, 8, 16), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


@T.prim_func
def fused_heads_and_panels(A: T.Buffer((2, 64), "float32"), C: T.Buffer((2, 64), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((2, 64), "float32")
    for f in range(8):
        for j in range(16):
            with T.block("b"):
                vh = T.axis.spatial(2, f // 4)
                vj = T.axis.spatial(64, f % 4 * 16 + j)
                B[vh, vj] = A[vh, vj] * T.float32(2)
        for j in range(16):
            with T.block("c"):
                vh = T.axis.spatial(2, f // 4)
                vj = T.axis.spatial(64, f % 4 * 16 + j)
                C[vh, vj] = B[vh, vj] + T.float32(1)


def test_panel_of_a_fused_loop_over_two_dimensions_moves_into_it():
    """f // 4 picks the row, f % 4 the 16-wide panel: the flattened start does not move
    by a constant stride, but the 8 iterations' boxes are pairwise disjoint."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(fused_heads_and_panels))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [1, 16]
    assert isinstance(after.body, tvm.tir.For) and after.body.loop_var.name_hint == "f"
    a = np.random.rand(2, 64).astype("float32")
    (_, c) = run(after, a, np.zeros((2, 64), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


@T.prim_func
def fused_tiles(A: T.Buffer((4, 6, 8), "float32"), C: T.Buffer((4, 6, 8), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((4, 6, 8), "float32")
    for f in range(12):  # (i, j // 2) fused: each iteration owns a 1 x 2 x 8 tile
        for jj in range(2):
            for k in range(8):
                with T.block("b"):
                    vi = T.axis.spatial(4, f // 3)
                    vj = T.axis.spatial(6, f % 3 * 2 + jj)
                    vk = T.axis.spatial(8, k)
                    B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
        for jj in range(2):
            for k in range(8):
                with T.block("c"):
                    vi = T.axis.spatial(4, f // 3)
                    vj = T.axis.spatial(6, f % 3 * 2 + jj)
                    vk = T.axis.spatial(8, k)
                    C[vi, vj, vk] = B[vi, vj, vk] + T.float32(1)


def test_tile_of_fused_loop_moves_into_it():
    """A loop fused from several (indices f // 3, f % 3 * 2): no dimension moves by
    a constant stride, the tile's row-major offset does (16 per iteration, span 16),
    so the buffer becomes a per-iteration tile (a cache_write under fused parallel
    loops stays in registers)."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(fused_tiles))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [1, 2, 8]
    assert isinstance(after.body, tvm.tir.For) and after.body.loop_var.name_hint == "f"
    a = np.random.default_rng(0).standard_normal((4, 6, 8)).astype("float32")
    (_, c) = run(after, a, np.zeros((4, 6, 8), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


@T.prim_func
def fused_batch_heads_panels(A: T.Buffer((8, 12, 16, 128), "float32"), C: T.Buffer((8, 12, 16, 128), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((8, 12, 16, 128), "float32")
    for f in range(384):  # (batch, head, 32-wide column panel) fused, as a batch matmul's parallel loop at batch 8
        for i, j in T.grid(16, 32):
            with T.block("b"):
                vb = T.axis.spatial(8, f // 48)
                vh = T.axis.spatial(12, f % 48 // 4)
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(128, f % 4 * 32 + j)
                B[vb, vh, vi, vj] = A[vb, vh, vi, vj] * T.float32(2)
        for i, j in T.grid(16, 32):
            with T.block("c"):
                vb = T.axis.spatial(8, f // 48)
                vh = T.axis.spatial(12, f % 48 // 4)
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(128, f % 4 * 32 + j)
                C[vb, vh, vi, vj] = B[vb, vh, vi, vj] + T.float32(1)


@T.prim_func
def fused_pairs_share_rows(A: T.Buffer((256, 16), "float32"), C: T.Buffer((256, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((256, 16), "float32")
    for f in range(512):  # iterations 2r and 2r + 1 both write and read row r
        for j in range(16):
            with T.block("b"):
                vr = T.axis.spatial(256, f // 2)
                vj = T.axis.spatial(16, j)
                B[vr, vj] = A[vr, vj] * T.float32(2)
        for j in range(16):
            with T.block("c"):
                vr = T.axis.spatial(256, f // 2)
                vj = T.axis.spatial(16, j)
                C[vr, vj] = B[vr, vj] + T.float32(1)


def test_panel_of_a_long_fused_loop_moves_into_it():
    """384 iterations (more than are compared pairwise; the row-major offset of a 16 x 32
    panel of 128-wide rows does not move by a constant): each dimension's intervals are
    equal or apart and no two boxes are equal, so the panel is per iteration (at batch
    8 attention's Q*K^T kept a 6 MB accumulator in memory, 5x slower, without this)."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(fused_batch_heads_panels))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [1, 1, 16, 32]
    assert isinstance(after.body, tvm.tir.For) and after.body.loop_var.name_hint == "f"
    a = np.random.default_rng(0).standard_normal((8, 12, 16, 128)).astype("float32")
    (_, c) = run(after, a, np.zeros((8, 12, 16, 128), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_rows_shared_by_iterations_of_a_long_fused_loop_stay():
    """Iterations 2r and 2r + 1 touch the same row: their boxes are equal, so the
    buffer is not moved into the loop (it stays whole at the function level)."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(fused_pairs_share_rows))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [256, 16]
    assert not isinstance(after.body, tvm.tir.For)
    a = np.random.default_rng(0).standard_normal((256, 16)).astype("float32")
    (_, c) = run(after, a, np.zeros((256, 16), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


@T.prim_func
def image_loop_around_fused_tiles(A: T.Buffer((3, 8, 4, 16), "float32"), C: T.Buffer((3, 8, 4, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((3, 8, 4, 16), "float32")
    for n in range(3):  # a serial image loop outside (the packed conv with its padding per image)
        for f in range(16):  # (pairs of channel blocks, rows) fused: a 2 x 16 tile, not contiguous row-major
            for k, j in T.grid(2, 16):
                with T.block("b"):
                    vn = T.axis.spatial(3, n)
                    vc = T.axis.spatial(8, f // 4 * 2 + k)
                    vr = T.axis.spatial(4, f % 4)
                    vj = T.axis.spatial(16, j)
                    B[vn, vc, vr, vj] = A[vn, vc, vr, vj] * T.float32(2)
            for k, j in T.grid(2, 16):
                with T.block("c"):
                    vn = T.axis.spatial(3, n)
                    vc = T.axis.spatial(8, f // 4 * 2 + k)
                    vr = T.axis.spatial(4, f % 4)
                    vj = T.axis.spatial(16, j)
                    C[vn, vc, vr, vj] = B[vn, vc, vr, vj] + T.float32(1)


@T.prim_func
def rows_moving_with_the_image(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    T.func_attr({"tir.noalias": True})
    B = T.alloc_buffer((16, 16), "float32")
    for n in range(2):
        for f in range(16):  # row n * f % 16: with n = 0 every iteration uses row 0
            for j in range(16):
                with T.block("b"):
                    vr = T.axis.spatial(16, n * f % 16)
                    vj = T.axis.spatial(16, j)
                    B[vr, vj] = A[vr, vj] * T.float32(2)
            for j in range(16):
                with T.block("c"):
                    vr = T.axis.spatial(16, n * f % 16)
                    vj = T.axis.spatial(16, j)
                    C[vr, vj] = B[vr, vj] + T.float32(1)


def test_tile_of_fused_loop_inside_an_outer_loop_moves_into_it():
    """The tiles' boxes move with the outer image loop n by the same shift in every
    iteration of the fused loop f, so they are compared with n = 0 and found apart: the
    buffer is a 2 x 16 tile per iteration of f (it stayed a whole image per n before, and
    the packed conv's accumulators at batch 8 with 7-wide rows ran 2.4x slower)."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(image_loop_around_fused_tiles))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert [int(e) for e in alloc.extents] == [1, 2, 1, 16]
    a = np.random.default_rng(0).standard_normal((3, 8, 4, 16)).astype("float32")
    (_, c) = run(after, a, np.zeros((3, 8, 4, 16), "float32"))
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_boxes_depending_on_outer_and_fused_loops_together_stay():
    """Row n * f % 16: the outer variable does not just shift the boxes (with n = 0 they
    all coincide), so the buffer is not made private to iterations of f."""
    after = run_pass(tvm.tir.transform.CompactBufferAllocation(), _lowered(rows_moving_with_the_image))
    (alloc,) = find_nodes(after, tvm.tir.Allocate)
    assert int(np.prod([int(e) for e in alloc.extents])) > 16
    a = np.random.default_rng(0).standard_normal((16, 16)).astype("float32")
    (_, c) = run(after, a, np.zeros((16, 16), "float32"))
    expected = np.zeros((16, 16), "float32")
    for n in range(2):
        for f in range(16):
            expected[n * f % 16] = a[n * f % 16] * 2 + 1
    np.testing.assert_allclose(c, expected, rtol=1e-6)
