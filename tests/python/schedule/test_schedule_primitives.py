"""Schedule primitives checked against hand-computed loop structures and
NumPy results: loop transformations, block movement, inlining, caching,
reductions, sampling and traces; every failure is a ScheduleError that
leaves the module untouched."""
import json

import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func, block


def matmul(n=32, m=24, k=16):
    A, B, C = buf("A", (n, k)), buf("B", (k, m)), buf("C", (n, m))
    body = loops([n, m, k], lambda i, j, kk: block(
        "C", [("vi", n, "S"), ("vj", m, "S"), ("vk", k, "R")], [i, j, kk],
        lambda vi, vj, vk: tir.BufferStore(C, C[vi, vj] + A[vi, vk] * B[vk, vj], [vi, vj]),
        init=lambda vi, vj, vk: tir.BufferStore(C, tir.const(0.0, "float32"), [vi, vj])))
    return func([A, B, C], body)


def two_stage(n=16):
    A, B, C = buf("A", (n, n)), buf("B", (n, n)), buf("C", (n, n))
    s1 = loops([n, n], lambda i, j: block("B", [("vi", n, "S"), ("vj", n, "S")], [i, j],
                                          lambda vi, vj: tir.BufferStore(B, A[vi, vj] * 2.0, [vi, vj])))
    s2 = loops([n, n], lambda i, j: block("C", [("vi", n, "S"), ("vj", n, "S")], [i, j],
                                          lambda vi, vj: tir.BufferStore(C, B[vi, vj] + 1.0, [vi, vj])))
    return func([A, C], tir.stmt_seq(s1, s2), allocs=[B])


def extents(sch, lps):
    return [int(sch.get(l).extent) for l in lps]


def run(mod, *arrays, out_shape):
    lib = tvm.build(mod)
    out = tvm.nd.empty(out_shape, "float32")
    lib["main"](*[tvm.nd.array(a) for a in arrays], out)
    return out.numpy()


@pytest.fixture
def mm_data():
    rng = np.random.default_rng(0)
    return rng.random((32, 16)).astype("float32"), rng.random((16, 24)).astype("float32")


def test_split_fuse_reorder_shapes_and_numbers(mm_data):
    sch = tvm.tir.Schedule(matmul())
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    i0, i1 = sch.split(i, factors=[None, 8])
    assert extents(sch, [i0, i1]) == [4, 8]
    f = sch.fuse(i1, j)
    assert extents(sch, [f]) == [8 * 24]
    assert sch.get(f).loop_var.name_hint == "i_1_j_fused"
    sch.reorder(k, f)
    assert extents(sch, sch.get_loops(b)) == [4, 16, 192]
    a, bb = mm_data
    np.testing.assert_allclose(run(sch.mod, a, bb, out_shape=(32, 24)), a @ bb, rtol=1e-5)


def test_non_dividing_split_adds_a_predicate(mm_data):
    sch = tvm.tir.Schedule(matmul())
    _, j, _ = sch.get_loops(sch.get_block("C"))
    sch.split(j, factors=[5, 5])  # 25 >= 24
    realize = sch.get(sch.get_block("C"))
    assert realize.name_hint == "C"
    a, bb = mm_data
    np.testing.assert_allclose(run(sch.mod, a, bb, out_shape=(32, 24)), a @ bb, rtol=1e-5)


@pytest.mark.parametrize("apply", [
    lambda s, i, j, k: s.split(j, factors=[3, 5]),          # product too small
    lambda s, i, j, k: s.split(j, factors=[None, None]),    # two Nones
    lambda s, i, j, k: s.parallel(k),                        # reduction loop
    lambda s, i, j, k: s.vectorize(k),
    lambda s, i, j, k: s.bind(i, "threadIdx.w"),             # unknown thread axis
    lambda s, i, j, k: s.fuse(i, k),                         # not directly nested
    lambda s, i, j, k: s.get_block("nope"),
    lambda s, i, j, k: [s.decompose_reduction(s.get_block("C"), i),
                        s.decompose_reduction(s.get_block("C_update"), s.get_loops(s.get_block("C_update"))[0])],
])
def test_failing_primitives_raise_and_leave_the_module(apply):
    sch = tvm.tir.Schedule(matmul())
    i, j, k = sch.get_loops(sch.get_block("C"))
    before = sch.mod
    n_insts = len(sch.trace.insts)
    with pytest.raises(tvm.tir.ScheduleError) as err:
        apply(sch, i, j, k)
    assert isinstance(err.value, tvm.TVMError) and isinstance(err.value, ValueError)
    if "decompose" not in str(err.value):
        assert sch.mod.same_as(before)
        assert len(sch.trace.insts) == n_insts


