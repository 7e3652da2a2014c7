"""tir.transform.VectorizeLoop alone: `T.vectorized` loops become vector
statements (16-lane chunks plus a scalar tail when wider); unvectorizable
bodies and disabled vectorization leave serial loops."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T
from tir_transform_helpers import check, find_nodes, run, run_pass


@T.prim_func
def before(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(8):
        B[i] = A[i] * T.float32(2)


@T.prim_func
def expected(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    B[0:8] = A[0:8] * T.Broadcast(T.float32(2), 8)


@T.prim_func
def wide(A: T.Buffer((20,), "float32"), B: T.Buffer((20,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(20):
        B[i] = A[i] + T.float32(1)


@T.prim_func
def wide_expected(A: T.Buffer((20,), "float32"), B: T.Buffer((20,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i_vo in range(1):
        B[i_vo * 16:i_vo * 16 + 16] = A[i_vo * 16:i_vo * 16 + 16] + T.Broadcast(T.float32(1), 16)
    for i in range(16, 20):
        B[i] = A[i] + T.float32(1)


@T.prim_func
def serial_expected(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in range(8):
        B[i] = A[i] * T.float32(2)


@T.prim_func
def inner_loop(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": True})
    for i in T.vectorized(4):
        for k in range(4):
            B[i] = B[i] + A[i, k]


def test_loop_becomes_vector_statement():
    check(tvm.tir.transform.VectorizeLoop(), before, expected)


def test_wide_loop_becomes_chunks_and_tail():
    after = check(tvm.tir.transform.VectorizeLoop(), wide, wide_expected)
    a = np.random.rand(20).astype("float32")
    (_, b) = run(after, a, np.zeros(20, "float32"))
    np.testing.assert_allclose(b, a + 1, rtol=1e-6)


def test_disabled_vectorization_leaves_a_serial_loop():
    check(tvm.tir.transform.VectorizeLoop(enable_vectorize=False), before, serial_expected)
    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
        check(tvm.tir.transform.VectorizeLoop(), before, serial_expected)


def test_body_with_inner_loop_stays_serial_and_correct():
    after = run_pass(tvm.tir.transform.VectorizeLoop(), inner_loop)
    loops = find_nodes(after, tvm.tir.For)
    assert [(int(l.extent), l.kind) for l in loops] == [(4, tvm.tir.ForKind.SERIAL)] * 2
    a = np.random.rand(4, 4).astype("float32")
    (_, b) = run(after, a, np.zeros(4, "float32"))
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)


@T.prim_func
def widened_index(A: T.Buffer((T.int64(64),), "float32"), B: T.Buffer((T.int64(64),), "float32")):
    T.func_attr({"tir.noalias": True})
    for j in range(4):
        for i in T.vectorized(16):
            B[T.Cast("int64", j * 16 + i)] = A[T.Cast("int64", j * 16 + i)] * T.float32(2)


def test_widened_int32_ramp_stays_a_ramp():
    """int32 loop variables indexing int64-shaped buffers (a hand-written PrimFunc fused
    into Relax's int64 shapes): Cast(int64, ramp) stays a ramp, so the access is one
    contiguous vector load, not a gather (the course's MLP left to the default
    schedules ran 84 us instead of 5 us in vm.profile)."""
    after = run_pass(tvm.tir.transform.VectorizeLoop(), widened_index)
    loads = find_nodes(after, tvm.tir.BufferLoad)
    assert loads and all(isinstance(l.indices[0], tvm.tir.Ramp) and l.indices[0].dtype == "int64x16"
                         for l in loads), [l.indices[0] for l in loads]
    a = np.random.rand(64).astype("float32")
    (_, b) = run(after, a, np.zeros(64, "float32"))
    np.testing.assert_allclose(b, 2 * a, rtol=1e-6)


def _padded(m, cond, index):
    """B[w] = A[index(w)] where cond(w), else 0, over m + 2 columns, the w loop vectorized."""
    from tessera import te
    A = te.placeholder((m,), name="A")
    B = te.compute((m + 2,), lambda w: tvm.tir.if_then_else(cond(w), A[index(w)], tvm.tir.const(0, "float32")),
                   name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    sch.vectorize(sch.get_loops(sch.get_block("B"))[0])
    return sch.mod["main"]


@pytest.mark.parametrize("m", [3, 14, 35, 56])
def test_lane_varying_linear_condition_runs_interior_chunks_as_vectors(m):
    """A padding stage's if_then_else(1 <= w < m + 1, A[w - 1], 0): each 16-lane chunk is
    guarded by the condition at its first and last lane; chunks inside the bounds are one
    vector load and store, the border chunks (and the tail) stay scalar; a guard known false
    leaves the scalar loop alone. NumPy oracle."""
    func = _padded(m, lambda w: tvm.tir.all(w >= 1, w < m + 1), lambda w: w - 1)
    lowered = tvm.lower(tvm.IRModule({"main": func}))["main"]
    stores = find_nodes(lowered, tvm.tir.BufferStore)
    if m + 2 > 16:  # chunks over a loop variable: guarded at run time
        assert [s for s in stores if isinstance(s.indices[0], tvm.tir.Ramp)], lowered.script()
        assert find_nodes(lowered, tvm.tir.IfThenElse), lowered.script()
    else:  # one chunk holding both borders: the guard folds to false, the loop stays scalar
        assert not [s for s in stores if isinstance(s.indices[0], tvm.tir.Ramp)], lowered.script()
    a = np.random.default_rng(m).standard_normal(m).astype("float32")
    (_, b) = run(lowered, a, np.full(m + 2, np.nan, "float32"))
    np.testing.assert_array_equal(b, np.concatenate([[0], a, [0]]).astype("float32"))


def test_non_linear_or_scattering_guarded_bodies_stay_scalar():
    """A condition on w % 3 (lanes not an interval) and a store scattered by w % 2 (a
    deinterleaved pad) keep the scalar loop, and compute the same."""
    m = 30
    func = _padded(m, lambda w: tvm.tir.all(w % 3 == 0, w < m), lambda w: tvm.tir.min(w, m - 1))
    lowered = tvm.lower(tvm.IRModule({"main": func}))["main"]
    assert not [s for s in find_nodes(lowered, tvm.tir.BufferStore) if isinstance(s.indices[0], tvm.tir.Ramp)]
    a = np.random.default_rng(0).standard_normal(m).astype("float32")
    (_, b) = run(lowered, a, np.zeros(m + 2, "float32"))
    expected = np.array([a[min(w, m - 1)] if (w % 3 == 0 and w < m) else 0 for w in range(m + 2)], "float32")
    np.testing.assert_array_equal(b, expected)


def test_guarded_chunks_through_the_c_backend():
    """The C code generator (the host path of a build without LLVM) writes the guarded
    vector chunks lane by lane: same result."""
    import shutil
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    m = 35
    func = _padded(m, lambda w: tvm.tir.all(w >= 1, w < m + 1), lambda w: w - 1)
    lib = tvm.build(tvm.IRModule({"main": func}), target="c")
    a = np.random.default_rng(1).standard_normal(m).astype("float32")
    b = tvm.nd.array(np.full(m + 2, np.nan, "float32"))
    lib["main"](tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.concatenate([[0], a, [0]]).astype("float32"))


def _heads(split):
    """Attention's head split (S, H*D) -> (H, S, D) or merge (H, S, D) -> (S, H*D) as
    reshape+transpose legalize them (flat index through // and %), the outer loops fused
    and parallel, the inner D (or H*D) loop vectorized by 16."""
    from tessera import te
    s, h, d = 8, 3, 32
    if split:
        A = te.placeholder((s, h * d), name="A")
        B = te.compute((h, s, d), lambda i, j, k: A[((j * h + i) * d + k) // (h * d), ((j * h + i) * d + k) % (h * d)],
                       name="B")
    else:
        A = te.placeholder((h, s, d), name="A")
        B = te.compute((s, h * d), lambda j, c: A[(j * h * d + c) // d % h, (j * h * d + c) // d // h % s,
                                                  (j * h * d + c) % d], name="B")
    sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
    loops = sch.get_loops(sch.get_block("B"))
    sch.parallel(sch.fuse(*loops[:-1]))
    sch.vectorize(sch.split(loops[-1], [None, 16])[1])
    return sch.mod["main"], (s, h, d)


@pytest.mark.parametrize("split", [True, False])
def test_head_split_and_merge_copy_whole_vectors(split):
    """The // and % of a reshape+transpose's flat index fold away with the enclosing loops'
    ranges (h < H, d < D): every load and store is one contiguous ramp, not a gather (the
    BERT layer's head split ran at 130 us, 28 us after). NumPy oracle."""
    func, (s, h, d) = _heads(split)
    lowered = tvm.lower(tvm.IRModule({"main": func}))["main"]
    accesses = [a.indices[0] for a in find_nodes(lowered, tvm.tir.BufferLoad) + find_nodes(lowered, tvm.tir.BufferStore)]
    assert accesses and all(isinstance(i, tvm.tir.Ramp) and int(i.stride) == 1 for i in accesses), lowered.script()
    rng = np.random.default_rng(0)
    if split:
        a = rng.standard_normal((s, h * d)).astype("float32")
        expected = a.reshape(s, h, d).transpose(1, 0, 2)
        (_, b) = run(lowered, a, np.zeros((h, s, d), "float32"))
    else:
        a = rng.standard_normal((h, s, d)).astype("float32")
        expected = a.transpose(1, 0, 2).reshape(s, h * d)
        (_, b) = run(lowered, a, np.zeros((s, h * d), "float32"))
    np.testing.assert_array_equal(b, expected)


def test_loop_ranges_opt_out_keeps_the_gather_and_the_answer():
    """PassContext config tir.vectorize_loop_ranges=False folds indices without the loops'
    ranges (the behaviour before; for measuring): the head merge's load is no longer one
    contiguous ramp, and the answer is the same."""
    func, (s, h, d) = _heads(False)
    with tvm.transform.PassContext(config={"tir.vectorize_loop_ranges": False}):
        lowered = tvm.lower(tvm.IRModule({"main": func}))["main"]
    loads = [a.indices[0] for a in find_nodes(lowered, tvm.tir.BufferLoad)]
    assert not all(isinstance(i, tvm.tir.Ramp) for i in loads), lowered.script()
    a = np.random.default_rng(0).standard_normal((h, s, d)).astype("float32")
    (_, b) = run(lowered, a, np.zeros((s, h * d), "float32"))
    np.testing.assert_array_equal(b, a.transpose(1, 0, 2).reshape(s, h * d))
