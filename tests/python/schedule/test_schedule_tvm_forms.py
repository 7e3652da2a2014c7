"""The exact forms TVM v0.18's schedule primitives produce (and the errors
they raise), checked against hand-written expected TVMScript modules: the
shapes that TVM's own tir-schedule tests (tests/compat/run_tvm_tests.py)
compare against. Each test names the TVM behaviour it pins down."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T


def _check(sch, expected):
    tvm.ir.assert_structural_equal(sch.mod["main"].with_attr("global_symbol", "main"),
                                   expected.with_attr("global_symbol", "main"))


# ---- compute_at: bindings `min + ax`, one predicate conjunct per unprovable bound ----

@T.prim_func
def shifted_read(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            v = T.axis.spatial(16, i)
            B[v] = A[v] + T.float32(1)
    for j in range(16):
        with T.block("C"):
            v = T.axis.spatial(16, j)
            C[v] = T.if_then_else(v < 15, B[v] + B[v + 1], B[v])


@T.prim_func
def shifted_read_after(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for j in range(16):
        for ax0 in range(2):
            with T.block("B"):
                v = T.axis.spatial(16, j + ax0)
                # only the upper bound is unprovable: no `j + ax0 >= 0` conjunct
                T.where(j + ax0 < 16)
                T.reads(A[v])
                T.writes(B[v])
                B[v] = A[v] + T.float32(1)
        with T.block("C"):
            v = T.axis.spatial(16, j)
            T.reads(B[v:v + 2])
            T.writes(C[v])
            C[v] = T.if_then_else(v < 15, B[v] + B[v + 1], B[v])


def test_compute_at_predicate_has_only_the_unprovable_bound():
    sch = tir.Schedule(shifted_read)
    sch.compute_at(sch.get_block("B"), sch.get_loops("C")[0])
    _check(sch, shifted_read_after)
    a = np.arange(16, dtype="float32")
    c = tvm.nd.empty((16,), "float32")
    tvm.build(sch.mod["main"].with_attr("global_symbol", "main"))["main"](tvm.nd.array(a), c)
    b = a + 1
    np.testing.assert_allclose(c.numpy(), np.where(np.arange(16) < 15, b + np.roll(b, -1), b))


@T.prim_func
def tiled_two_stage(A: T.Buffer((65,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((65,))
    for i in range(65):
        with T.block("B"):
            v = T.axis.spatial(65, i)
            B[v] = A[v] * T.float32(2)
    for io, ii in T.grid(8, 8):
        with T.block("C"):
            v = T.axis.spatial(64, io * 8 + ii)
            C[v] = B[v + 1] + T.float32(1)


@T.prim_func
def tiled_two_stage_after(A: T.Buffer((65,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((65,))
    for io in range(8):
        for ax0 in range(8):
            with T.block("B"):
                # TVM binds `min + ax0` without re-simplifying the sum
                v = T.axis.spatial(65, io * 8 + 1 + ax0)
                T.reads(A[v])
                T.writes(B[v])
                B[v] = A[v] * T.float32(2)
        for ii in range(8):
            with T.block("C"):
                v = T.axis.spatial(64, io * 8 + ii)
                T.reads(B[v + 1])
                T.writes(C[v])
                C[v] = B[v + 1] + T.float32(1)


def test_compute_at_binding_is_min_plus_loop_var():
    sch = tir.Schedule(tiled_two_stage)
    sch.compute_at(sch.get_block("B"), sch.get_loops("C")[0])
    _check(sch, tiled_two_stage_after)


# ---- compute_at / reverse_compute_at errors: TVM's wording -------------------------

@T.prim_func
def three_stages(A: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    C = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            v = T.axis.spatial(16, i)
            B[v] = A[v] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            v = T.axis.spatial(16, i)
            C[v] = A[v] + T.float32(1)
    for i in range(16):
        with T.block("D"):
            v = T.axis.spatial(16, i)
            D[v] = B[v] + C[v]


def test_compute_at_and_reverse_compute_at_errors_use_tvm_wording():
    sch = tir.Schedule(three_stages)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="ancestor of block"):
        sch.compute_at(sch.get_block("B"), sch.get_loops("B")[0])
    with pytest.raises(tvm.tir.ScheduleError, match="output block"):
        sch.compute_at(sch.get_block("D"), sch.get_loops("C")[0])
    # D reads B (produced outside C's loop) and C: all its producers must be under the loop
    with pytest.raises(tvm.tir.ScheduleError, match="requires all the producer"):
        sch.reverse_compute_at(sch.get_block("D"), sch.get_loops("C")[0])
    assert sch.mod.same_as(before)


@T.prim_func
def two_consumers(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), D: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            v = T.axis.spatial(16, i)
            B[v] = A[v] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            v = T.axis.spatial(16, i)
            C[v] = B[v]
    for i in range(16):
        with T.block("D"):
            v = T.axis.spatial(16, i)
            D[v] = B[v]


@T.prim_func
def two_writers(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B0"):
            v = T.axis.spatial(16, i)
            B[v] = A[v]
    for i in range(16):
        with T.block("B1"):
            v = T.axis.spatial(16, i)
            B[v] = B[v] + A[v]
    for i in range(16):
        with T.block("C"):
            v = T.axis.spatial(16, i)
            C[v] = B[v]


def test_compute_at_consumer_and_complete_block_errors():
    sch = tir.Schedule(two_consumers)
    with pytest.raises(tvm.tir.ScheduleError, match="requires all the consumer"):
        sch.compute_at(sch.get_block("B"), sch.get_loops("C")[0])
    sch = tir.Schedule(two_writers)
    with pytest.raises(tvm.tir.ScheduleError, match="not a complete block"):
        sch.compute_at(sch.get_block("B0"), sch.get_loops("C")[0])


# ---- rfactor: the rfactor iterator is the first block iterator of both blocks ----

@T.prim_func
def row_sum(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for i, ko, ki in T.grid(8, 4, 4):
        with T.block("S"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(16, ko * 4 + ki)
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def row_sum_rf(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    S_rf = T.alloc_buffer((4, 8))
    for i, ko, ki in T.grid(8, 4, 4):
        with T.block("S_rf"):
            vki, vi, vko = T.axis.remap("SSR", [ki, i, ko])
            T.reads(A[vi, vko * 4 + vki])
            T.writes(S_rf[vki, vi])
            with T.init():
                S_rf[vki, vi] = T.float32(0)
            S_rf[vki, vi] = S_rf[vki, vi] + A[vi, vko * 4 + vki]
    for i, ki in T.grid(8, 4):
        with T.block("S"):
            vki, vi = T.axis.remap("RS", [ki, i])
            T.reads(S_rf[vki, vi])
            T.writes(S[vi])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + S_rf[vki, vi]


def test_rfactor_puts_the_rfactor_iterator_first():
    sch = tir.Schedule(row_sum)
    sch.rfactor(sch.get_loops("S")[2], 0)
    _check(sch, row_sum_rf)
    a = np.random.default_rng(0).standard_normal((8, 16)).astype("float32")
    s = tvm.nd.empty((8,), "float32")
    tvm.build(sch.mod["main"].with_attr("global_symbol", "main"))["main"](tvm.nd.array(a), s)
    np.testing.assert_allclose(s.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


# ---- reorder: TVM's block checks ----------------------------------------------------

@T.prim_func
def square_index(A: T.Buffer((40, 4), "float32"), B: T.Buffer((40, 4), "float32")):
    for v0, v1, v2 in T.grid(6, 4, 4):
        with T.block("block"):
            i = T.axis.spatial(40, v0 * v0 + v1)
            j = T.axis.spatial(4, v2)
            B[i, j] = A[i, j] + T.float32(1)


@T.prim_func
def square_index_reordered(A: T.Buffer((40, 4), "float32"), B: T.Buffer((40, 4), "float32")):
    for v0, v2, v1 in T.grid(6, 4, 4):
        with T.block("block"):
            i = T.axis.spatial(40, v0 * v0 + v1)
            j = T.axis.spatial(4, v2)
            T.reads(A[i, j])
            T.writes(B[i, j])
            B[i, j] = A[i, j] + T.float32(1)


def test_reorder_needs_affine_bindings_below_the_outermost_reordered_loop():
    sch = tir.Schedule(square_index)
    v0, v1, v2 = sch.get_loops("block")
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="not affine"):
        sch.reorder(v0, v2, v1)  # v0 * v0 is not affine in v0
    assert sch.mod.same_as(before)
    sch.reorder(v2, v1)  # v0 is a constant for the loops v1, v2
    _check(sch, square_index_reordered)


@T.prim_func
def strided_binding(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16, 128), "float32")):
    for i, l in T.grid(16, 8):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            vl = T.axis.spatial(128, l * 16)
            B[vi, vl] = A[vi, vl]


@T.prim_func
def fused_predicate(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            T.where(i * 16 + j < 100)
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]


@T.prim_func
def scan_iter(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.scan(16, j)
            B[vi, vj] = A[vi, vj]


@pytest.mark.parametrize("func, match", [(strided_binding, "not affine"), (fused_predicate, "not affine"),
                                         (scan_iter, "neither data-parallel nor a reduction")])
def test_reorder_refuses_what_tvm_refuses(func, match):
    sch = tir.Schedule(func)
    i, j = sch.get_loops("B")
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.reorder(j, i)


# ---- compute_inline: opaque accesses are refused --------------------------------------

@T.prim_func
def matched_consumer(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            Bb = T.match_buffer(B[vi:vi + 1], (1,))
            C[vi] = Bb[0] + T.float32(1)


@T.prim_func
def pointer_consumer(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            T.reads(B[0:16])
            T.writes(C[vi])
            T.evaluate(B.access_ptr("r", extent=16))
            C[vi] = B[vi] + T.float32(1)


@pytest.mark.parametrize("func, match", [(matched_consumer, "match_buffer"), (pointer_consumer, "opaquely")])
def test_compute_inline_refuses_opaque_access(func, match):
    sch = tir.Schedule(func)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.compute_inline(sch.get_block("B"))
    assert sch.mod.same_as(before)


# ---- cache_read: buffer by name, at most one producer -----------------------------------

@T.prim_func
def two_producers(C: T.Buffer((16,), "float32")):
    A = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("A0"):
            vi = T.axis.spatial(16, i)
            A[vi] = T.float32(1)
    for i in range(16):
        with T.block("A1"):
            vi = T.axis.spatial(16, i)
            A[vi] = T.float32(2)
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = A[vi]


def test_cache_read_refuses_a_buffer_with_two_producers():
    sch = tir.Schedule(two_producers)
    with pytest.raises(tvm.tir.ScheduleError, match="more than one producer"):
        sch.cache_read("C", 0, "local")


def test_cache_read_and_write_take_a_buffer_name():
    by_index, by_name = tir.Schedule(tiled_two_stage), tir.Schedule(tiled_two_stage)
    by_index.cache_read("C", 0, "local")
    by_name.cache_read("C", "B", "local")
    by_index.cache_write("B", 0, "shared")
    by_name.cache_write("B", "B", "shared")
    tvm.ir.assert_structural_equal(by_index.mod, by_name.mod)
    with pytest.raises(tvm.tir.ScheduleError, match="no buffer named Z"):
        by_name.cache_read("C", "Z", "local")


# ---- state view and remove_rv --------------------------------------------------------

def test_state_view_and_remove_rv():
    sch = tir.Schedule(tiled_two_stage)
    block = sch.get_block("B")
    assert sch.state.mod.same_as(sch.mod)
    assert sch.state.get_sref(sch.get(block)).same_as(sch.get_sref(block))
    loop = sch.get_loops(block)[0]
    sch.remove_rv(block)
    with pytest.raises(IndexError):
        sch.get(block)
    with pytest.raises(IndexError):
        sch.remove_rv(block)
    assert sch.get(loop).loop_var.name == "i"  # other handles are untouched
    assert "remove_rv" not in str(sch.trace)


# ---- reverse_compute_inline through affine loads ----------------------------------------

@T.prim_func
def affine_consumer(A: T.Buffer((64, 8), "float32"), B: T.Buffer((4, 16), "float32"),
                    D: T.Buffer((1, 4, 16, 8), "float32")):
    C = T.alloc_buffer((64, 8))
    for i, j in T.grid(64, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] * T.float32(2)
    for u, i, j, k in T.grid(1, 4, 16, 8):
        with T.block("D"):
            vu, vi, vj, vk = T.axis.remap("SSSS", [u, i, j, k])
            D[vu, vi, vj, vk] = C[vi * 16 + vj, vk] + B[vi, vj]


@T.prim_func
def affine_consumer_inlined(A: T.Buffer((64, 8), "float32"), B: T.Buffer((4, 16), "float32"),
                            D: T.Buffer((1, 4, 16, 8), "float32")):
    for i, j in T.grid(64, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], B[vi // 16, vi % 16])
            T.writes(D[0, vi // 16, vi % 16, vj])
            D[0, vi // 16, vi % 16, vj] = A[vi, vj] * T.float32(2) + B[vi // 16, vi % 16]


def test_reverse_compute_inline_inverts_an_affine_load():
    sch = tir.Schedule(affine_consumer)
    sch.reverse_compute_inline(sch.get_block("D"))
    _check(sch, affine_consumer_inlined)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((64, 8)).astype("float32"), rng.standard_normal((4, 16)).astype("float32")
    d = tvm.nd.empty((1, 4, 16, 8), "float32")
    tvm.build(sch.mod["main"].with_attr("global_symbol", "main"))["main"](tvm.nd.array(a), tvm.nd.array(b), d)
    expected = (a * 2).reshape(4, 16, 8) + b[:, :, None]
    np.testing.assert_allclose(d.numpy()[0], expected, rtol=1e-6)


@T.prim_func
def overlapping_consumer(A: T.Buffer((64,), "float32"), D: T.Buffer((4, 32), "float32")):
    C = T.alloc_buffer((64,))
    for i in range(64):
        with T.block("C"):
            vi = T.axis.spatial(64, i)
            C[vi] = A[vi]
    for i, j in T.grid(4, 32):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi * 16 + vj]


def test_reverse_compute_inline_refuses_a_non_invertible_load():
    sch = tir.Schedule(overlapping_consumer)
    with pytest.raises(tvm.tir.ScheduleError, match="not an invertible affine map"):
        sch.reverse_compute_inline(sch.get_block("D"))


# ---- blockize: an outer iterator of extent 1 drops out of the inner binding -------------

@T.prim_func
def scale2d(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    for i, j in T.grid(8, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


@T.prim_func
def scale2d_blockized(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
    for i in range(8):
        with T.block("B_o"):
            vi_o = T.axis.spatial(8, i)
            vj_o = T.axis.spatial(1, 0)
            T.reads(A[vi_o, 0:16])
            T.writes(B[vi_o, 0:16])
            for j in range(16):
                with T.block("B"):
                    vj_i = T.axis.spatial(16, j)
                    T.reads(A[vi_o, vj_i])
                    T.writes(B[vi_o, vj_i])
                    B[vi_o, vj_i] = A[vi_o, vj_i] * T.float32(2)


def test_blockize_unit_outer_iterator_is_not_in_the_inner_binding():
    sch = tir.Schedule(scale2d)
    sch.blockize(sch.get_loops("B")[1])
    _check(sch, scale2d_blockized)
    with pytest.raises(NotImplementedError, match="list of blocks"):
        sch.blockize([sch.get_block("B")])


# ---- rfactor: TVM's reduction-block checks --------------------------------------------

@T.prim_func
def sum_init_one(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(1)
            S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def sum_written_by_reduction_var(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8, 16), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi, vk] = T.float32(0)
            S[vi, vk] = S[vi, vk] + A[vi, vk]


@T.prim_func
def sum_parallel_reduction(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for i in range(8):
        for k in T.parallel(16):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def sum_square_binding(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 4):
        with T.block("S"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(16, k * k)
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def sum_mixed_loop(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for f, k in T.grid(32, 4):
        with T.block("S"):
            vi = T.axis.spatial(8, f // 4)
            vk = T.axis.reduce(16, f % 4 * 4 + k)
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def matmul_swapped_update(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vj, vi] = C[vj, vi] + A[vi, vk]


@pytest.mark.parametrize("func, match", [
    (sum_init_one, "identity"), (sum_written_by_reduction_var, "not a reduction block"),
    (sum_parallel_reduction, "must be serial"), (sum_square_binding, "quasi-affine"),
    (sum_mixed_loop, "both spatial and reduction"), (matmul_swapped_update, "different locations")])
def test_rfactor_refuses_what_tvm_refuses(func, match):
    sch = tir.Schedule(func)
    block = sch.get_block("C" if func is matmul_swapped_update else "S")
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match=match):
        sch.rfactor(sch.get_loops(block)[-1], 0)
    assert sch.mod.same_as(before)


@T.prim_func
def annotated_sum(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.block_attr({"note": 1})
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]


@T.prim_func
def annotated_sum_rf(A: T.Buffer((8, 16), "float32"), S: T.Buffer((8,), "float32")):
    S_rf = T.alloc_buffer((16, 8))
    for i, k in T.grid(8, 16):
        with T.block("S_rf"):
            vk, vi = T.axis.remap("SS", [k, i])
            T.reads(A[vi, vk])
            T.writes(S_rf[vk, vi])
            T.block_attr({"note": 1})
            S_rf[vk, vi] = A[vi, vk]  # no reduction iterator left: a plain store, no init
    for i, k in T.grid(8, 16):
        with T.block("S"):
            vk, vi = T.axis.remap("RS", [k, i])
            T.reads(S_rf[vk, vi])
            T.writes(S[vi])
            T.block_attr({"note": 1})
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + S_rf[vk, vi]


def test_rfactor_keeps_annotations_and_spatial_only_rf_block_is_a_store():
    sch = tir.Schedule(annotated_sum)
    sch.rfactor(sch.get_loops("S")[1], 0)
    _check(sch, annotated_sum_rf)
    a = np.random.default_rng(2).standard_normal((8, 16)).astype("float32")
    s = tvm.nd.empty((8,), "float32")
    tvm.build(sch.mod["main"].with_attr("global_symbol", "main"))["main"](tvm.nd.array(a), s)
    np.testing.assert_allclose(s.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


# ---- compute_at of a block writing reversed / tiled indices ------------------------------

@T.prim_func
def reversed_write(X: T.Buffer((10, 10), "float32"), Z: T.Buffer((10, 10), "float32")):
    Y = T.alloc_buffer((10, 10))
    for i, j in T.grid(10, 10):
        with T.block("b0"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[9 - vi, 9 - vj] = X[vi, vj] + T.float32(1)
    for i, j in T.grid(10, 10):
        with T.block("b1"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vj, vi] + T.float32(2)


@T.prim_func
def reversed_write_after(X: T.Buffer((10, 10), "float32"), Z: T.Buffer((10, 10), "float32")):
    Y = T.alloc_buffer((10, 10))
    for i in range(10):
        for ax0 in range(10):
            with T.block("b0"):
                vi = T.axis.spatial(10, ax0)
                vj = T.axis.spatial(10, 9 - i)
                T.reads(X[vi, vj])
                T.writes(Y[9 - vi, 9 - vj])
                Y[9 - vi, 9 - vj] = X[vi, vj] + T.float32(1)
        for j in range(10):
            with T.block("b1"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vj, vi])
                T.writes(Z[vi, vj])
                Z[vi, vj] = Y[vj, vi] + T.float32(2)


def test_compute_at_solves_a_reversed_index():
    sch = tir.Schedule(reversed_write)
    sch.compute_at(sch.get_block("b0"), sch.get_loops("b1")[0])
    _check(sch, reversed_write_after)
    x = np.random.default_rng(4).standard_normal((10, 10)).astype("float32")
    z = tvm.nd.empty((10, 10), "float32")
    tvm.build(sch.mod["main"].with_attr("global_symbol", "main"))["main"](tvm.nd.array(x), z)
    np.testing.assert_allclose(z.numpy(), (x + 1)[::-1, ::-1].T + 2, rtol=1e-6)


@T.prim_func
def tile_writer(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for io in range(8):
        with T.block("B_o"):
            vo = T.axis.spatial(8, io)
            T.reads(A[vo * 8:vo * 8 + 8])
            T.writes(B[vo * 8:vo * 8 + 8])
            for ii in range(8):
                with T.block("B"):
                    vi = T.axis.spatial(64, vo * 8 + ii)
                    B[vi] = A[vi] * T.float32(2)
    for o, i in T.grid(4, 16):
        with T.block("C"):
            v = T.axis.spatial(64, o * 16 + i)
            C[v] = B[v] + T.float32(1)


@T.prim_func
def tile_writer_after(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    B = T.alloc_buffer((64,))
    for o in range(4):
        for ax0 in range(2):
            with T.block("B_o"):
                vo = T.axis.spatial(8, o * 2 + ax0)
                T.reads(A[vo * 8:vo * 8 + 8])
                T.writes(B[vo * 8:vo * 8 + 8])
                for ii in range(8):
                    with T.block("B"):
                        vi = T.axis.spatial(64, vo * 8 + ii)
                        T.reads(A[vi])
                        T.writes(B[vi])
                        B[vi] = A[vi] * T.float32(2)
        for i in range(16):
            with T.block("C"):
                v = T.axis.spatial(64, o * 16 + i)
                T.reads(B[v])
                T.writes(C[v])
                C[v] = B[v] + T.float32(1)


def test_compute_at_solves_a_tiled_write():
    sch = tir.Schedule(tile_writer)
    sch.compute_at(sch.get_block("B_o"), sch.get_loops("C")[0])
    _check(sch, tile_writer_after)


# ---- storage_align replaces; set_scope reaches matched sub-buffers ------------------------

def test_storage_align_of_the_same_axis_replaces_the_first():
    sch = tir.Schedule(tiled_two_stage)
    sch.storage_align(sch.get_block("B"), 0, axis=0, factor=16, offset=0)
    sch.storage_align(sch.get_block("B"), 0, axis=0, factor=16, offset=15)
    ann = sch.get(sch.get_block("B")).annotations["buffer_dim_align"]
    assert [[int(x) for x in e] for e in ann] == [[0, 0, 16, 15]]


@T.prim_func
def matched_region(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            Bs = T.match_buffer(B[vi, vj], ())
            C[vi, vj] = Bs[()] + T.float32(1)


@T.prim_func
def matched_region_shared(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8), scope="shared")
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            Bs = T.match_buffer(B[vi, vj], (), scope="shared")
            C[vi, vj] = Bs[()] + T.float32(1)


def test_set_scope_changes_the_scope_of_matched_buffers():
    sch = tir.Schedule(matched_region)
    sch.set_scope(sch.get_block("B"), 0, "shared")
    _check(sch, matched_region_shared)
