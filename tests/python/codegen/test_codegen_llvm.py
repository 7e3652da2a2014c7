"""CPU code generation, through LLVM and through the C source backend (every
test runs with target "llvm" and with target "c"): every TIR construct
compiled and run against NumPy (elementwise, broadcast, reductions, matmul,
conv2d, symbolic shapes, predicates, control flow, casts, integer division,
vectorization, parallel loops, intrinsics, dtypes), plus argument checking
and export."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func, block

# The CPU kinds this build has a backend for (llvm only when built with LLVM).
CPU_TARGETS = [k for k in ("llvm", "c") if tvm.get_global_func(f"target.build.{k}", allow_missing=True)]
_KIND = [CPU_TARGETS[0]]  # the kind of the running test's parameter


@pytest.fixture(autouse=True, params=CPU_TARGETS)
def cpu_kind(request):
    """Runs every test of this file (and of the files importing it) once per CPU backend."""
    _KIND[0] = request.param
    yield request.param
    _KIND[0] = CPU_TARGETS[0]


def build(f, options=""):
    """tvm.build for the running test's CPU kind, with target ``options`` ("-bound-check")."""
    return tvm.build(f, target=f"{_KIND[0]} {options}".strip())

RNG = np.random.default_rng(0)
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]


def rand(shape, dtype):
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith("int") or dtype.startswith("uint"):
        info = np.iinfo(dtype)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return RNG.integers(lo, hi, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def run(f, *arrays, out_shapes=(), out_dtype="float32"):
    lib = build(f)
    nds = [tvm.nd.array(a) for a in arrays] + [tvm.nd.empty(s, out_dtype) for s in out_shapes]
    lib[f.attrs["global_symbol"]](*nds)
    return [n.numpy() for n in nds[len(arrays):]]


@pytest.mark.parametrize("dtype", INT_DTYPES + FLOAT_DTYPES)
def test_elementwise_add_every_dtype(dtype):
    A, B, C = buf("A", (33,), dtype), buf("B", (33,), dtype), buf("C", (33,), dtype)
    f = func([A, B, C], loops([33], lambda i: tir.BufferStore(C, A[i] + B[i], [i])))
    a, b = rand((33,), dtype), rand((33,), dtype)
    (c,) = run(f, a, b, out_shapes=[(33,)], out_dtype=dtype)
    np.testing.assert_array_equal(c, (a + b).astype(dtype))


def test_bool_buffers():
    A, B, C = buf("A", (20,), "bool"), buf("B", (20,), "bool"), buf("C", (20,), "bool")
    f = func([A, B, C], loops([20], lambda i: tir.BufferStore(C, tir.Or(tir.And(A[i], B[i]), tir.Not(A[i])), [i])))
    a, b = rand((20,), "bool"), rand((20,), "bool")
    (c,) = run(f, a, b, out_shapes=[(20,)], out_dtype="bool")
    np.testing.assert_array_equal(c, (a & b) | ~a)


def test_bfloat16_is_computed_in_float32_and_rounded():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    A, C = buf("A", (16,), "bfloat16"), buf("C", (16,), "bfloat16")
    f = func([A, C], loops([16], lambda i: tir.BufferStore(C, A[i] * tir.const(3.0, "bfloat16"), [i])))
    a = RNG.standard_normal(16).astype(ml_dtypes.bfloat16)
    (c,) = run(f, a, out_shapes=[(16,)], out_dtype="bfloat16")
    expected = (a.astype(np.float32) * 3).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(c.astype(np.float32), expected.astype(np.float32))


def test_broadcasting():
    A, B, C = buf("A", (7, 9)), buf("B", (9,)), buf("C", (7, 9))
    f = func([A, B, C], loops([7, 9], lambda i, j: tir.BufferStore(C, A[i, j] * B[j] + 1.0, [i, j])))
    a, b = rand((7, 9), "float32"), rand((9,), "float32")
    (c,) = run(f, a, b, out_shapes=[(7, 9)])
    np.testing.assert_allclose(c, a * b + 1, rtol=1e-6)


def test_reduction_block_with_init():
    A, S = buf("A", (16, 40)), buf("S", (16,))
    body = loops([16, 40], lambda i, k: block(
        "S", [("vi", 16, "S"), ("vk", 40, "R")], [i, k],
        lambda vi, vk: tir.BufferStore(S, S[vi] + A[vi, vk], [vi]),
        init=lambda vi, vk: tir.BufferStore(S, tir.const(0.0, "float32"), [vi])))
    a = rand((16, 40), "float32")
    (s,) = run(func([A, S], body), a, out_shapes=[(16,)])
    np.testing.assert_allclose(s, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_matmul_relu_with_intermediate_buffer():
    n = 64
    A, B, C, Y = buf("A", (n, n)), buf("B", (n, n)), buf("C", (n, n)), buf("Y", (n, n))
    mm = loops([n, n, n], lambda i, j, k: block(
        "Y", [("vi", n, "S"), ("vj", n, "S"), ("vk", n, "R")], [i, j, k],
        lambda vi, vj, vk: tir.BufferStore(Y, Y[vi, vj] + A[vi, vk] * B[vk, vj], [vi, vj]),
        init=lambda vi, vj, vk: tir.BufferStore(Y, tir.const(0.0, "float32"), [vi, vj])))
    relu = loops([n, n], lambda i, j: block(
        "C", [("vi", n, "S"), ("vj", n, "S")], [i, j],
        lambda vi, vj: tir.BufferStore(C, tir.max(Y[vi, vj], tir.const(0.0, "float32")), [vi, vj])))
    f = func([A, B, C], tir.stmt_seq(mm, relu), allocs=[Y])
    a, b = rand((n, n), "float32"), rand((n, n), "float32")
    (c,) = run(f, a, b, out_shapes=[(n, n)])
    np.testing.assert_allclose(c, np.maximum(a @ b, 0), rtol=1e-4, atol=1e-4)


def test_conv2d_with_padding_guard():
    N, CI, H, W, CO, K = 1, 3, 10, 9, 4, 3
    X, Wt, Y = buf("X", (N, CI, H, W)), buf("Wt", (CO, CI, K, K)), buf("Y", (N, CO, H, W))

    def body(n, co, h, w, ci, kh, kw):
        ih, iw = h + kh - 1, w + kw - 1
        inside = tir.all(ih >= 0, ih < H, iw >= 0, iw < W)
        x = tir.if_then_else(inside, X[n, ci, ih, iw], tir.const(0.0, "float32"))
        return tir.BufferStore(Y, Y[n, co, h, w] + x * Wt[co, ci, kh, kw], [n, co, h, w])

    init = loops([N, CO, H, W], lambda n, co, h, w: tir.BufferStore(Y, tir.const(0.0, "float32"), [n, co, h, w]))
    conv = loops([N, CO, H, W, CI, K, K], body, names="nohwckl")
    x, wt = rand((N, CI, H, W), "float32"), rand((CO, CI, K, K), "float32")
    (y,) = run(func([X, Wt, Y], tir.stmt_seq(init, conv)), x, wt, out_shapes=[(N, CO, H, W)])
    import torch  # independent oracle
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(wt), padding=1).numpy()
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)


