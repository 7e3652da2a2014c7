"""Regression tests for schedule primitive bugs found by the random schedule
test (test_schedule_random.py), each checked against NumPy or an error text."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T
from tir_build_helpers import buf, loops, func, block


def row_sum(n=8, m=12):
    A, S = buf("A", (n, m)), buf("S", (n,))
    body = loops([n, m], lambda i, k: block(
        "S", [("vi", n, "S"), ("vk", m, "R")], [i, k],
        lambda vi, vk: tir.BufferStore(S, S[vi] + A[vi, vk], [vi]),
        init=lambda vi, vk: tir.BufferStore(S, tir.const(0.0, "float32"), [vi])))
    return func([A, S], body)


def test_rfactor_twice_refuses_a_second_block_of_the_same_name():
    # rfactor names its block "<block>_rf"; factoring the write-back block again
    # used to add a second "S_rf", after which every primitive naming either
    # block failed with "several blocks are named S_rf".
    sch = tvm.tir.Schedule(row_sum())
    _, k = sch.get_loops("S")
    rf = sch.rfactor(k, 0)
    _, vk = sch.get_loops("S")  # the write-back block's reduction over the rf axis
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='a block named "S_rf" already exists'):
        sch.rfactor(vk, 0)
    assert sch.mod.same_as(before)
    sch.parallel(sch.get_loops(rf)[0])  # the first rf block is still reachable
    a = np.random.default_rng(3).standard_normal((8, 12)).astype("float32")
    lib = tvm.build(sch.mod)
    out = tvm.nd.empty((8,), "float32")
    lib["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_rfactor_gives_each_block_its_own_iteration_variables():
    # rfactor used to put the original block's spatial iteration variables
    # into both the rf block and the write-back block: one Var defined at two
    # places, which a printout cannot express (it names two variables).
    f = row_sum()
    sch = tvm.tir.Schedule(f)
    original = {iv.var for iv in sch.get(sch.get_block("S")).iter_vars}
    _, k = sch.get_loops("S")
    rf = sch.rfactor(k, 0)
    rf_vars = [iv.var for iv in sch.get(rf).iter_vars]
    wb_vars = [iv.var for iv in sch.get(sch.get_block("S")).iter_vars]
    defined = rf_vars + wb_vars
    assert not any(a.same_as(b) for i, a in enumerate(defined) for b in defined[i + 1:])
    assert not any(v.same_as(o) for v in defined for o in original)
    # Each block's body uses only its own variables (and the printout parses back to the same IR).
    for block, own in [(sch.get(rf), rf_vars), (sch.get(sch.get_block("S")), wb_vars)]:
        used = []
        tvm.tir.stmt_functor.post_order_visit(block.body, lambda n: used.append(n) if isinstance(n, tvm.tir.Var) else None)
        assert used and all(any(u.same_as(o) for o in own) for u in used), block.name_hint
    mod = sch.mod
    tvm.ir.assert_structural_equal(tvm.script.from_source(mod.script()), mod)


def test_fuse_of_a_unit_loop_leaves_no_constant_arithmetic_in_bindings():
    # split(preserve_unit_iters=True) keeps a unit loop j_0 bound as `j_0 * 6 + ...`;
    # fusing it replaces j_0 by 0 and used to leave `0 * 6` in the binding, which
    # printed as T.Mul(0, 6) and could not be parsed back (random case 462).
    from tessera.script import tir as T

    @T.prim_func
    def expected(A: T.Buffer((10, 6), "float32"), B: T.Buffer((10, 6), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i_j_0_fused in range(10):
            for j_1, j_2 in T.grid(3, 2):
                with T.block("B"):
                    vi = T.axis.spatial(10, i_j_0_fused)
                    vj = T.axis.spatial(6, j_1 * 2 + j_2)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2)

    A, B = buf("A", (10, 6)), buf("B", (10, 6))
    f = func([A, B], loops([10, 6], lambda i, j: block("B", [("vi", 10, "S"), ("vj", 6, "S")], [i, j],
                                                        lambda vi, vj: tir.BufferStore(B, A[vi, vj] * 2.0, [vi, vj]))))
    sch = tvm.tir.Schedule(f)
    i, j = sch.get_loops("B")
    _, j1, j2 = sch.split(j, factors=[None, 3, 2], preserve_unit_iters=True)
    sch.fuse(i, sch.get_loops("B")[1], preserve_unit_iters=True)
    tvm.ir.assert_structural_equal(sch.mod["main"], expected)
    assert "T.Mul" not in sch.mod.script()
    a = np.random.default_rng(5).standard_normal((10, 6)).astype("float32")
    out = tvm.nd.empty((10, 6), "float32")
    tvm.build(sch.mod)["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a * 2, rtol=1e-6)


def test_compute_inline_at_a_constant_index_leaves_no_constant_arithmetic():
    # Inlining a producer read at the constant row 0 substitutes 0 for vi in
    # its indices; `0 * 6` used to stay (printed T.Mul(0, 6), unparsable).
    from tessera.script import tir as T

    @T.prim_func
    def before(A: T.Buffer((6, 12), "float32"), C: T.Buffer((6,), "float32")):
        T.func_attr({"global_symbol": "main"})
        B = T.alloc_buffer((4, 6))
        for i, j in T.grid(4, 6):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi * 6 + vj - vi * 6, vi * 3] * T.float32(2)
        for j in range(6):
            with T.block("C"):
                vj = T.axis.spatial(6, j)
                C[vj] = B[0, vj] + T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((6, 12), "float32"), C: T.Buffer((6,), "float32")):
        T.func_attr({"global_symbol": "main"})
        for j in range(6):
            with T.block("C"):
                vj = T.axis.spatial(6, j)
                T.reads(A[vj, 0])
                T.writes(C[vj])
                C[vj] = A[vj, 0] * T.float32(2) + T.float32(1)

    sch = tvm.tir.Schedule(before)
    sch.compute_inline(sch.get_block("B"))
    tvm.ir.assert_structural_equal(sch.mod["main"], expected)
    a = np.random.default_rng(9).standard_normal((6, 12)).astype("float32")
    out = tvm.nd.empty((6,), "float32")
    tvm.build(sch.mod)["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a[:, 0] * 2 + 1, rtol=1e-6)


@T.prim_func
def _matmul_for_reverse_compute_at(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 6), "float32"),
                                   C: T.Buffer((8, 6), "float32")):
    for i, j, k in T.grid(8, 6, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_reverse_compute_at_refuses_to_move_a_block_before_another_of_its_producers():
    # Found by the random schedule test: B's copy computed inside C's nest,
    # then C moved under A's copy loop, ran before B's copy.
    sch = tvm.tir.Schedule(_matmul_for_reverse_compute_at)
    c = sch.get_block("C")
    a_copy = sch.cache_read(c, 0, "global")
    b_copy = sch.cache_read(c, 1, "global")
    sch.compute_at(b_copy, sch.get_loops(c)[1])
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="runs after loop|all the producer blocks"):
        sch.reverse_compute_at(c, sch.get_loops(a_copy)[0])
    assert sch.mod.same_as(before)


@T.prim_func
def _scale_padded_then_copied(A: T.Buffer((6,), "float32"), B: T.Buffer((6,), "float32")):
    B_pad = T.alloc_buffer((8,), "float32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B_pad[vi] = A[T.min(vi, 5)] * T.float32(2)
    for i in range(6):
        with T.block("B_pad"):
            vi = T.axis.remap("S", [i])
            B[vi] = B_pad[vi]


def test_reverse_compute_inline_into_a_producer_computing_more_is_predicated():
    # Found by the random schedule test after pad_einsum: inlining the
    # copy-back into the padded producer made it store out of B's range.
    # As TVM, the producer now gets a predicate (vi < 6) instead.
    sch = tvm.tir.Schedule(_scale_padded_then_copied)
    sch.reverse_compute_inline(sch.get_block("B_pad"))
    assert "i < 6" in sch.mod.script()
    f = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.rand(6).astype("float32")
    b = tvm.nd.array(np.zeros(6, "float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2, rtol=1e-6)


@T.prim_func
def _elementwise_12(A: T.Buffer((12, 4), "float32"), B: T.Buffer((12, 4), "float32")):
    for i, j in T.grid(12, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_cache_write_refuses_a_block_in_a_nested_scope():
    # Found by the random schedule test after loop_partition: the write-back
    # of the whole buffer inside one partition overwrote the others' results.
    sch = tvm.tir.Schedule(_elementwise_12)
    sch.loop_partition(sch.get_loops("B")[0], [5, None])
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="larger write region"):
        sch.cache_write(sch.get_block("B_i0"), 0, "local")
    assert sch.mod.same_as(before)


@T.prim_func
def _two_writers(A: T.Buffer((8, 4), "float32"), C: T.Buffer((8, 4), "float32")):
    B = T.alloc_buffer((8, 4), "float32")
    for i, j in T.grid(4, 4):
        with T.block("B0"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(4, 4):
        with T.block("B1"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi + 4, vj] = A[vi + 4, vj]
    for i, j in T.grid(8, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj]


def test_storage_align_refuses_a_buffer_with_several_writers():
    # Found by the random schedule test after loop_partition: the alignment
    # recorded on one writer laid the buffer out differently for the other.
    sch = tvm.tir.Schedule(_two_writers)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="single writer"):
        sch.storage_align(sch.get_block("B1"), 0, 0, 8, 2)
    assert sch.mod.same_as(before)


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


def _run_pad_then_row_sum(mod):
    a = np.random.default_rng(5).standard_normal((8, 6)).astype("float32")
    lib = tvm.build(mod, target="llvm -bound-check")
    out = tvm.nd.empty((10,), "float32")
    lib["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), np.pad(a, ((1, 1), (2, 1)), constant_values=0.5).sum(axis=1),
                               rtol=1e-5, atol=1e-5)


def test_transform_layout_with_pad_value_keeps_a_second_writer_under_the_same_loop():
    # Random case 34: after decompose_padding at the inner loop, loop i holds
    # two writers of P (the constant fill over j in [0, 9) and the interior
    # copy over j in [0, 6)). transform_layout with pad_value rewrote the
    # fill's nest from loop i down over the padded shape and dropped the copy:
    # C summed only the constant. The nest rewrite now requires a perfect
    # nest; otherwise the padding is written by a block after the writers.
    sch = tvm.tir.Schedule(_pad_then_row_sum.with_attr("global_symbol", "main"))
    sch.decompose_padding("P", sch.get_loops("P")[1])
    sch.transform_layout("P", ("write", 0), lambda i, j: (i, j // 7, j % 7), pad_value=0.0)
    names = set()
    tir.stmt_functor.post_order_visit(sch.mod["main"].body,
                                      lambda n: names.add(n.name_hint) if isinstance(n, tir.Block) else None)
    assert {"P", "P_pad_const", "buffer_P_padding"} <= names
    _run_pad_then_row_sum(sch.mod)


@pytest.mark.parametrize("inner", [False, True])
def test_compute_at_sees_writers_inside_loop_partition_blocks(inner):
    # Random case 762: loop_partition wraps the partitioned copies of block P
    # in opaque blocks that declare no reads/writes (as TVM's do); compute_at
    # trusted those empty regions, took P_pad_const for the only writer of P
    # and moved it under C's loop, after the copy: the fill overwrote it.
    sch = tvm.tir.Schedule(_pad_then_row_sum.with_attr("global_symbol", "main"))
    sch.decompose_padding("P", sch.get_loops("P")[0])
    sch.loop_partition(sch.get_loops("P")[1 if inner else 0], [3, None])
    _run_pad_then_row_sum(sch.mod)
    for loop in sch.get_loops("C"):
        before = sch.mod
        with pytest.raises(tvm.tir.ScheduleError, match="P_i_common|P_j_common|not a complete block"):
            sch.compute_at("P_pad_const", loop)
        assert sch.mod.same_as(before)
    _run_pad_then_row_sum(sch.mod)


@T.prim_func
def _matmul_16x12x8(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"),
                    C: T.Buffer((16, 12), "float32")):
    for i, j, k in T.grid(16, 12, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_decompose_reduction_refuses_a_reduction_carried_above_an_enclosing_block():
    # Random case 1114: with the reduction loop outermost (transform_block_layout)
    # and the innermost loop partitioned, each partition's block sits under
    # loop_partition's opaque blocks, below the reduction loop k. Its own loop
    # chain (stopping at the enclosing block) holds no reduction loop, so
    # decompose_reduction put the init inside loop k: C was reset at every k.
    sch = tvm.tir.Schedule(_matmul_16x12x8.with_attr("global_symbol", "main"))
    sch.transform_block_layout("C", lambda i, j, k: (k, j, i))
    _, _, i = sch.get_loops("C")
    sch.loop_partition(i, [None, 7])
    block = sch.get_block("C_ax21")
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='carries the reduction of block "C_ax21"'):
        sch.decompose_reduction(block, sch.get_loops(block)[0])
    assert sch.mod.same_as(before)
    a = np.random.default_rng(7).standard_normal((16, 8)).astype("float32")
    b = np.random.default_rng(8).standard_normal((8, 12)).astype("float32")
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    out = tvm.nd.empty((16, 12), "float32")
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), out)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("inner", [False, True])
@pytest.mark.parametrize("writer", ["P_pad_const", "P"])
def test_reindex_cache_write_refuses_a_buffer_with_another_writer(inner, writer):
    # Random cases 2253, 11356, 11934: after decompose_padding two blocks
    # write P; reindex_cache_write of one placed the copy back after both,
    # overwriting the other's elements (the fill's zeros replaced the data).
    sch = tvm.tir.Schedule(_pad_then_row_sum.with_attr("global_symbol", "main"))
    sch.decompose_padding("P", sch.get_loops("P")[1 if inner else 0])
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="also writes buffer P"):
        sch.reindex_cache_write(writer, 0, "global", lambda i, j: (j, i))
    assert sch.mod.same_as(before)
    _run_pad_then_row_sum(sch.mod)


def _elementwise_12x20():
    A, B = buf("A", (12, 20)), buf("B", (12, 20))
    body = loops([12, 20], lambda i, j: block("B", [("vi", 12, "S"), ("vj", 20, "S")], [i, j],
                                              lambda vi, vj: tir.BufferStore(B, A[vi, vj] * 2.0 + 1.0, [vi, vj])))
    return func([A, B], body)


@pytest.mark.parametrize("split", [False, True])
def test_reverse_compute_inline_keeps_the_consumers_predicate_and_coverage(split):
    # Random case 1036: pad_einsum pads B to 16x24 (its loops run over 16x24,
    # or, bound to split loops, over the original 12 rows); once the copy-out
    # is inlined, B carries the predicate i < 12 and j < 20. Inlining B into
    # the padding block A_pad (16x24) dropped that predicate and the rows the
    # split loops never reach: A_pad wrote B out of bounds. The predicate now
    # moves into the producer; a consumer whose loops do not cover its
    # domain is refused.
    sch = tvm.tir.Schedule(_elementwise_12x20())
    if split:
        sch.split(sch.get_loops("B")[0], [4, 3])
    sch.pad_einsum("B", [8, 8])
    sch.reverse_compute_inline("B_pad")
    if split:
        before = sch.mod
        with pytest.raises(tvm.tir.ScheduleError, match="do not cover its iteration domain"):
            sch.reverse_compute_inline("B")
        assert sch.mod.same_as(before)
    else:
        sch.reverse_compute_inline("B")
        assert "A_pad" in [b.name_hint for b in [sch.get(sch.get_block("A_pad"))]]
    a = np.random.default_rng(11).standard_normal((12, 20)).astype("float32")
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    out = tvm.nd.empty((12, 20), "float32")
    lib["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a * 2 + 1, rtol=1e-5, atol=1e-5)


def test_rfactor_refuses_a_reduction_carried_above_an_enclosing_block():
    # Random case 13441: k split into k_0 * 4 + k_1 and k_1 partitioned; the
    # first partition's block sits under loop_partition's opaque blocks, below
    # k_0. rfactor over k_10 put the write-back's init inside loop k_0: C was
    # reset at every k_0 (only the last chunk of the sum remained).
    sch = tvm.tir.Schedule(_matmul_16x12x8.with_attr("global_symbol", "main"))
    _, _, k = sch.get_loops("C")
    _, k1 = sch.split(k, [2, 4])
    sch.loop_partition(k1, [1])
    block = sch.get_block("C_k_10")
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='carries the reduction of block "C_k_10"'):
        sch.rfactor(sch.get_loops(block)[0], -1)
    assert sch.mod.same_as(before)
    a = np.random.default_rng(7).standard_normal((16, 8)).astype("float32")
    b = np.random.default_rng(8).standard_normal((8, 12)).astype("float32")
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    out = tvm.nd.empty((16, 12), "float32")
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), out)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_reverse_compute_at_refuses_a_consumer_iterating_beyond_what_it_reads():
    # Random case 13523: the padding inlined into the row sum, C reads A
    # (through a cache) only where T.if_then_else selects it and adds 0.5
    # elsewhere. reverse_compute_at under the cache's loop ran C only for the
    # rows and columns it reads from A: rows 0 and 9 and the padding terms
    # were lost.
    sch = tvm.tir.Schedule(_pad_then_row_sum.with_attr("global_symbol", "main"))
    sch.compute_inline("P")
    cache = sch.cache_read("C", 0, "global")
    for loop in sch.get_loops(cache):
        before = sch.mod
        with pytest.raises(tvm.tir.ScheduleError, match="would run only where it reads"):
            sch.reverse_compute_at("C", loop)
        assert sch.mod.same_as(before)
    _run_pad_then_row_sum(sch.mod)


@T.prim_func
def _symbolic_row_sum(a: T.handle, c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 12), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for i, k in T.grid(n, 12):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]


@pytest.mark.parametrize("n", [1, 8, 10, 11])
def test_cache_write_after_a_symbolic_split_copies_back_only_the_rows_written(n):
    # Found by the random schedule test (case 6906): after splitting the rows
    # of a symbolic row sum by [None, 2, 2], cache_write's region ignored the
    # predicate `i < n` and copied back ceildiv(n, 4) * 4 rows, out of C's
    # range. As TVM, the region is bounded under the block predicate.
    sch = tvm.tir.Schedule(_symbolic_row_sum)
    sch.split(sch.get_loops("C")[0], [None, 2, 2])
    sch.cache_write(sch.get_block("C"), 0, "local")
    f = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(n).standard_normal((n, 12)).astype("float32")
    c = tvm.nd.empty((n,), "float32")
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


@T.prim_func
def _scale_then_add_one(A: T.Buffer((10, 6), "float32"), C: T.Buffer((10, 6), "float32")):
    B = T.alloc_buffer((10, 6), "float32")
    for i, j in T.grid(10, 6):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i, j in T.grid(10, 6):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@pytest.mark.parametrize("align", [False, True])
def test_cache_write_under_a_predicated_compute_at_stays_in_the_buffer(align):
    # Found by the random schedule test (case 9186): B computed at the outer
    # of C's rows split by [None, 3, 2] (6 rows a tile over 10), then cached:
    # the write-back copied 6 rows in the last tile too, rows 10 and 11 of B.
    # Lowering compacted B and hid it until storage_align kept B's full
    # padded layout. As TVM, the copy runs over min(10 - i_0 * 6, 6) rows.
    sch = tvm.tir.Schedule(_scale_then_add_one)
    i0, _, _ = sch.split(sch.get_loops("C")[0], [None, 3, 2])
    sch.compute_at(sch.get_block("B"), i0)
    copy = sch.cache_write(sch.get_block("B"), 0, "global")
    if align:
        sch.storage_align(copy, 0, 1, 8, 5)
    rows = sch.get(sch.get_loops(copy)[1]).extent
    ana = tvm.arith.Analyzer()
    for v in range(2):
        got = ana.simplify(tvm.tir.stmt_functor.substitute(rows, {sch.get(i0).loop_var: tvm.tir.const(v, "int32")}))
        assert got.value == min(10 - 6 * v, 6)
    f = tvm.build(sch.mod, target="llvm -bound-check")
    a = np.random.default_rng(9186).standard_normal((10, 6)).astype("float32")
    c = tvm.nd.empty((10, 6), "float32")
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 3 + 1, rtol=1e-5, atol=1e-5)


def test_cache_read_copy_runs_only_where_its_writer_writes():
    """Random schedule case 106: the producer B and its consumer C share a
    loop split non-divisibly (2 channels as 1 x 4 under a predicate); the
    copy stage of cache_read, placed under those loops, copies the region B
    writes in that iteration, so it takes B's predicate on the outer loops
    (it copied channels 2 and 3, out of bounds)."""
    from .test_schedule_random import window_chain  # pylint: disable=import-outside-toplevel

    f, _, _, ref = window_chain()
    sch = tvm.tir.Schedule(f)
    sch.split(sch.get_loops(sch.get_block("C"))[0], [None, 4])
    sch.cache_read(sch.get_block("C"), 0, "local")
    a = np.random.default_rng(1).standard_normal((2, 20)).astype("float32")
    c = tvm.nd.empty((2, 16), "float32")
    tvm.build(sch.mod, target="llvm -bound-check")["main"](tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), ref(a)[0], rtol=1e-5, atol=1e-5)
    assert "c_0 * 4 + c_1 < 2" in sch.mod.script().split('T.block("B_local")')[1].split("T.reads")[0]


@T.prim_func
def _scale_then_row_sum_8x12(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8,), "float32")):
    B = T.alloc_buffer((8, 12), "float32")
    for i, j in T.grid(8, 12):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, k in T.grid(8, 12):
        with T.block("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + B[vi, vk]


def _run_scale_then_row_sum(mod):
    a = np.random.default_rng(27023).standard_normal((8, 12)).astype("float32")
    lib = tvm.build(mod, target="llvm -bound-check")
    out = tvm.nd.empty((8,), "float32")
    lib["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), (a * 2).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("inner, at", [((7, 1), 1), ((2, 3), 1), ((7, 1), 0), ((5, 1), 1)])
def test_reverse_compute_at_bounds_the_producer_region_under_its_predicate(inner, at):
    # Random schedule case 27023: B's j split into 3 x 4, its 4 split again
    # into 7 x 1 (`T.where(j_1_0 + j_1_1 < 4)`); reverse_compute_at of the
    # reduction C at j_1_0 took B's region there without the predicate, so C
    # also ran for j_1_0 in 4..6 and summed B[:, 4..11] twice, before B wrote
    # it. The predicate bounds the region (a mixed clause, 2 x 3) or, over
    # the loops at or above the target only, guards the moved block.
    sch = tvm.tir.Schedule(_scale_then_row_sum_8x12.with_attr("global_symbol", "main"))
    _, j = sch.get_loops("B")
    _, j1 = sch.split(j, [3, 4])
    loops = sch.split(j1, list(inner))
    sch.reverse_compute_at(sch.get_block("C"), [sch.get_loops("B")[1], loops[0]][at])
    _run_scale_then_row_sum(sch.mod)


def test_reverse_compute_at_keeps_the_plain_region_where_the_predicate_cuts_only_past_the_end():
    # A split's tail cut off past the buffer's end leaves TVM's region: a
    # constant loop of 5 and the bound predicate, not a symbolic extent.
    sch = tvm.tir.Schedule(_scale_then_row_sum_8x12.with_attr("global_symbol", "main"))
    _, j = sch.get_loops("B")
    j0, _ = sch.split(j, [None, 5])
    sch.reverse_compute_at(sch.get_block("C"), j0)

    @T.prim_func
    def expected(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main"})
        B = T.alloc_buffer((8, 12), "float32")
        for i, j_0 in T.grid(8, 3):
            for j_1 in range(5):
                with T.block("B"):
                    vi = T.axis.spatial(8, i)
                    vj = T.axis.spatial(12, j_0 * 5 + j_1)
                    T.where(j_0 * 5 + j_1 < 12)
                    B[vi, vj] = A[vi, vj] * T.float32(2)
            for ax0 in range(5):
                with T.block("C"):
                    vi = T.axis.spatial(8, i)
                    vk = T.axis.reduce(12, j_0 * 5 + ax0)
                    T.where(j_0 * 5 + ax0 < 12)
                    with T.init():
                        C[vi] = T.float32(0)
                    C[vi] = C[vi] + B[vi, vk]

    tvm.ir.assert_structural_equal(sch.mod["main"], expected)
    _run_scale_then_row_sum(sch.mod)


@pytest.mark.parametrize("inner", [(7, 1), (2, 3)])
def test_compute_at_under_a_predicated_consumer_computes_what_it_reads(inner):
    # The mirror of case 27023: compute_at of B at the predicated consumer's
    # inner loop (a larger region than needed is recomputed, never missed).
    sch = tvm.tir.Schedule(_scale_then_row_sum_8x12.with_attr("global_symbol", "main"))
    _, k = sch.get_loops("C")
    _, k1 = sch.split(k, [3, 4])
    k10, _ = sch.split(k1, list(inner))
    sch.compute_at(sch.get_block("B"), k10)
    _run_scale_then_row_sum(sch.mod)


def test_reverse_compute_at_refuses_producers_guarded_differently():
    # Two producers of B under the loop, each writing only on some of its
    # iterations: the union of their regions has no single guard.
    @T.prim_func
    def two_producers(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main"})
        B = T.alloc_buffer((8, 12), "float32")
        for i, j_0, j_1 in T.grid(8, 2, 7):
            with T.block("B0"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(6, j_0 * 3 + j_1)
                T.where(j_1 < 3)
                B[vi, vj] = A[vi, vj] * T.float32(2)
            with T.block("B1"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(6, j_0 * 3 + j_1 - 3)
                T.where(3 <= j_1 and j_1 < 6)
                B[vi, vj + 6] = A[vi, vj + 6] * T.float32(2)
        for i, k in T.grid(8, 12):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + B[vi, vk]

    sch = tvm.tir.Schedule(two_producers)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="guarded by different predicates"):
        sch.reverse_compute_at(sch.get_block("C"), sch.get_loops("B0")[2])
    assert sch.mod.same_as(before)


def test_loop_partition_gives_each_copy_its_own_allocated_buffer():
    # Random schedule case 28601: loop_partition, rfactor (its "C_rf" is
    # allocated in the partition's opaque block), loop_partition of the loop
    # above: both copies allocated the one buffer C_rf, which print -> parse
    # turns into two buffers (the printer fixed-point check failed). Each
    # copy now allocates a buffer of its own, as it has its own variables.
    sch = tvm.tir.Schedule(_pad_then_row_sum.with_attr("global_symbol", "main"))
    _, j = sch.get_loops("C")
    sch.loop_partition(j, [4, None])
    sch.rfactor(sch.get_loops("C_j0")[-1], 0)
    i = sch.get_loops("C_j_common")[0]
    sch.loop_partition(i, [3, None])
    mod = sch.mod
    allocs = []
    tir.stmt_functor.post_order_visit(
        mod["main"].body, lambda n: allocs.extend(b for b in getattr(n, "alloc_buffers", []) if b.name == "C_rf"))
    assert len(allocs) == 2 and not allocs[0].same_as(allocs[1])
    assert not allocs[0].data.same_as(allocs[1].data)
    tvm.ir.assert_structural_equal(tvm.script.from_source(mod.script()), mod)
    _run_pad_then_row_sum(mod)


@T.prim_func
def _matmul_fused_rows(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 12), "float32"),
                       C: T.Buffer((16, 12), "float32")):
    T.func_attr({"global_symbol": "main"})
    B_local = T.alloc_buffer((8, 12), scope="local")
    C_global = T.alloc_buffer((192,))
    for ax0, ax1 in T.grid(8, 12):
        with T.block("B_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B_local[v0, v1] = B[v0, v1]
    for ax0, ax1 in T.grid(192, 8):
        with T.block("C"):
            v0, v1 = T.axis.remap("SR", [ax0, ax1])
            with T.init():
                C_global[v0] = T.float32(0)
            C_global[v0] = C_global[v0] + A[v0 // 12, v1] * B_local[v1, v0 % 12]
    for ax0 in range(192):
        with T.block("C_global"):
            v0 = T.axis.spatial(192, ax0)
            C[v0 // 12, v0 % 12] = C_global[v0]


def test_reverse_compute_at_refuses_a_floormod_read_that_is_not_a_range():
    # Random schedule case 27676: at B_local's inner loop ax1 the consumer
    # reads B_local[v1, v0 % 12] with v0 % 12 == ax1: v0 in {ax1, ax1 + 12,
    # ...}, not a range; the moved block ran over v0 in [ax1, ax1 + 180] and
    # summed most products several times. Refused there; at ax0 (the whole
    # row produced, v0 % 12 unconstrained) it is a range and still moves.
    sch = tvm.tir.Schedule(_matmul_fused_rows)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="not a range"):
        sch.reverse_compute_at(sch.get_block("C"), sch.get_loops("B_local")[1])
    assert sch.mod.same_as(before)
    sch.reverse_compute_at(sch.get_block("C"), sch.get_loops("B_local")[0])
    rng = np.random.default_rng(27676)
    a = rng.standard_normal((16, 8)).astype("float32")
    b = rng.standard_normal((8, 12)).astype("float32")
    lib = tvm.build(sch.mod, target="llvm -bound-check")
    out = tvm.nd.empty((16, 12), "float32")
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), out)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_reorder_refuses_to_move_a_loop_fused_over_spatial_and_reduction_iterators():
    # Random schedule case 28569: B and C's loops fused and split 12 x 8, so
    # both loops carry vi (spatial) and vk (reduction) of C; reorder put the
    # 8 outside: C's init (at vk == 0) then ran after updates of the same row
    # and dropped them. Refused; the schedule stays as it was.
    sch = tvm.tir.Schedule(_scale_then_row_sum_8x12.with_attr("global_symbol", "main"))
    sch.reverse_compute_at(sch.get_block("C"), sch.get_loops("B")[1])
    fused = sch.fuse(*sch.get_loops("B"))
    outer, inner = sch.split(fused, [12, 8])
    _run_scale_then_row_sum(sch.mod)  # still the right sums before the reorder
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="both a spatial and a reduction iterator"):
        sch.reorder(inner, outer)
    assert sch.mod.same_as(before)
    _run_scale_then_row_sum(sch.mod)


def test_reorder_of_pure_spatial_and_reduction_loops_is_still_allowed():
    sch = tvm.tir.Schedule(_scale_then_row_sum_8x12.with_attr("global_symbol", "main"))
    i, k = sch.get_loops("C")
    k0, k1 = sch.split(k, [3, 4])
    sch.reorder(k1, i, k0)
    _run_scale_then_row_sum(sch.mod)
