"""TVM v0.18's forms for cache_read/cache_write placement and regions, split
predicates, symbolic fuse extents and rfactor's iterators and loops. Each
case compares with a hand-written expected function (structural equality)
and, where it runs, with NumPy; the refusals leave the module unchanged."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


def _run(func, *arrays):
    lib = tvm.build(func, target="llvm")
    nds = [tvm.nd.array(a) for a in arrays]
    lib[func.attrs["global_symbol"] if func.attrs and "global_symbol" in func.attrs else "main"](*nds)
    return [n.numpy() for n in nds]


# ---- cache_read: after the producer, in the lowest loop it shares with a consumer ----
@T.prim_func
def producer_in_loop(D: T.Buffer((64,), "float32"), E: T.Buffer((64,), "float32")):
    A = T.alloc_buffer((64,))
    for i in range(4):
        for j in range(16):
            with T.block("A"):
                vi = T.axis.spatial(64, i * 16 + j)
                A[vi] = T.float32(vi)
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(64, i * 16 + j)
                D[vi] = A[vi] + T.float32(1)
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            E[vi] = A[vi] * T.float32(2)


@T.prim_func
def producer_in_loop_cache_read(D: T.Buffer((64,), "float32"), E: T.Buffer((64,), "float32")):
    A = T.alloc_buffer((64,))
    A_local = T.alloc_buffer((64,), scope="local")
    for i in range(4):
        for j in range(16):
            with T.block("A"):
                vi = T.axis.spatial(64, i * 16 + j)
                A[vi] = T.float32(vi)
        for ax0 in range(16):
            with T.block("A_local"):
                v0 = T.axis.spatial(64, i * 16 + ax0)
                A_local[v0] = A[v0]
        for j in range(16):
            with T.block("B"):
                vi = T.axis.spatial(64, i * 16 + j)
                D[vi] = A_local[vi] + T.float32(1)
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            E[vi] = A_local[vi] * T.float32(2)


def test_cache_read_goes_after_the_producer_inside_the_shared_loop():
    sch = tvm.tir.Schedule(producer_in_loop)
    sch.cache_read(sch.get_block("B"), 0, "local")
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   producer_in_loop_cache_read.with_attr("global_symbol", "x"))
    d, e = _run(sch.mod["main"], np.zeros(64, "float32"), np.zeros(64, "float32"))
    np.testing.assert_allclose(d, np.arange(64) + 1)
    np.testing.assert_allclose(e, np.arange(64) * 2)


# ---- a nested scope block: the cache is compact (the region's extents) ----
@T.prim_func
def tiles(B: T.Buffer((32, 32), "float32")):
    A = T.alloc_buffer((32, 32))
    for i0, j0 in T.grid(2, 2):
        with T.block("scope"):
            i, j = T.axis.remap("SS", [i0, j0])
            for x, y in T.grid(16, 16):
                with T.block("A"):
                    vi = T.axis.spatial(32, i * 16 + x)
                    vj = T.axis.spatial(32, j * 16 + y)
                    A[vi, vj] = T.float32(1)
            for x, y in T.grid(16, 16):
                with T.block("B"):
                    vi = T.axis.spatial(32, i * 16 + x)
                    vj = T.axis.spatial(32, j * 16 + y)
                    B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func
def tiles_cache_write(B: T.Buffer((32, 32), "float32")):
    A = T.alloc_buffer((32, 32))
    for i0, j0 in T.grid(2, 2):
        with T.block("scope"):
            i, j = T.axis.remap("SS", [i0, j0])
            B_local = T.alloc_buffer((16, 16), scope="local")
            for x, y in T.grid(16, 16):
                with T.block("A"):
                    vi = T.axis.spatial(32, i * 16 + x)
                    vj = T.axis.spatial(32, j * 16 + y)
                    A[vi, vj] = T.float32(1)
            for x, y in T.grid(16, 16):
                with T.block("B"):
                    vi = T.axis.spatial(32, i * 16 + x)
                    vj = T.axis.spatial(32, j * 16 + y)
                    B_local[vi - i * 16, vj - j * 16] = A[vi, vj] + T.float32(1)
            for ax0, ax1 in T.grid(16, 16):
                with T.block("B_local"):
                    v0 = T.axis.spatial(16, ax0)
                    v1 = T.axis.spatial(16, ax1)
                    B[i * 16 + v0, j * 16 + v1] = B_local[v0, v1]


def test_cache_write_in_a_nested_scope_is_compact():
    sch = tvm.tir.Schedule(tiles)
    sch.cache_write(sch.get_block("B"), 0, "local")
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   tiles_cache_write.with_attr("global_symbol", "x"))
    (b,) = _run(sch.mod["main"], np.zeros((32, 32), "float32"))
    np.testing.assert_allclose(b, np.full((32, 32), 2.0))


# ---- refusals ----
@T.prim_func
def read_before_write(C: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    A = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[vi]
    for i in range(16):
        with T.block("A"):
            vi = T.axis.spatial(16, i)
            A[vi] = T.float32(1)
    for i in range(16):
        with T.block("D"):
            vi = T.axis.spatial(16, i)
            D[vi] = A[vi]


def test_cache_read_refuses_a_reader_before_the_producer():
    # TVM would rewrite block C to read a copy made only after block A.
    sch = tvm.tir.Schedule(read_before_write)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='block "C" would read the copy of A before it is made'):
        sch.cache_read(sch.get_block("D"), 0, "local")
    assert sch.mod.same_as(before)
    # Naming D alone as the consumer is fine.
    sch.cache_read(sch.get_block("D"), 0, "local", consumer_blocks=[sch.get_block("D")])
    assert "A_local" in sch.mod["main"].script()


# ---- split: the predicate bounds TVM's nested form ----
@T.prim_func
def vec(A: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.block("A"):
            vi = T.axis.spatial(10, i)
            A[vi] = T.float32(1)


@T.prim_func
def vec_split(A: T.Buffer((10,), "float32")):
    for i0, i1, i2 in T.grid(2, 2, 3):
        with T.block("A"):
            vi = T.axis.spatial(10, i0 * 6 + i1 * 3 + i2)
            T.where((i0 * 2 + i1) * 3 + i2 < 10)
            A[vi] = T.float32(1)


def test_split_predicate_is_the_nested_form():
    sch = tvm.tir.Schedule(vec)
    sch.split(sch.get_loops("A")[0], [2, 2, 3])
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   vec_split.with_attr("global_symbol", "x"))
    (a,) = _run(sch.mod["main"], np.zeros(10, "float32"))
    np.testing.assert_allclose(a, np.ones(10))


# ---- fuse: a symbolic fused extent is simplified ----
@T.prim_func
def ragged(A: T.Buffer((8, 4), "float32")):
    for i in range(2):
        for j, k in T.grid(T.min(3, 6 - i * 4) + 1, 4):
            with T.block("A"):
                vi = T.axis.spatial(8, i * 4 + j)
                vj = T.axis.spatial(4, k)
                A[vi, vj] = T.float32(1)


@T.prim_func
def ragged_fused(A: T.Buffer((8, 4), "float32")):
    for i in range(2):
        for j_k_fused in range(T.min(3, 6 - i * 4) * 4 + 4):
            with T.block("A"):
                vi = T.axis.spatial(8, i * 4 + j_k_fused // 4)
                vj = T.axis.spatial(4, j_k_fused % 4)
                A[vi, vj] = T.float32(1)


def test_fuse_symbolic_extent_is_simplified():
    sch = tvm.tir.Schedule(ragged)
    sch.fuse(*sch.get_loops("A")[1:])
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   ragged_fused.with_attr("global_symbol", "x"))


# ---- rfactor ----
@T.prim_func
def rowsum_let(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    for i, ko, ki in T.grid(8, 4, 4):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(16, ko * 4 + ki)
            with T.init():
                B[vi] = T.float32(0)
            v: T.float32 = B[vi] + A[vi, vk]
            B[vi] = v


@T.prim_func
def rowsum_let_rfactor(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    B_rf = T.alloc_buffer((4, 8))
    for i, ko, ki in T.grid(8, 4, 4):
        with T.block("B_rf"):
            vki = T.axis.spatial(4, ki)
            vi = T.axis.spatial(8, i)
            vko = T.axis.reduce(4, ko)
            with T.init():
                B_rf[vki, vi] = T.float32(0)
            B_rf[vki, vi] = B_rf[vki, vi] + A[vi, vko * 4 + vki]
    for i, ki in T.grid(8, 4):
        with T.block("B"):
            vki = T.axis.reduce(4, ki)
            vi = T.axis.spatial(8, i)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + B_rf[vki, vi]


def test_rfactor_reads_through_a_let():
    sch = tvm.tir.Schedule(rowsum_let)
    sch.rfactor(sch.get_loops("B")[2], 0)
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   rowsum_let_rfactor.with_attr("global_symbol", "x"))
    a = np.random.default_rng(0).standard_normal((8, 16)).astype("float32")
    _, b = _run(sch.mod["main"], a, np.zeros(8, "float32"))
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)


@T.prim_func
def rowsum_unit(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    for i, k, u in T.grid(8, 16, 1):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(16, k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def rowsum_unit_rfactor(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    B_rf = T.alloc_buffer((1, 8))
    for i, k, u in T.grid(8, 16, 1):
        with T.block("B_rf"):
            vu = T.axis.spatial(1, u)
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(16, k)
            with T.init():
                B_rf[vu, vi] = T.float32(0)
            B_rf[vu, vi] = B_rf[vu, vi] + A[vi, vk]
    for i, u in T.grid(8, 1):
        with T.block("B"):
            vu = T.axis.reduce(1, u)
            vi = T.axis.spatial(8, i)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + B_rf[vu, vi]


def test_rfactor_over_a_loop_no_iterator_uses_keeps_the_others():
    sch = tvm.tir.Schedule(rowsum_unit)
    sch.rfactor(sch.get_loops("B")[2], 0)
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   rowsum_unit_rfactor.with_attr("global_symbol", "x"))
    a = np.random.default_rng(1).standard_normal((8, 16)).astype("float32")
    _, b = _run(sch.mod["main"], a, np.zeros(8, "float32"))
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)


@T.prim_func
def partial_producer(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16,), "float32")):
    C = T.alloc_buffer((16,))
    for i, k in T.grid(8, 16):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
    for i in range(16):
        with T.block("D"):
            vi = T.axis.spatial(16, i)
            D[vi] = C[vi]


def test_rfactor_refuses_a_scope_that_is_not_a_stage_pipeline():
    sch = tvm.tir.Schedule(partial_producer)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='block "D" reads C beyond what its producers'):
        sch.rfactor(sch.get_loops("C")[1], 0)
    assert sch.mod.same_as(before)


@T.prim_func
def two_reductions(A: T.Buffer((4, 8), "float32"), D: T.Buffer((4,), "float32")):
    C = T.alloc_buffer((4,))
    for i in range(4):
        for ko, ki in T.grid(2, 4):
            with T.block("C"):
                vi = T.axis.spatial(4, i)
                vk = T.axis.reduce(8, ko * 4 + ki)
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]
        for k in range(8):
            with T.block("D"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    D[vi] = T.float32(0)
                D[vi] = D[vi] + A[vi, vk] * C[vi]


@T.prim_func
def two_reductions_rfactor(A: T.Buffer((4, 8), "float32"), D: T.Buffer((4,), "float32")):
    C = T.alloc_buffer((4,))
    C_rf = T.alloc_buffer((4, 4))
    for i, ko, ki in T.grid(4, 2, 4):
        with T.block("C_rf"):
            vki = T.axis.spatial(4, ki)
            vi = T.axis.spatial(4, i)
            vko = T.axis.reduce(2, ko)
            with T.init():
                C_rf[vki, vi] = T.float32(0)
            C_rf[vki, vi] = C_rf[vki, vi] + A[vi, vko * 4 + vki]
    for i in range(4):
        for ki in range(4):
            with T.block("C"):
                vki = T.axis.reduce(4, ki)
                vi = T.axis.spatial(4, i)
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + C_rf[vki, vi]
        for k in range(8):
            with T.block("D"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    D[vi] = T.float32(0)
                D[vi] = D[vi] + A[vi, vk] * C[vi]


def test_rfactor_of_the_first_block_under_a_shared_loop():
    sch = tvm.tir.Schedule(two_reductions)
    sch.rfactor(sch.get_loops("C")[2], 0)
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "x"),
                                   two_reductions_rfactor.with_attr("global_symbol", "x"))
    a = np.random.default_rng(2).standard_normal((4, 8)).astype("float32")
    _, d = _run(sch.mod["main"], a, np.zeros(4, "float32"))
    np.testing.assert_allclose(d, (a * a.sum(axis=1, keepdims=True)).sum(axis=1), rtol=1e-4, atol=1e-4)


def test_rfactor_refuses_a_block_after_another_under_its_outer_loop():
    sch = tvm.tir.Schedule(two_reductions)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='block "D" is not the first block under its outermost loop i'):
        sch.rfactor(sch.get_loops("D")[1], 0)
    assert sch.mod.same_as(before)