def test_symbolic_shape_one_build_two_sizes():
    n = tir.Var("n", "int32")
    A, B = tir.decl_buffer((n,), "float32", "A"), tir.decl_buffer((n,), "float32", "B")
    i = tir.Var("i", "int32")
    f = func([A, B], tir.For(i, 0, n, tir.ForKind.SERIAL, tir.BufferStore(B, A[i] * 2.0, [i])))
    lib = build(f)
    for size in (5, 17):
        a = rand((size,), "float32")
        b = tvm.nd.empty((size,), "float32")
        lib["main"](tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2)
    with pytest.raises(ValueError, match=r"B\.shape\[0\] is 6 but n = 5"):
        lib["main"](tvm.nd.array(rand((5,), "float32")), tvm.nd.empty((6,), "float32"))


def test_int64_symbolic_shape_and_scalar_params():
    n = tir.Var("n", "int64")
    A = tir.decl_buffer((n,), "float32", "A")
    alpha, shift = tir.Var("alpha", "float32"), tir.Var("shift", "int32")
    i = tir.Var("i", "int64")
    body = tir.For(i, tir.const(0, "int64"), n, tir.ForKind.SERIAL,
                   tir.BufferStore(A, A[i] * alpha + tir.Cast("float32", shift), [i]))
    f = func([A, alpha, shift], body)
    a = rand((11,), "float32")
    nd = tvm.nd.array(a)
    build(f)["main"](nd, 0.5, 3)
    np.testing.assert_allclose(nd.numpy(), a * 0.5 + 3, rtol=1e-6)