def test_error_messages_name_the_culprit():
    sch = tvm.tir.Schedule(matmul())
    i, j, k = sch.get_loops(sch.get_block("C"))
    with pytest.raises(tvm.tir.ScheduleError, match=r"cannot parallelize loop k\b.*reduction of block \"C\""):
        sch.parallel(k)
    with pytest.raises(tvm.tir.ScheduleError, match=r"less than the extent of loop j"):
        sch.split(j, factors=[2, 2])
    with pytest.raises(tvm.tir.ScheduleError, match=r"no block named|cannot find a block named \"D\""):
        sch.get_block("D")


def test_compute_at_and_reverse_compute_at(mm_data):
    rng = np.random.default_rng(1)
    a = rng.random((16, 16)).astype("float32")
    sch = tvm.tir.Schedule(two_stage())
    c_loops = sch.get_loops(sch.get_block("C"))
    sch.compute_at(sch.get_block("B"), c_loops[0])
    assert extents(sch, sch.get_loops(sch.get_block("B"))) == [16, 16]
    assert [sch.get(l).loop_var.name_hint for l in sch.get_loops(sch.get_block("B"))] == ["i", "ax0"]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)

    sch = tvm.tir.Schedule(two_stage())
    b_loops = sch.get_loops(sch.get_block("B"))
    sch.reverse_compute_at(sch.get_block("C"), b_loops[1])
    assert extents(sch, sch.get_loops(sch.get_block("C"))) == [16, 16]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)


def test_compute_at_requires_all_consumers_under_the_loop():
    sch = tvm.tir.Schedule(two_stage())
    b_loops = sch.get_loops(sch.get_block("B"))
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="already encloses"):
        sch.compute_at(sch.get_block("B"), b_loops[0])
    assert sch.mod.same_as(before)


def test_inlining_both_ways():
    a = np.random.default_rng(2).random((16, 16)).astype("float32")
    sch = tvm.tir.Schedule(two_stage())
    sch.compute_inline(sch.get_block("B"))
    with pytest.raises(tvm.tir.ScheduleError):
        sch.get_block("B")
    c = sch.get(sch.get_block("C"))
    assert [r.buffer.name for r in c.reads] == ["A"]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)

    sch = tvm.tir.Schedule(two_stage())
    sch.reverse_compute_inline(sch.get_block("C"))
    b = sch.get(sch.get_block("B"))
    assert [w.buffer.name for w in b.writes] == ["C"]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)

    sch = tvm.tir.Schedule(two_stage())
    with pytest.raises(tvm.tir.ScheduleError, match="output"):
        sch.compute_inline(sch.get_block("C"))


def test_cache_read_and_write(mm_data):
    sch = tvm.tir.Schedule(matmul())
    b = sch.get_block("C")
    ar = sch.cache_read(b, 0, "local")
    cw = sch.cache_write(b, 0, "local")
    assert sch.get(ar).name_hint == "A_local" and sch.get(cw).name_hint == "C_local"
    assert sch.get(ar).writes[0].buffer.scope() == "local"
    assert [r.buffer.name for r in sch.get(b).reads] == ["A_local", "B"]
    assert [w.buffer.name for w in sch.get(b).writes] == ["C_local"]
    a, bb = mm_data
    np.testing.assert_allclose(run(sch.mod, a, bb, out_shape=(32, 24)), a @ bb, rtol=1e-5)
    with pytest.raises(tvm.tir.ScheduleError, match="out of range"):
        sch.cache_read(b, 5, "local")


def test_decompose_reduction_names_and_numbers(mm_data):
    sch = tvm.tir.Schedule(matmul())
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    init = sch.decompose_reduction(b, k)
    assert sch.get(init).name_hint == "C_init" and sch.get(b).name_hint == "C_update"
    assert sch.get(b).init is None
    assert [r.buffer.name for r in sch.get(b).reads] == ["C", "A", "B"]
    a, bb = mm_data
    np.testing.assert_allclose(run(sch.mod, a, bb, out_shape=(32, 24)), a @ bb, rtol=1e-5)


def test_sampling_is_seeded_and_recorded():
    def sample(seed):
        sch = tvm.tir.Schedule(matmul(), seed=seed)
        _, j, _ = sch.get_loops(sch.get_block("C"))
        vs = sch.sample_perfect_tile(j, n=3, max_innermost_factor=4)
        return [sch.get(v) for v in vs], sch

    values, sch = sample(3)
    assert np.prod(values) == 24 and values[-1] <= 4
    assert sample(3)[0] == values
    assert len({tuple(sample(s)[0]) for s in range(20)}) > 1
    assert f"decision={values}".replace(" ", "") in str(sch.trace).replace(" ", "")
    cat = sch.sample_categorical([2, 4, 8], [0.0, 1.0, 0.0])
    assert sch.get(cat) == 4


