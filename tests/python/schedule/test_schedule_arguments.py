"""Optional arguments of tvm.tir.Schedule and Trace are honoured or refused:
each test would fail if its argument were accepted and ignored (expected
TVMScript modules compared structurally, replayed traces, error texts)."""
import pytest

import tessera as tvm
from tessera.script import tir as T

# pylint: disable=invalid-name,no-self-argument


@T.prim_func
def ten(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        with T.block("B"):
            vi = T.axis.spatial(10, i)
            B[vi] = A[vi] * 2.0


@T.prim_func
def ten_split_predicated(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i_0, i_1 in T.grid(3, 4):
        with T.block("B"):
            vi = T.axis.spatial(10, i_0 * 4 + i_1)
            T.where(i_0 * 4 + i_1 < 10)
            B[vi] = A[vi] * 2.0


@T.prim_func
def ten_split_unpredicated(A: T.Buffer((10,), "float32"), B: T.Buffer((10,), "float32")):
    for i_0, i_1 in T.grid(3, 4):
        with T.block("B"):
            vi = T.axis.spatial(10, i_0 * 4 + i_1)
            B[vi] = A[vi] * 2.0


@T.prim_func
def unit_rows(A: T.Buffer((1, 20), "float32"), B: T.Buffer((1, 20), "float32")):
    for i, j in T.grid(1, 20):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 2.0


@T.prim_func
def unit_rows_fused_preserved(A: T.Buffer((1, 20), "float32"), B: T.Buffer((1, 20), "float32")):
    for i_j_fused in range(20):
        with T.block("B"):
            vi = T.axis.spatial(1, i_j_fused // 20)
            vj = T.axis.spatial(20, i_j_fused % 20)
            B[vi, vj] = A[vi, vj] * 2.0


@T.prim_func
def unit_rows_fused_dropped(A: T.Buffer((1, 20), "float32"), B: T.Buffer((1, 20), "float32")):
    for i_j_fused in range(20):
        with T.block("B"):
            vi = T.axis.spatial(1, 0)
            vj = T.axis.spatial(20, i_j_fused % 20)
            B[vi, vj] = A[vi, vj] * 2.0


@T.prim_func
def unit_rows_blockized_preserved(A: T.Buffer((1, 20), "float32"), B: T.Buffer((1, 20), "float32")):
    for i, j_0 in T.grid(1, 5):
        with T.block("B_o"):
            vi_o = T.axis.spatial(1, i)
            vj_o = T.axis.spatial(5, j_0)
            T.reads(A[vi_o, vj_o * 4:vj_o * 4 + 4])
            T.writes(B[vi_o, vj_o * 4:vj_o * 4 + 4])
            for j_1 in range(4):
                with T.block("B"):
                    vj_i = T.axis.spatial(4, j_1)
                    B[vi_o, vj_o * 4 + vj_i] = A[vi_o, vj_o * 4 + vj_i] * 2.0


@T.prim_func
def unit_rows_blockized_dropped(A: T.Buffer((1, 20), "float32"), B: T.Buffer((1, 20), "float32")):
    for i, j_0 in T.grid(1, 5):
        with T.block("B_o"):
            vi_o = T.axis.spatial(1, 0)
            vj_o = T.axis.spatial(5, j_0)
            T.reads(A[vi_o, vj_o * 4:vj_o * 4 + 4])
            T.writes(B[vi_o, vj_o * 4:vj_o * 4 + 4])
            for j_1 in range(4):
                with T.block("B"):
                    vj_i = T.axis.spatial(4, j_1)
                    B[vi_o, vj_o * 4 + vj_i] = A[vi_o, vj_o * 4 + vj_i] * 2.0


def assert_main_equal(sch, expected, name):
    tvm.ir.assert_structural_equal(sch.mod["main"], expected.with_attr("global_symbol", name))


def replayed(sch, func):
    """A fresh schedule of ``func`` with ``sch``'s trace applied, through JSON."""
    other = tvm.tir.Schedule(func)
    trace = tvm.tir.schedule.Trace.from_json(sch.trace.as_json())
    trace.apply_to_schedule(other, remove_postproc=False)
    return other


# ---- split(disable_predication) -----------------------------------------------------------------
@pytest.mark.parametrize("disable, expected", [(False, ten_split_predicated), (True, ten_split_unpredicated)])
def test_split_disable_predication_omits_the_predicate(disable, expected):
    sch = tvm.tir.Schedule(ten)
    (i,) = sch.get_loops("B")
    sch.split(i, factors=[None, 4], disable_predication=disable)
    assert_main_equal(sch, expected, "ten")
    assert_main_equal(replayed(sch, ten), expected, "ten")  # the trace keeps the argument


# ---- fuse(preserve_unit_iters) ---------------------------------------------------------------------
@pytest.mark.parametrize("preserve, expected", [(True, unit_rows_fused_preserved), (False, unit_rows_fused_dropped)])
def test_fuse_preserve_unit_iters(preserve, expected):
    sch = tvm.tir.Schedule(unit_rows)
    i, j = sch.get_loops("B")
    sch.fuse(i, j, preserve_unit_iters=preserve)
    assert_main_equal(sch, expected, "unit_rows")
    assert_main_equal(replayed(sch, unit_rows), expected, "unit_rows")


# ---- blockize(preserve_unit_iters) -----------------------------------------------------------------
@pytest.mark.parametrize("preserve, expected",
                         [(True, unit_rows_blockized_preserved), (False, unit_rows_blockized_dropped)])
def test_blockize_preserve_unit_iters(preserve, expected):
    sch = tvm.tir.Schedule(unit_rows)
    _, j = sch.get_loops("B")
    _, j1 = sch.split(j, factors=[None, 4])
    sch.blockize(j1, preserve_unit_iters=preserve)
    assert_main_equal(sch, expected, "unit_rows")
    assert_main_equal(replayed(sch, unit_rows), expected, "unit_rows")


# ---- Schedule(debug_mask, error_render_level, enable_check) ---------------------------------------
@pytest.mark.parametrize("mask", ["all", "none", 0, 1, 3, -1])
def test_schedule_accepts_tvm_debug_masks(mask):
    sch = tvm.tir.Schedule(ten, debug_mask=mask)
    sch.split(sch.get_loops("B")[0], factors=[None, 5])


@pytest.mark.parametrize("mask", ["everything", 4, 2.0, True, None])
def test_schedule_refuses_unknown_debug_masks(mask):
    with pytest.raises(ValueError, match="debug_mask"):
        tvm.tir.Schedule(ten, debug_mask=mask)


@pytest.mark.parametrize("kwargs, error, text", [
    ({"error_render_level": "fast"}, NotImplementedError, "error_render_level='fast'"),
    ({"error_render_level": "none"}, NotImplementedError, "error_render_level='none'"),
    ({"error_render_level": "verbose"}, ValueError, "error_render_level"),
    ({"enable_check": False}, NotImplementedError, "enable_check=False"),
])
def test_schedule_refuses_what_it_cannot_do(kwargs, error, text):
    with pytest.raises(error, match=text):
        tvm.tir.Schedule(ten, **kwargs)


# ---- Trace.apply_to_schedule(decision_provider), show -----------------------------------------------
def test_apply_to_schedule_uses_the_decision_provider():
    sch = tvm.tir.Schedule(ten, seed=1)
    (i,) = sch.get_loops("B")
    factors = sch.sample_perfect_tile(i, n=2, decision=[5, 2])
    sch.split(i, factors=factors)
    seen = []

    def provider(inst, inputs, attrs, decision):
        seen.append((inst.kind.name, [int(x) for x in decision]))
        return [2, 5]

    other = tvm.tir.Schedule(ten)
    sch.trace.apply_to_schedule(other, remove_postproc=True, decision_provider=provider)
    assert seen == [("SamplePerfectTile", [5, 2])]
    (o, _) = other.get_loops("B")
    assert int(other.get(o).extent) == 2  # the provider's decision, not the recorded one
    (o, _) = sch.get_loops("B")
    assert int(sch.get(o).extent) == 5


def test_trace_show_refuses_styles(capsys):
    sch = tvm.tir.Schedule(ten)
    sch.get_block("B")
    sch.trace.show()
    assert 'sch.get_block(name="B"' in capsys.readouterr().out
    with pytest.raises(NotImplementedError, match="style"):
        sch.trace.show(style="light")
    with pytest.raises(NotImplementedError, match="black_format"):
        sch.trace.show(black_format=True)


# ---- tensorize(preserve_unit_iters): passed to the blockize of a loop ------------------------------
@T.prim_func
def double4_desc(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (1, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (1, 4), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0, 0:4])
        T.writes(B[0, 0:4])
        for k in range(4):
            with T.block("B"):
                vk = T.axis.spatial(4, k)
                B[0, vk] = A[0, vk] * 2.0


@T.prim_func
def double4_impl(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (1, 4), "float32", offset_factor=1)
    B = T.match_buffer(b, (1, 4), "float32", offset_factor=1)
    with T.block("root"):
        T.reads(A[0, 0:4])
        T.writes(B[0, 0:4])
        for k in range(4):
            B[0, k] = A[0, k] + A[0, k]


def outer_binding_of_rows(sch):
    """The value bound to the row iterator of block "B_o"."""
    found = []
    tvm.tir.stmt_functor.post_order_visit(
        sch.mod["main"].body,
        lambda n: found.append(n.iter_values[0])
        if isinstance(n, tvm.tir.BlockRealize) and n.block.name_hint == "B_o" else None)
    (value,) = found
    return value


@pytest.mark.parametrize("preserve", [True, False])
def test_tensorize_preserve_unit_iters(preserve):
    tvm.tir.TensorIntrin.register("test_arguments_double4", double4_desc, double4_impl, override=True)
    sch = tvm.tir.Schedule(unit_rows)
    i, j = sch.get_loops("B")
    _, j1 = sch.split(j, factors=[None, 4])
    sch.tensorize(j1, "test_arguments_double4", preserve_unit_iters=preserve)
    for s in (sch, replayed(sch, unit_rows)):
        value = outer_binding_of_rows(s)
        if preserve:
            assert value.same_as(s.get(s.get_loops("B_o")[0]).loop_var)
        else:
            assert isinstance(value, tvm.tir.IntImm) and int(value) == 0


def test_debug_mask_all_verifies_the_cached_index_after_each_primitive():
    # With debug_mask="all" every commit rebuilds the index from scratch and
    # compares; a schedule of several primitives must give the same module as
    # the unchecked schedule (and raise nothing).
    results = []
    for mask in ("all", "none", 2):
        sch = tvm.tir.Schedule(ten, debug_mask=mask)
        (i,) = sch.get_loops("B")
        i0, i1 = sch.split(i, factors=[None, 4])
        sch.reorder(i1, i0)
        sch.fuse(i1, i0)
        results.append(sch.mod)
    tvm.ir.assert_structural_equal(results[0], results[1])
    tvm.ir.assert_structural_equal(results[0], results[2])