def test_predicate_from_non_dividing_split():
    # 10 elements processed as 3 x 4 with the predicate i_0 * 4 + i_1 < 10.
    A, B = buf("A", (10,)), buf("B", (10,))
    body = loops([3, 4], lambda i0, i1: block(
        "B", [("vi", 10, "S")], [i0 * 4 + i1],
        lambda vi: tir.BufferStore(B, A[vi] + 1.0, [vi]), predicate=i0 * 4 + i1 < 10))
    a = rand((10,), "float32")
    (b,) = run(func([A, B], body), a, out_shapes=[(10,)])
    np.testing.assert_allclose(b, a + 1)


def test_if_else_select_and_guarded_load():
    A, B = buf("A", (12,)), buf("B", (12,))

    def body(i):
        then = tir.BufferStore(B, tir.Select(A[i] > 0.0, A[i], -A[i]), [i])
        other = tir.BufferStore(B, tir.if_then_else(i > 0, A[i - 1], tir.const(-7.0, "float32")), [i])
        return tir.IfThenElse(i % 2 == 0, then, other)

    a = rand((12,), "float32")
    (b,) = run(func([A, B], loops([12], body)), a, out_shapes=[(12,)])
    expected = np.where(np.arange(12) % 2 == 0, np.abs(a), np.concatenate([[-7.0], a[:-1]]))
    np.testing.assert_allclose(b, expected.astype("float32"))


@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("int32", "float32"), ("float64", "float16"),
                                     ("int32", "int8"), ("uint8", "int32"), ("float32", "uint8"), ("int16", "float64")])
def test_casts_match_numpy(src, dst):
    A, B = buf("A", (16,), src), buf("B", (16,), dst)
    f = func([A, B], loops([16], lambda i: tir.BufferStore(B, tir.Cast(dst, A[i]), [i])))
    a = (RNG.uniform(0, 120, 16) if src.startswith("u") or dst.startswith("u") else RNG.uniform(-120, 120, 16))
    if src == "int32" and dst == "int8":
        a = RNG.integers(-1000, 1000, 16)  # wraps like numpy
    a = a.astype(src)
    (b,) = run(f, a, out_shapes=[(16,)], out_dtype=dst)
    np.testing.assert_array_equal(b, a.astype(dst))