def test_trace_json_round_trip_and_replay(mm_data):
    sch = tvm.tir.Schedule(matmul(), seed=5)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    f = sch.sample_perfect_tile(i, n=2)
    i0, i1 = sch.split(i, factors=f)
    sch.reorder(i0, j, i1)
    sch.parallel(i0)
    sch.decompose_reduction(b, k)
    data = sch.trace.as_json()
    restored = tvm.tir.schedule.Trace.from_json(json.dumps(data))
    assert str(restored) == str(sch.trace)
    fresh = tvm.tir.Schedule(matmul(), seed=99)
    restored.apply_to_schedule(fresh)
    assert str(fresh.trace) == str(sch.trace)
    a, bb = mm_data
    np.testing.assert_allclose(run(fresh.mod, a, bb, out_shape=(32, 24)), a @ bb, rtol=1e-5)
    # Python replay of the printed trace.
    ns = {"tir": tvm.tir}
    exec(str(sch.trace), ns)  # pylint: disable=exec-used
    again = tvm.tir.Schedule(matmul())
    ns["apply_trace"](again)
    assert str(again.trace) == str(sch.trace)


def test_copy_is_independent():
    sch = tvm.tir.Schedule(matmul())
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    other = sch.copy()
    other.split(i, factors=[4, 8])
    assert extents(sch, sch.get_loops(b)) == [32, 24, 16]
    assert extents(other, other.get_loops(b)) == [4, 8, 24, 16]


def test_transform_layout_of_an_intermediate():
    a = np.random.default_rng(4).random((16, 16)).astype("float32")
    sch = tvm.tir.Schedule(two_stage())
    sch.transform_layout("B", ("write", 0), lambda i, j: (j // 4, i, j % 4))
    b = sch.get(sch.get_block("B"))
    assert [int(x) for x in b.writes[0].buffer.shape] == [4, 16, 4]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)
    assert "lambda i, j: (j // 4, i, j % 4)" in str(sch.trace)
    # A parameter's layout changes the signature, as in TVM: C comes out transposed.
    param = sch.copy()
    param.transform_layout("C", ("write", 0), lambda i, j: (j, i))
    np.testing.assert_allclose(run(param.mod, a, out_shape=(16, 16)), (a * 2 + 1).T, rtol=1e-6)
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="bijective"):
        sch.transform_layout("C", ("read", 0), lambda i, j, k: (i, i, k))
    assert sch.mod.same_as(before)


def test_sample_compute_location_gives_legal_loops():
    a = np.random.default_rng(5).random((16, 16)).astype("float32")
    seen = set()
    for seed in range(12):
        sch = tvm.tir.Schedule(two_stage(), seed=seed)
        loc = sch.sample_compute_location(sch.get_block("B"))
        sch.compute_at(sch.get_block("B"), loc)
        seen.add(sch.mod.script())
        np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)
        replay = tvm.tir.Schedule(two_stage())
        sch.trace.apply_to_schedule(replay)
        assert tvm.ir.structural_equal(replay.mod, sch.mod)
    assert len(seen) > 1  # different seeds pick different locations (different programs)


def test_storage_align_pads_the_allocation():
    a = np.random.default_rng(6).random((16, 16)).astype("float32")
    sch = tvm.tir.Schedule(two_stage())
    sch.storage_align("B", 0, axis=0, factor=32, offset=8)
    assert [list(map(int, e)) for e in sch.get(sch.get_block("B")).annotations["buffer_dim_align"]] == [[0, 0, 32, 8]]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)
    lowered = tvm.get_global_func("codegen.LowerPrimFunc")(sch.mod["main"])
    sizes = []
    tvm.tir.stmt_functor.post_order_visit(
        lowered.body, lambda n: sizes.append(int(n.extents[0])) if isinstance(n, tvm.tir.Allocate) else None)
    assert sizes == [16 * 40]  # row stride 16 padded to 40 (40 % 32 == 8)
    with pytest.raises(tvm.tir.ScheduleError, match="function parameter"):
        sch.storage_align("C", 0, axis=0, factor=32, offset=8)


