"""compute_at / reverse_compute_at regions as TVM computes them: a region
clipped to the buffer when that is provably smaller, and floordiv/floormod
bounds simplified ((x * 8 + 7) // 16 == x // 2) so tiles over a repeat are
one element wide; checked against hand-written modules, NumPy, and the
simplifier against plain integer arithmetic."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T


def _eval(expr, x, y=None):
    env = {"x": x, "y": y}

    def visit(e):
        if isinstance(e, tir.IntImm):
            return e.value
        if isinstance(e, tir.Var):
            return env[e.name]
        if isinstance(e, tir.Add):
            return visit(e.a) + visit(e.b)
        if isinstance(e, tir.Sub):
            return visit(e.a) - visit(e.b)
        if isinstance(e, tir.Mul):
            return visit(e.a) * visit(e.b)
        if isinstance(e, tir.FloorDiv):
            return visit(e.a) // visit(e.b)
        if isinstance(e, tir.FloorMod):
            return visit(e.a) % visit(e.b)
        raise TypeError(type(e).__name__)

    return visit(expr)


def test_floordiv_floormod_of_scaled_sums():
    ana = tvm.arith.Analyzer()
    x, y = tir.Var("x", "int32"), tir.Var("y", "int32")
    assert str(ana.simplify((x * 8 + 7) // 16)) == "x // 2"
    assert str(ana.simplify((x * 8 + 7) // 16 + 1 - x // 2)) == "1"
    assert str(ana.simplify((x * 8 + 7) % 16)) == "x % 2 * 8 + 7"
    cases = [(x * 8 + 7) // 16, (x * 8 + 7) % 16, (x * 8 + 9) // 16, (x * 8 + 9) % 16, (x * 6 + 5) // 12,
             (x * 12 + 3) % 8, (x * 4 - 1) // 8]
    for e in cases:
        s = ana.simplify(e)
        for v in range(-40, 41):
            assert _eval(s, v) == _eval(e, v), (e, s, v)
    ana.bind(y, tvm.ir.Range(0, 8))
    assert str(ana.simplify(tir.floordiv(x * 8 + y, 16))) == "x // 2"
    assert str(ana.simplify(tir.floormod(x * 8 + y, 16))) == "x % 2 * 8 + y"
    for e in [tir.floordiv(x * 8 + y, 16), tir.floormod(x * 8 + y, 16), tir.floordiv(x * 8 + y + 1, 16)]:
        s = ana.simplify(e)
        for v in range(-20, 21):
            for w in range(8):
                assert _eval(s, v, w) == _eval(e, v, w), (e, s, v, w)


@T.prim_func
def _repeat(x: T.Buffer((4,), "float32"), out: T.Buffer((64,), "float32")):
    t = T.alloc_buffer((4,))
    for i in range(4):
        with T.block("add"):
            v = T.axis.remap("S", [i])
            t[v] = x[v] + T.float32(1)
    for i in range(64):
        with T.block("repeat"):
            v = T.axis.remap("S", [i])
            out[v] = t[v // 16]


@T.prim_func
def _repeat_after(x: T.Buffer((4,), "float32"), out: T.Buffer((64,), "float32")):
    t = T.alloc_buffer((4,))
    for i_0 in range(8):
        with T.block("add"):
            v = T.axis.spatial(4, i_0 // 2)
            t[v] = x[v] + T.float32(1)
        for i_1 in range(8):
            with T.block("repeat"):
                v = T.axis.spatial(64, i_0 * 8 + i_1)
                out[v] = t[v // 16]


def test_compute_at_tile_of_a_repeat_is_one_element():
    sch = tir.Schedule(_repeat)
    i_0, _ = sch.split(sch.get_loops(sch.get_block("repeat"))[0], factors=[8, 8])
    sch.compute_at(sch.get_block("add"), i_0)
    tvm.ir.assert_structural_equal(sch.mod["main"].body, _repeat_after.body, map_free_vars=True)
    f = tvm.build(sch.mod)
    x = np.arange(4, dtype="float32")
    out = tvm.nd.array(np.zeros(64, "float32"))
    f(tvm.nd.array(x), out)
    np.testing.assert_array_equal(out.numpy(), np.repeat(x + 1, 16))


@T.prim_func
def _column(A: T.Buffer((16, 1), "float32"), C: T.Buffer((16, 1), "float32")):
    B = T.alloc_buffer((16, 1))
    for i, j in T.grid(16, 1):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(1, j)
            T.where(j < 1)
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func
def _column_after(A: T.Buffer((16, 1), "float32"), C: T.Buffer((16, 1), "float32")):
    B = T.alloc_buffer((16, 1))
    for i in range(16):
        for ax0, ax1 in T.grid(1, 1):
            with T.block("B"):
                vi = T.axis.spatial(16, i + ax0)
                vj = T.axis.spatial(1, ax1)
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for j in range(8):
            with T.block("C"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(1, j)
                T.where(j < 1)
                C[vi, vj] = B[vi, vj] + T.float32(1)


def test_compute_at_region_clipped_to_the_buffer():
    # j in [0, 8) reads B[vi, 0:8] unclipped; the buffer has one column, so one column is computed
    sch = tir.Schedule(_column)
    i, _ = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), i, preserve_unit_loops=True)
    tvm.ir.assert_structural_equal(sch.mod["main"].body, _column_after.body, map_free_vars=True)
    f = tvm.build(sch.mod)
    a = np.random.default_rng(0).random((16, 1), dtype="float32")
    c = tvm.nd.array(np.zeros((16, 1), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1)


@T.prim_func
def _shifted(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("B"):
            v = T.axis.remap("S", [i])
            B[v] = A[v] + T.float32(1)
    for j in range(16):
        with T.block("C"):
            v = T.axis.remap("S", [j])
            C[v] = T.if_then_else(v < 15, B[v] + B[v + 1], B[v])


def test_compute_at_symbolic_clip_not_taken():
    # [j, j + 1] clipped to the buffer is not provably smaller: 2 iterations and a predicate, as TVM
    sch = tir.Schedule(_shifted)
    sch.compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("C"))[0])
    loop = sch.get(sch.get_loops(sch.get_block("B"))[-1])
    assert int(loop.extent) == 2
    f = tvm.build(sch.mod)
    a = np.arange(16, dtype="float32")
    c = tvm.nd.array(np.zeros(16, "float32"))
    f(tvm.nd.array(a), c)
    b = a + 1
    np.testing.assert_allclose(c.numpy(), np.where(np.arange(16) < 15, b + np.append(b[1:], b[15]), b))


def test_coefficients_reduced_modulo_the_divisor():
    ana = tvm.arith.Analyzer()
    x = tir.Var("x", "int32")
    ana.bind(x, tvm.ir.Range(0, 2))
    assert str(ana.simplify((x * 360) // 16)) == "x * 22"
    assert str(ana.simplify((x * 360 + 359) // 16 + 1 - (x * 360) // 16)) == "23"
    assert str(ana.simplify((x * 360 + 359) % 16)) == "x * 8 + 7"
    for e in [(x * 360) // 16, (x * 360 + 359) // 16, (x * 360 + 359) % 16, (x * 37 - 5) // 16, (x * 37 - 5) % 16]:
        s = ana.simplify(e)
        for v in range(2):
            assert _eval(s, v) == _eval(e, v), (e, s, v)
    free = tvm.arith.Analyzer()  # unbounded x: x * 8 // 16 cannot be resolved, nothing is split
    assert str(free.simplify((x * 17) // 16)) == "x * 17 // 16"


@T.prim_func
def _channel_groups(X: T.Buffer((720,), "float32"), Y: T.Buffer((720,), "float32")):
    B = T.alloc_buffer((45,))
    for i in range(45):
        with T.block("init"):
            vi = T.axis.remap("S", [i])
            B[vi] = T.Cast("float32", vi)
    for c_o, c_i in T.grid(2, 360):
        with T.block("compute"):
            cc = T.axis.spatial(720, c_o * 360 + c_i)
            Y[cc] = X[cc] + B[cc // 16]


@T.prim_func
def _channel_groups_after(X: T.Buffer((720,), "float32"), Y: T.Buffer((720,), "float32")):
    B = T.alloc_buffer((45,))
    for c_o in range(2):
        for ax0 in range(23):
            with T.block("init"):
                vi = T.axis.spatial(45, c_o * 22 + ax0)
                B[vi] = T.Cast("float32", vi)
        for c_i in range(360):
            with T.block("compute"):
                cc = T.axis.spatial(720, c_o * 360 + c_i)
                Y[cc] = X[cc] + B[cc // 16]


def test_compute_at_channel_groups_not_dividing_the_tile():
    # 360 channels per tile, 16 per group: tile 1 needs groups 22..44 (group 22 straddles both tiles)
    sch = tir.Schedule(_channel_groups)
    sch.compute_at(sch.get_block("init"), sch.get_loops(sch.get_block("compute"))[0])
    tvm.ir.assert_structural_equal(sch.mod["main"].body, _channel_groups_after.body, map_free_vars=True)
    f = tvm.build(sch.mod)
    x = np.arange(720, dtype="float32")
    y = tvm.nd.array(np.zeros(720, "float32"))
    f(tvm.nd.array(x), y)
    np.testing.assert_array_equal(y.numpy(), x + np.arange(720) // 16)


@T.prim_func
def _unflatten(X: T.Buffer((8, 16), "float32"), Y: T.Buffer((128,), "float32")):
    t = T.alloc_buffer((8, 16))
    for i, j in T.grid(8, 16):
        with T.block("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            t[vi, vj] = X[vi, vj] * T.float32(3)
    for i in range(128):
        with T.block("B"):
            v = T.axis.remap("S", [i])
            Y[v] = t[v // 16, v % 16]


@T.prim_func
def _unflatten_after(X: T.Buffer((8, 16), "float32"), Y: T.Buffer((128,), "float32")):
    t = T.alloc_buffer((8, 16))
    for i in range(8):
        for j in range(16):
            with T.block("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                t[vi, vj] = X[vi, vj] * T.float32(3)
        for ax0 in range(16):
            with T.block("B"):
                v = T.axis.spatial(128, i * 16 + ax0)
                Y[v] = t[v // 16, v % 16]


def test_reverse_compute_at_solves_floordiv_floormod_indices():
    sch = tir.Schedule(_unflatten)
    sch.reverse_compute_at(sch.get_block("B"), sch.get_loops(sch.get_block("A"))[0])
    tvm.ir.assert_structural_equal(sch.mod["main"].body, _unflatten_after.body, map_free_vars=True)
    f = tvm.build(sch.mod)
    x = np.random.default_rng(1).random((8, 16), dtype="float32")
    y = tvm.nd.array(np.zeros(128, "float32"))
    f(tvm.nd.array(x), y)
    np.testing.assert_allclose(y.numpy(), (x * 3).reshape(-1))


@T.prim_func
def _regroup(A: T.Buffer((3, 16), "float32"), C: T.Buffer((6, 8), "float32")):
    B = T.alloc_buffer((3, 16))
    for i, j in T.grid(3, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(6, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[(vi * 8 + vj) // 16, (vi * 8 + vj) % 16]


def test_reverse_compute_at_splits_a_fused_index_back():
    # row i of B feeds rows 2i and 2i + 1 of C (a fused index vi * 8 + vj, split by 16)
    sch = tir.Schedule(_regroup)
    sch.reverse_compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("B"))[0])
    loops = [sch.get(l) for l in sch.get_loops(sch.get_block("C"))]
    assert [int(l.extent) for l in loops] == [3, 2, 8]  # no predicate needed
    realize = sch.mod["main"].body.block.body.body.seq[1].body.body
    assert realize.block.name_hint == "C" and bool(realize.predicate)
    tvm.ir.assert_structural_equal(list(realize.iter_values),
                                   [loops[0].loop_var * 2 + loops[1].loop_var, loops[2].loop_var])
    f = tvm.build(sch.mod)
    a = np.random.default_rng(2).random((3, 16), dtype="float32")
    c = tvm.nd.array(np.zeros((6, 8), "float32"))
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), (a + 1).reshape(6, 8))


def test_reverse_compute_at_refuses_unsolvable_ranges():
    @T.prim_func
    def windows(A: T.Buffer((16,), "float32"), C: T.Buffer((8,), "float32")):
        B = T.alloc_buffer((16,))
        for i in range(16):
            with T.block("B"):
                v = T.axis.remap("S", [i])
                B[v] = A[v]
        for i in range(8):
            with T.block("C"):
                v = T.axis.remap("S", [i])
                C[v] = B[v * v // 4]

    sch = tir.Schedule(windows)
    before = sch.mod
    with pytest.raises(tir.ScheduleError, match="quasi-affine point access"):
        sch.reverse_compute_at(sch.get_block("C"), sch.get_loops(sch.get_block("B"))[0])
    tvm.ir.assert_structural_equal(sch.mod, before)


def test_split_factors_multiplying_to_the_extent_need_no_predicate():
    @T.prim_func
    def rows(x: T.handle, y: T.handle, n: T.int64):
        X = T.match_buffer(x, (n * 32,), "float32")
        Y = T.match_buffer(y, (n * 32,), "float32")
        for k in range(n * 32):
            with T.block("Y"):
                vk = T.axis.remap("S", [k])
                Y[vk] = X[vk]

    sch = tir.Schedule(rows)
    ko, ki = sch.split(sch.get_loops(sch.get_block("Y"))[0], [None, 32])
    assert str(sch.get(ko).extent) == "n"  # (n * 32 + 31) // 32 simplified, as TVM
    assert bool(sch.get(sch.get_block("Y")) is not None)
    realize = sch.mod["main"].body.block.body.body.body
    assert isinstance(realize.predicate, tir.IntImm) and bool(realize.predicate)
    # a symbolic extent the factors may not cover keeps its predicate
    sch2 = tir.Schedule(rows)
    sch2.split(sch2.get_loops(sch2.get_block("Y"))[0], [None, 48])
    assert not isinstance(sch2.mod["main"].body.block.body.body.body.predicate, tir.IntImm)