def test_bool_casts():
    A, B, C = buf("A", (8,), "float32"), buf("B", (8,), "bool"), buf("C", (8,), "int32")
    f = func([A, B, C], loops([8], lambda i: tir.stmt_seq(tir.BufferStore(B, tir.Cast("bool", A[i]), [i]),
                                                          tir.BufferStore(C, tir.Cast("int32", B[i]) * 5, [i]))))
    a = np.array([0, 1.5, -2, 0, 0.1, 0, 3, -0.0], dtype="float32")
    lib = build(f)
    b, c = tvm.nd.empty((8,), "bool"), tvm.nd.empty((8,), "int32")
    lib["main"](tvm.nd.array(a), b, c)
    np.testing.assert_array_equal(b.numpy(), a != 0)
    np.testing.assert_array_equal(c.numpy(), (a != 0).astype("int32") * 5)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_semantics(dtype):
    A, B = buf("A", (36,), dtype), buf("B", (36,), dtype)
    outs = [buf(n, (36,), dtype) for n in ("FD", "FM", "TD", "TM")]
    ops = [tir.floordiv, tir.floormod, tir.truncdiv, tir.truncmod]
    f = func([A, B, *outs], loops([36], lambda i: tir.stmt_seq(
        *[tir.BufferStore(o, op(A[i], B[i]), [i]) for o, op in zip(outs, ops)])))
    a = np.repeat(np.array([-9, -7, -1, 0, 1, 7, 9, -13, 13], dtype=dtype), 4)
    b = np.tile(np.array([2, -2, 3, -5], dtype=dtype), 9)
    fd, fm, td, tm = run(f, a, b, out_shapes=[(36,)] * 4, out_dtype=dtype)
    np.testing.assert_array_equal(fd, a // b)
    np.testing.assert_array_equal(fm, a % b)
    np.testing.assert_array_equal(td, np.trunc(a / b).astype(dtype))
    np.testing.assert_array_equal(tm, np.fmod(a, b))


@pytest.mark.parametrize("extent", [4, 16, 37, 100])
def test_vectorized_loops_with_tails(extent):
    A, B, C = buf("A", (3, extent)), buf("B", (3, extent)), buf("C", (3, extent))
    f = func([A, B, C], loops([3, extent], lambda i, j: tir.BufferStore(C, A[i, j] * B[i, j] + 2.0, [i, j]),
                              kinds=[tir.ForKind.SERIAL, tir.ForKind.VECTORIZED]))
    a, b = rand((3, extent), "float32"), rand((3, extent), "float32")
    lib = build(f)
    c = tvm.nd.empty((3, extent), "float32")
    lib["main"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a * b + 2, rtol=1e-6, atol=1e-6)  # FMA contraction: 1 ulp of a*b
    lanes = extent if extent <= 16 else 16
    if _KIND[0] == "llvm":
        assert f"<{lanes} x float>" in lib.get_source("ll")
    else:  # a loop over the lanes, which the C compiler vectorizes
        assert f"< {lanes}; ++" in lib.get_source()


def test_vectorized_gather_and_unvectorizable_body_stay_correct():
    A, B, S = buf("A", (8, 8)), buf("B", (8, 8)), buf("S", (8,))
    transpose = loops([8, 8], lambda i, j: tir.BufferStore(B, A[j, i], [i, j]),
                      kinds=[tir.ForKind.SERIAL, tir.ForKind.VECTORIZED])
    # A reduction over the vectorized axis cannot be vectorized: it must stay correct.
    reduce_init = loops([8], lambda i: tir.BufferStore(S, tir.const(0.0, "float32"), [i]))
    reduce = loops([8, 8], lambda i, k: tir.BufferStore(S, S[i] + A[i, k], [i]),
                   kinds=[tir.ForKind.SERIAL, tir.ForKind.VECTORIZED])
    f = func([A, B, S], tir.stmt_seq(transpose, reduce_init, reduce))
    a = rand((8, 8), "float32")
    b, s = run(f, a, out_shapes=[(8, 8), (8,)])
    np.testing.assert_array_equal(b, a.T)
    np.testing.assert_allclose(s, a.sum(axis=1), rtol=1e-5, atol=1e-6)


def test_parallel_loops_have_no_races():
    n = 256
    A, B = buf("A", (n, 64)), buf("B", (n, 64))
    f = func([A, B], loops([n, 64], lambda i, j: tir.BufferStore(B, A[i, j] * 3.0 + tir.Cast("float32", i), [i, j]),
                           kinds=[tir.ForKind.PARALLEL, tir.ForKind.SERIAL]))
    lib = build(f)
    a = rand((n, 64), "float32")
    expected = a * 3 + np.arange(n, dtype="float32")[:, None]
    an = tvm.nd.array(a)
    for _ in range(50):
        b = tvm.nd.empty((n, 64), "float32")
        lib["main"](an, b)
        np.testing.assert_allclose(b.numpy(), expected, rtol=1e-5, atol=1e-6)  # FMA contraction: 1 ulp


def test_parallel_reduction_with_local_scratch_and_nested_parallel():
    n = 64
    A, S = buf("A", (n, 32)), buf("S", (n,))
    acc = tir.decl_buffer((1,), "float32", "acc")

    def row(i):
        k = tir.Var("k", "int32")
        inner = tir.stmt_seq(
            tir.BufferStore(acc, tir.const(0.0, "float32"), [0]),
            tir.For(k, 0, 32, tir.ForKind.SERIAL, tir.BufferStore(acc, acc[0] + A[i, k], [0])),
            tir.BufferStore(S, acc[0], [i]))
        return tir.Allocate(acc.data, "float32", [1], True, tir.DeclBuffer(acc, inner))

    f = func([A, S], loops([n], row, kinds=[tir.ForKind.PARALLEL]))
    a = rand((n, 32), "float32")
    lib = build(f)
    for _ in range(20):
        s = tvm.nd.empty((n,), "float32")
        lib["main"](tvm.nd.array(a), s)
        np.testing.assert_allclose(s.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_large_intermediate_buffer_uses_workspace():
    n = 100_000  # 400 KB: heap workspace, not stack
    A, B, T = buf("A", (n,)), buf("B", (n,)), buf("T", (n,))
    f = func([A, B], tir.stmt_seq(loops([n], lambda i: tir.BufferStore(T, A[i] + 1.0, [i])),
                                  loops([n], lambda i: tir.BufferStore(B, T[n - 1 - i] * 2.0, [i]))), allocs=[T])
    a = rand((n,), "float32")
    (b,) = run(f, a, out_shapes=[(n,)])
    np.testing.assert_allclose(b, (a[::-1] + 1) * 2, rtol=1e-6)


def test_unrolled_loop():
    A, B = buf("A", (4, 6)), buf("B", (4, 6))
    f = func([A, B], loops([4, 6], lambda i, j: tir.BufferStore(B, A[i, j] - 1.0, [i, j]),
                           kinds=[tir.ForKind.SERIAL, tir.ForKind.UNROLLED]))
    a = rand((4, 6), "float32")
    (b,) = run(f, a, out_shapes=[(4, 6)])
    np.testing.assert_allclose(b, a - 1)


@pytest.mark.parametrize("name,npf", [("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("tanh", np.tanh),
                                      ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("floor", np.floor),
                                      ("ceil", np.ceil), ("round", np.round), ("fabs", np.abs), ("sin", np.sin),
                                      ("erf", None), ("log1p", np.log1p), ("rsqrt", lambda x: 1 / np.sqrt(x))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_intrinsics(name, npf, dtype):
    if npf is None:
        import math
        npf = np.vectorize(math.erf)
    A, B = buf("A", (40,), dtype), buf("B", (40,), dtype)
    f = func([A, B], loops([40], lambda i: tir.BufferStore(B, getattr(tir, name)(A[i]), [i]),
                           kinds=[tir.ForKind.VECTORIZED]))
    a = RNG.uniform(0.1, 3.0, 40).astype(dtype)
    (b,) = run(f, a, out_shapes=[(40,)], out_dtype=dtype)
    np.testing.assert_allclose(b, npf(a).astype(dtype), rtol=1e-5 if dtype == "float32" else 1e-12)


def test_pow_and_float16_math():
    A, B = buf("A", (8,), "float16"), buf("B", (8,), "float16")
    f = func([A, B], loops([8], lambda i: tir.BufferStore(B, tir.exp(A[i]) + tir.pow(A[i], tir.const(2.0, "float16")), [i])))
    a = RNG.uniform(0, 1, 8).astype("float16")
    (b,) = run(f, a, out_shapes=[(8,)], out_dtype="float16")
    np.testing.assert_allclose(b.astype("float32"), (np.exp(a.astype("float32")) + a.astype("float32") ** 2),
                               rtol=2e-3)


def test_argument_errors_name_the_parameter():
    A, B = buf("A", (4, 4)), buf("B", (4, 4))
    lib = build(func([A, B], loops([4, 4], lambda i, j: tir.BufferStore(B, A[i, j], [i, j]))))
    a = tvm.nd.array(rand((4, 4), "float32"))
    with pytest.raises(TypeError, match=r"main expects 2 arguments \(A, B\) but got 1"):
        lib["main"](a)
    with pytest.raises(TypeError, match="argument B must be an NDArray"):
        lib["main"](a, 3)
    with pytest.raises(ValueError, match=r"argument B has 1 dimensions"):
        lib["main"](a, tvm.nd.empty((16,), "float32"))
    with pytest.raises(TypeError, match="argument A has dtype int32 but expected float32"):
        lib["main"](tvm.nd.empty((4, 4), "int32"), a)
    with pytest.raises(AttributeError, match="no function 'nope'"):
        lib["nope"]


def test_compile_errors_are_exceptions_naming_the_function():
    A = buf("A", (4,))
    x = tir.Var("x", "int32")
    bad = func([A], loops([4], lambda i: tir.BufferStore(A, tir.Cast("float32", x), [i])), name="uses_free_var")
    with pytest.raises(ValueError, match="uses_free_var.*variable x"):
        build(bad)
    i = tir.Var("i", "int32")
    thread = tir.IterVar(None, tir.Var("tx", "int32"), tir.IterVar.ThreadIndex, "threadIdx.x")
    gpu_loop = tir.For(i, 0, 4, tir.ForKind.THREAD_BINDING, tir.BufferStore(A, tir.const(1.0, "float32"), [i]),
                       thread_binding=thread)
    with pytest.raises(ValueError, match="GPU thread axis"):
        build(func([A], gpu_loop, name="gpu_only"))
    with pytest.raises(ValueError, match="unknown target kind"):
        tvm.build(bad, target="tpu")


def test_export_library_and_load_module(tmp_path):
    A, B = buf("A", (10,)), buf("B", (10,))
    lib = build(func([A, B], loops([10], lambda i: tir.BufferStore(B, A[i] * A[i], [i]),
                                   kinds=[tir.ForKind.PARALLEL]), name="square"))
    path = tmp_path / "square.so"
    lib.export_library(str(path))
    loaded = tvm.runtime.load_module(str(path))
    assert loaded.type_key == "library"
    a = rand((10,), "float32")
    b = tvm.nd.empty((10,), "float32")
    loaded["square"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * a)
    with pytest.raises(ValueError, match="shape"):
        loaded["square"](tvm.nd.array(rand((3,), "float32")), b)
    with pytest.raises(FileNotFoundError):
        tvm.runtime.load_module(str(tmp_path / "missing.so"))


def test_time_evaluator_and_sources():
    A, B = buf("A", (256,)), buf("B", (256,))
    lib = build(func([A, B], loops([256], lambda i: tir.BufferStore(B, A[i] + 1.0, [i])), name="inc"))
    a, b = tvm.nd.array(rand((256,), "float32")), tvm.nd.empty((256,), "float32")
    res = lib.time_evaluator("inc", tvm.cpu(), number=3, repeat=4)(a, b)
    assert len(res.results) == 4 and all(r > 0 for r in res.results)
    assert res.mean == pytest.approx(np.mean(res.results))
    np.testing.assert_allclose(b.numpy(), a.numpy() + 1)
    if _KIND[0] == "llvm":
        assert "tessera_kernel_inc" in lib.get_source("asm")
        assert "define" in lib.get_source("ll")
    else:
        assert "int32_t tessera_kernel_inc(void** args)" in lib.get_source()


def test_num_cores_target_and_thread_setting():
    A, B = buf("A", (64, 8)), buf("B", (64, 8))
    f = func([A, B], loops([64, 8], lambda i, j: tir.BufferStore(B, A[i, j] + 1.0, [i, j]),
                           kinds=[tir.ForKind.PARALLEL, tir.ForKind.SERIAL]))
    a = rand((64, 8), "float32")
    for options in ("--num-cores=1", "-mcpu=native --num-cores=2" if _KIND[0] == "llvm" else "--num-cores=2"):
        b = tvm.nd.empty((64, 8), "float32")
        build(f, options)["main"](tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a + 1)
    get, set_ = tvm.get_global_func("runtime.GetNumThreads"), tvm.get_global_func("runtime.SetNumThreads")
    before = get()
    set_(1)
    assert get() == 1
    set_(before)
    with pytest.raises(ValueError, match="positive"):
        set_(0)
    with pytest.raises(ValueError, match="num-cores"):
        tvm.target.Target("llvm --num-cores=zero")


def test_loop_partition_removes_checks_where_predicates_always_hold():
    # 30 columns split by 8: only the last j_0 tile needs the `< 30` check.
    A, B = buf("A", (10, 30)), buf("B", (10, 30))
    body = loops([10, 4, 8], lambda i, j0, j1: block(
        "B", [("vi", 10, "S"), ("vj", 30, "S")], [i, j0 * 8 + j1],
        lambda vi, vj: tir.BufferStore(B, A[vi, vj] + 1.0, [vi, vj]), predicate=j0 * 8 + j1 < 30))
    f = func([A, B], body)
    lowered = tvm.get_global_func("codegen.LowerPrimFunc")(f)
    ifs, loops_seen = [], []
    tvm.tir.stmt_functor.post_order_visit(lowered.body, lambda n: ifs.append(n) if isinstance(n, tir.IfThenElse) else
                                          loops_seen.append(n) if isinstance(n, tir.For) else None)
    assert len(ifs) == 1  # kept only in the last partial tile
    guarded = [l for l in loops_seen if int(l.min) != 0]
    assert guarded, "the loops were not partitioned"
    a = rand((10, 30), "float32")
    (b,) = run(f, a, out_shapes=[(10, 30)])
    np.testing.assert_allclose(b, a + 1)


def test_bound_check_turns_out_of_bounds_accesses_into_errors():
    A, B = buf("A", (8,)), buf("B", (8,))
    f = func([A, B], loops([8], lambda i: tir.BufferStore(B, A[i + 1], [i])), name="shifted")  # reads A[8]
    a, b = tvm.nd.array(rand((8,), "float32")), tvm.nd.empty((8,), "float32")
    with pytest.raises(RuntimeError, match="index out of bounds in buffer A"):
        build(f, "-bound-check")["shifted"](a, b)
    # In-bounds programs are unaffected.
    g = func([A, B], loops([8], lambda i: tir.BufferStore(B, A[i] * 2.0, [i]), kinds=[tir.ForKind.PARALLEL]))
    build(g, "-bound-check")["main"](a, b)
    np.testing.assert_allclose(b.numpy(), a.numpy() * 2)


@pytest.mark.parametrize("kind", [tir.ForKind.SERIAL, tir.ForKind.VECTORIZED, tir.ForKind.PARALLEL])
def test_checked_index_and_checked_value_raise_at_run_time(kind):
    # B[i] = A[checked_index(I[i], 8, "gather", negative_from_end)] * checked_value(s > 0, s, ...):
    # NumPy's take(mode="raise") in range; IndexError naming the index and size, and the
    # message of checked_value (its "ValueError: " prefix picks the class), outside.
    A, Idx, B = buf("A", (8,)), buf("I", (4,), "int64"), buf("B", (4,))
    s = tir.Var("s", "float32")

    def body(i):
        j = tir.call_intrin("int64", "tir.checked_index", Idx[i], tir.const(8, "int64"), tir.StringImm("gather"),
                            tir.const(1, "int32"))
        scale = tir.call_intrin("float32", "tir.checked_value", s > tir.const(0.0, "float32"), s,
                                tir.StringImm("ValueError: gather: s must be positive"))
        return tir.BufferStore(B, A[j] * scale, [i])

    lib = build(func([A, Idx, s, B], loops([4], body, kinds=[kind]), name="gather"))
    a = rand((8,), "float32")
    b = tvm.nd.empty((4,), "float32")
    idx = np.array([0, 7, -1, -8], "int64")
    lib["gather"](tvm.nd.array(a), tvm.nd.array(idx), 2.0, b)
    np.testing.assert_allclose(b.numpy(), np.take(a, idx, mode="raise") * 2.0)
    for bad, shown in (([0, 8, 1, 2], 8), ([0, 1, -9, 9], -9)):
        with pytest.raises(IndexError, match=f"gather: index {shown} is out of bounds for size 8"):
            lib["gather"](tvm.nd.array(a), tvm.nd.array(np.array(bad, "int64")), 2.0, b)
    with pytest.raises(ValueError, match="gather: s must be positive"):
        lib["gather"](tvm.nd.array(a), tvm.nd.array(idx), 0.0, b)


def test_parallel_loop_reports_the_lowest_failing_iteration():
    # Several iterations of a parallel loop fail, on whichever threads run them: the error
    # is always the lowest failing iteration's, as the serial loop reports it (a race
    # between the threads' errors made the message vary from run to run).
    n = 256
    A, Idx, B = buf("A", (8,)), buf("I", (n,), "int64"), buf("B", (n,))

    def body(i):
        j = tir.call_intrin("int64", "tir.checked_index", Idx[i], tir.const(8, "int64"), tir.StringImm("gather"),
                            tir.const(0, "int32"))
        return tir.BufferStore(B, A[j], [i])

    lib = build(func([A, Idx, B], loops([n], body, kinds=[tir.ForKind.PARALLEL]), name="gather"))
    idx = np.zeros(n, "int64")
    idx[[37, 90, 150, 255]] = [100 + 37, 100 + 90, 100 + 150, 100 + 255]  # index 100 + i at iteration i
    serial = build(func([A, Idx, B], loops([n], body), name="gather"))
    for f in [serial] + [lib] * 40:
        with pytest.raises(IndexError, match="gather: index 137 is out of bounds for size 8"):
            f["gather"](tvm.nd.array(rand((8,), "float32")), tvm.nd.array(idx), tvm.nd.empty((n,), "float32"))