def test_storage_align_survives_a_tvmscript_round_trip():
    # Printed and parsed back, the alignment entries are IntImms (as TVM's
    # Integer): lowering and a second storage_align used to reject them.
    a = np.random.default_rng(16).random((16, 16)).astype("float32")
    sch = tvm.tir.Schedule(two_stage())
    sch.storage_align("B", 0, axis=0, factor=32, offset=8)
    parsed = tvm.script.from_source(sch.mod.script())
    tvm.ir.assert_structural_equal(parsed, sch.mod)
    np.testing.assert_allclose(run(parsed, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)
    again = tvm.tir.Schedule(parsed)
    again.storage_align("B", 0, axis=0, factor=16, offset=3)  # replaces the parsed entry
    assert [list(map(int, e)) for e in again.get(again.get_block("B")).annotations["buffer_dim_align"]] == [[0, 0, 16, 3]]
    np.testing.assert_allclose(run(again.mod, a, out_shape=(16, 16)), a * 2 + 1, rtol=1e-6)
    bad = tvm.script.from_source(sch.mod.script().replace("[[0, 0, 32, 8]]", "[[0, 0, 0, 8]]"))
    with pytest.raises(ValueError, match="buffer_dim_align"):
        tvm.build(bad, target="llvm")


def row_sum(n=64, m=48):
    A, S = buf("A", (n, m)), buf("S", (n,))
    body = loops([n, m], lambda i, k: block(
        "S", [("vi", n, "S"), ("vk", m, "R")], [i, k],
        lambda vi, vk: tir.BufferStore(S, S[vi] + A[vi, vk], [vi]),
        init=lambda vi, vk: tir.BufferStore(S, tir.const(0.0, "float32"), [vi])))
    return func([A, S], body)


@pytest.mark.parametrize("factor_axis", [0, 1])
def test_rfactor_splits_the_reduction(factor_axis):
    a = np.random.default_rng(7).random((64, 48)).astype("float32")
    sch = tvm.tir.Schedule(row_sum())
    s = sch.get_block("S")
    i, k = sch.get_loops(s)
    k0, k1 = sch.split(k, factors=[None, 4])
    rf = sch.rfactor(k1, factor_axis=factor_axis)
    rf_block = sch.get(rf)
    assert rf_block.name_hint == "S_rf"
    rf_buf = rf_block.writes[0].buffer
    assert [int(x) for x in rf_buf.shape] == ([4, 64] if factor_axis == 0 else [64, 4])
    assert [iv.iter_type for iv in rf_block.iter_vars] == [0, 0, 2]  # vi, vk_1 spatial; vk_0 reduce
    wb = sch.get(s)
    assert [r.buffer.name for r in wb.reads] == ["S_rf"]
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(64,)), a.sum(axis=1), rtol=1e-5)
    # The rf loop is now parallel-safe in the rf block.
    sch.parallel(sch.get_loops(rf)[2])
    np.testing.assert_allclose(run(sch.mod, a, out_shape=(64,)), a.sum(axis=1), rtol=1e-5)


def test_rfactor_rejects_spatial_loops():
    sch = tvm.tir.Schedule(row_sum())
    i, k = sch.get_loops(sch.get_block("S"))
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match="spatial"):
        sch.rfactor(i, 0)
    assert sch.mod.same_as(before)


def three_stage(n=8):
    # B = A * 2 and D = A + 1 are independent; C = B + D.
    A, B, D, C = buf("A", (n, n)), buf("B", (n, n)), buf("D", (n, n)), buf("C", (n, n))
    s1 = loops([n, n], lambda i, j: block("B", [("vi", n, "S"), ("vj", n, "S")], [i, j],
                                          lambda vi, vj: tir.BufferStore(B, A[vi, vj] * 2.0, [vi, vj])))
    s2 = loops([n, n], lambda i, j: block("D", [("vi", n, "S"), ("vj", n, "S")], [i, j],
                                          lambda vi, vj: tir.BufferStore(D, A[vi, vj] + 1.0, [vi, vj])))
    s3 = loops([n, n], lambda i, j: block("C", [("vi", n, "S"), ("vj", n, "S")], [i, j],
                                          lambda vi, vj: tir.BufferStore(C, B[vi, vj] + D[vi, vj], [vi, vj])))
    return func([A, C], tir.stmt_seq(s1, s2, s3), allocs=[B, D])


def test_compute_at_index_picks_the_position():
    a = np.random.default_rng(8).random((8, 8)).astype("float32")

    def order(index):
        sch = tvm.tir.Schedule(three_stage())
        i = sch.get_loops(sch.get_block("C"))[0]
        sch.compute_at(sch.get_block("D"), i)
        sch.compute_at(sch.get_block("B"), i, index=index)
        np.testing.assert_allclose(run(sch.mod, a, out_shape=(8, 8)), a * 2 + (a + 1), rtol=1e-6)
        return [sch.get(b).name_hint for b in sch.get_child_blocks(i)]

    assert order(-1) == ["D", "B", "C"]  # last legal position: right before the consumer
    assert order(-2) == ["B", "D", "C"]  # first legal position
    assert order(1) == ["D", "B", "C"]
    with pytest.raises(tvm.tir.ScheduleError, match="not a legal position"):
        order(3)  # after its consumer
