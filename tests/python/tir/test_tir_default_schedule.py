"""tir.transform.DefaultCPUSchedule: every TOPI operator family, scheduled, computes
what the unscheduled function computes (NumPy oracle), and the scheduled loops are
parallel / vectorized where the pass promises it; tiny ops stay serial, scheduled
functions are left alone, symbolic shapes work; the pass in relax.build's pipeline."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, te, tir, topi

TARGET = "llvm -num-cores=4"  # parallel loops need more than one core, whatever the machine


def _loops(func):
    """[(loop variable name, ForKind, extent or None)] of ``func``, outermost first."""
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return [(l.loop_var.name, l.kind, int(l.extent) if isinstance(l.extent, tir.IntImm) else None)
            for l in reversed(found)]


def _kinds(func):
    return {kind for _, kind, _ in _loops(func)}


def _schedule(func, target=TARGET):
    return tir.transform.DefaultCPUSchedule(target)(tvm.IRModule({"main": func}))["main"]


def _run(func, arrays, out_shapes, out_dtype="float32"):
    lib = tvm.build(tvm.IRModule({"main": func}), target="llvm")
    outs = [tvm.nd.array(np.zeros(s, dtype=out_dtype)) for s in out_shapes]
    lib["main"](*[tvm.nd.array(a) for a in arrays], *outs)
    return [o.numpy() for o in outs]


def _rand(shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        return rng.integers(-9, 9, size=shape).astype(dtype)
    return (rng.random(shape) - 0.5).astype(dtype)


def _check(inputs, out, arrays, expected, parallel, vectorized, rtol=1e-5, atol=1e-5):
    """Builds ``inputs -> out`` unscheduled and scheduled; both match ``expected``,
    the scheduled one has (or has not) a parallel and a vectorized loop."""
    func = te.create_prim_func(list(inputs) + [out])
    assert _kinds(func) == {tir.ForKind.SERIAL}
    sched = _schedule(func)
    assert sched.attrs["tir.is_scheduled"]
    kinds = _kinds(sched)
    assert (tir.ForKind.PARALLEL in kinds) == parallel, sched.script()
    assert (tir.ForKind.VECTORIZED in kinds) == vectorized, sched.script()
    shape = [int(d) for d in out.shape]
    for f in (func, sched):
        (res,) = _run(f, arrays, [shape], out.dtype)
        np.testing.assert_allclose(res, expected, rtol=rtol, atol=atol)
    return sched


# ---- elementwise and broadcast -------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
def test_elementwise_is_parallel_and_vectorized(dtype):
    A = te.placeholder((64, 1030), name="A", dtype=dtype)  # 1030: the vector split has a tail
    B = topi.nn.relu(topi.negative(A))
    a = _rand((64, 1030), dtype)
    sched = _check([A], B, [a], np.maximum(-a, 0), parallel=True, vectorized=True)
    lanes = {"float32": 16, "int32": 16, "float16": 32}[dtype]
    vec = [e for _, k, e in _loops(_schedule(te.create_prim_func([A, B]), "llvm -num-cores=4 -mcpu=skylake-avx512"))
           if k == tir.ForKind.VECTORIZED]
    assert vec == [lanes]
    # The negative producer was inlined: one block is left.
    assert 'T.block("T_negative")' not in sched.script()


def test_unary_math_and_broadcast():
    A = te.placeholder((128, 512), name="A")
    Bv = te.placeholder((512,), name="B")
    C = topi.add(topi.exp(A), Bv)
    a, b = _rand((128, 512)), _rand((512,), seed=1)
    _check([A, Bv], C, [a, b], np.exp(a) + b, parallel=True, vectorized=True)


@tvm.testing.requires_llvm  # the vector width of an -mcpu is LLVM's
def test_vector_width_follows_the_target():
    A = te.placeholder((64, 1024), name="A")
    func = te.create_prim_func([A, topi.exp(A)])
    widths = {}
    for target in ("llvm -mcpu=haswell -num-cores=2", "llvm -mcpu=skylake-avx512 -num-cores=2",
                   "llvm -mcpu=x86-64 -num-cores=2"):
        widths[target.split()[1]] = [e for _, k, e in _loops(_schedule(func, target)) if k == tir.ForKind.VECTORIZED]
    assert widths == {"-mcpu=haswell": [8], "-mcpu=skylake-avx512": [16], "-mcpu=x86-64": [4]}
    assert tvm.target.codegen.llvm_get_vector_width("llvm -mcpu=haswell") == 256


def test_single_core_target_has_no_parallel_loop():
    A = te.placeholder((256, 1024), name="A")
    sched = _schedule(te.create_prim_func([A, topi.exp(A)]), "llvm -num-cores=1")
    assert _kinds(sched) == {tir.ForKind.SERIAL, tir.ForKind.VECTORIZED}


def test_tiny_ops_stay_serial():
    A = te.placeholder((4, 32), name="A")
    B = topi.exp(A)
    a = _rand((4, 32))
    sched = _check([A], B, [a], np.exp(a), parallel=False, vectorized=True)
    assert sched.attrs["tir.is_scheduled"]
    # Too short to vectorize (3 < 4) and too small to parallelize: untouched loops.
    C = te.placeholder((5, 3), name="C")
    sched = _check([C], topi.exp(C), [_rand((5, 3))], np.exp(_rand((5, 3))), parallel=False, vectorized=False)
    assert _kinds(sched) == {tir.ForKind.SERIAL}


# ---- reductions ---------------------------------------------------------------------

def test_reduction_over_leading_axis_is_vectorized():
    A = te.placeholder((512, 256), name="A")
    a = _rand((512, 256))
    _check([A], topi.sum(A, axis=0), [a], a.sum(axis=0), parallel=True, vectorized=True, rtol=1e-4, atol=1e-4)


def test_reduction_over_last_axis_is_factored_and_vectorized():
    A = te.placeholder((256, 512), name="A")
    a = _rand((256, 512))
    sched = _check([A], topi.max(A, axis=1), [a], a.max(axis=1), parallel=True, vectorized=True)
    assert "_rf_update\")" in sched.script()  # rfactor: per-row vector of partial maxima
    _check([A], topi.mean(A, axis=1, keepdims=True), [a], a.mean(axis=1, keepdims=True), parallel=True,
           vectorized=True, rtol=1e-4, atol=1e-5)
    # 500 is no multiple of the vector width: the reduction stays scalar, rows in parallel.
    B = te.placeholder((256, 500), name="B")
    b = _rand((256, 500))
    _check([B], topi.sum(B, axis=1), [b], b.sum(axis=1), parallel=True, vectorized=False, rtol=1e-4, atol=1e-4)


def test_full_reduction_stays_serial_and_correct():
    A = te.placeholder((64, 64), name="A")
    a = _rand((64, 64))
    _check([A], topi.sum(A), [a], np.array(a.sum()), parallel=False, vectorized=False, rtol=1e-4, atol=1e-4)


def test_softmax_and_log_softmax():
    A = te.placeholder((64, 1024), name="A")
    a = _rand((64, 1024)) * 8
    e = np.exp(a - a.max(axis=1, keepdims=True))
    sched = _check([A], topi.nn.softmax(A), [a], e / e.sum(axis=1, keepdims=True), parallel=True, vectorized=True)
    # The exp stage has two consumers (sum, normalize): kept, not computed twice.
    assert 'T.block("T_softmax_exp")' in sched.script()
    assert 'T.block("T_softmax_maxelem_rf' in sched.script()
    _check([A], topi.nn.log_softmax(A), [a], np.log(e / e.sum(axis=1, keepdims=True)), parallel=True,
           vectorized=True, rtol=1e-4, atol=1e-4)


def test_layer_norm():
    A = te.placeholder((64, 768), name="A")
    G = te.placeholder((768,), name="G")
    Bt = te.placeholder((768,), name="Bt")
    a, g, b = _rand((64, 768)), _rand((768,), seed=1), _rand((768,), seed=2)
    mean = a.mean(axis=1, keepdims=True)
    var = ((a - mean) ** 2).mean(axis=1, keepdims=True)
    _check([A, G, Bt], topi.nn.layer_norm(A, G, Bt, axis=[-1]), [a, g, b], (a - mean) / np.sqrt(var + 1e-5) * g + b,
           parallel=True, vectorized=True, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,k,n", [(128, 256, 128), (33, 70, 50), (1, 256, 512)])
def test_matmul_is_tiled_vectorized_and_parallel(m, k, n):
    A = te.placeholder((m, k), name="A")
    B = te.placeholder((k, n), name="B")
    a, b = _rand((m, k)), _rand((k, n), seed=1)
    sched = _check([A, B], topi.nn.matmul(A, B), [a, b], a @ b, parallel=m * n * k >= 32768, vectorized=True,
                   rtol=1e-4, atol=1e-4)
    names = [name for name, _, _ in _loops(sched)]
    # The reduction loop k sits outside the vectorized column loop; the init was decomposed.
    assert names.index("k") < names.index("j_1")
    assert "T_matmul_NN_init" in sched.script()


def test_dense_with_bias():
    A = te.placeholder((16, 256), name="A")
    W = te.placeholder((128, 256), name="W")
    Bv = te.placeholder((128,), name="Bv")
    a, w, b = _rand((16, 256)), _rand((128, 256), seed=1), _rand((128,), seed=2)
    # W[j, k] is strided along j: the product is parallel only, the bias epilogue vectorized.
    _check([A, W, Bv], topi.nn.dense(A, W, Bv), [a, w, b], a @ w.T + b, parallel=True, vectorized=True,
           rtol=1e-4, atol=1e-4)


def test_conv2d_and_relu():
    X = te.placeholder((2, 8, 32, 32), name="X")
    W = te.placeholder((16, 8, 3, 3), name="W")
    x, w = _rand((2, 8, 32, 32)), _rand((16, 8, 3, 3), seed=1)
    torch = pytest.importorskip("torch")
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1)).numpy()
    sched = _check([X, W], topi.nn.relu(topi.nn.conv2d(X, W, 1, 1, 1)), [x, w], ref, parallel=True, vectorized=True,
                   rtol=1e-4, atol=1e-4)
    assert "conv2d_nchw_init" in sched.script()
    W2 = te.placeholder((16, 4, 3, 3), name="W2")
    w2 = _rand((16, 4, 3, 3), seed=3)
    ref2 = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w2), stride=2, groups=2).numpy()
    _check([X, W2], topi.nn.group_conv2d_nchw(X, W2, 2, 0, 1, 2), [x, w2], ref2, parallel=True, vectorized=True,
           rtol=1e-4, atol=1e-4)


def test_pooling():
    X = te.placeholder((8, 16, 32, 32), name="X")
    x = _rand((8, 16, 32, 32))
    ref = x.reshape(8, 16, 16, 2, 16, 2).max(axis=(3, 5))
    _check([X], topi.nn.max_pool2d(X, 2, 2), [x], ref, parallel=True, vectorized=True)
    ref = x.reshape(8, 16, 16, 2, 16, 2).mean(axis=(3, 5))
    _check([X], topi.nn.avg_pool2d(X, 2, 2), [x], ref, parallel=True, vectorized=True, rtol=1e-5, atol=1e-6)


# ---- data movement ------------------------------------------------------------------

def test_transpose_reshape_concat_take():
    A = te.placeholder((256, 384), name="A")
    a = _rand((256, 384))
    _check([A], topi.transpose(A), [a], a.T, parallel=True, vectorized=True)
    _check([A], topi.reshape(A, (128, 768)), [a], a.reshape(128, 768), parallel=True, vectorized=True)
    B = te.placeholder((256, 128), name="B")
    b = _rand((256, 128), seed=1)
    _check([A, B], topi.concatenate([A, B], axis=1), [a, b], np.concatenate([a, b], axis=1), parallel=True,
           vectorized=True)
    I = te.placeholder((300,), name="I", dtype="int32")
    idx = np.random.default_rng(2).integers(0, 256, size=300).astype("int32")
    _check([A, I], topi.take(A, I, axis=0), [a, idx], a[idx], parallel=True, vectorized=True)


# ---- what the pass leaves alone -----------------------------------------------------

def test_scheduled_functions_are_left_alone():
    A = te.placeholder((256, 1024), name="A")
    func = te.create_prim_func([A, topi.exp(A)])
    marked = func.with_attr("tir.is_scheduled", True)
    tvm.ir.assert_structural_equal(_schedule(marked), marked)
    sch = tir.Schedule(func)
    sch.parallel(sch.get_loops(sch.get_block("T_exp"))[0])
    by_hand = sch.mod["main"]
    tvm.ir.assert_structural_equal(_schedule(by_hand), by_hand)
    # Idempotent: the second run sees "tir.is_scheduled".
    once = _schedule(func)
    tvm.ir.assert_structural_equal(_schedule(once), once)


def test_non_cpu_target_is_refused_and_gpu_functions_get_the_gpu_schedule():
    with pytest.raises(ValueError, match="not a CPU target"):
        tir.transform.DefaultCPUSchedule("cuda")
    with pytest.raises(ValueError):
        tir.transform.DefaultCPUSchedule("llvm -nonesuch=1")
    A = te.placeholder((256, 1024), name="A")
    func = te.create_prim_func([A, topi.exp(A)]).with_attr("target", tvm.target.Target("cuda"))
    out = tir.transform.DefaultCPUSchedule()(tvm.IRModule({"main": func}))["main"]
    # The function's own target kind decides: "cuda" has DefaultGPUSchedule.
    tvm.ir.assert_structural_equal(out, tir.transform.DefaultGPUSchedule()(tvm.IRModule({"main": func}))["main"])
    assert "threadIdx.x" in out.script()


def test_symbolic_shapes():
    n = te.var("n")
    A = te.placeholder((n, 1024), name="A")
    func = te.create_prim_func([A, topi.exp(A)])
    sched = _schedule(func)
    assert tir.ForKind.VECTORIZED in _kinds(sched)
    m = te.var("m")
    B = te.placeholder((64, m), name="B")
    C = te.placeholder((m,), name="C")
    func2 = te.create_prim_func([B, C, topi.add(B, C)])
    sched2 = _schedule(func2)
    assert tir.ForKind.VECTORIZED in _kinds(sched2)
    for rows in (1, 70):
        a = _rand((rows, 1024))
        lib = tvm.build(tvm.IRModule({"main": sched}), target="llvm")
        out = tvm.nd.array(np.zeros((rows, 1024), "float32"))
        lib["main"](tvm.nd.array(a), out)
        np.testing.assert_allclose(out.numpy(), np.exp(a), rtol=1e-5)
    for cols in (3, 37, 64):
        b, c = _rand((64, cols)), _rand((cols,), seed=1)
        lib = tvm.build(tvm.IRModule({"main": sched2}), target="llvm")
        out = tvm.nd.array(np.zeros((64, cols), "float32"))
        lib["main"](tvm.nd.array(b), tvm.nd.array(c), out)
        np.testing.assert_allclose(out.numpy(), b + c, rtol=1e-6)


def test_opaque_blocks_stay_unchanged():
    @tvm.script.ir_module
    class Module:
        @tvm.script.tir.prim_func
        def main(A: tvm.script.tir.Buffer((256, 256), "float32"), B: tvm.script.tir.Buffer((256, 256), "float32")):
            T = tvm.script.tir
            for i, j in T.grid(256, 256):
                with T.block("opaque"):
                    T.reads(A[i, j])
                    T.writes(B[i, j])
                    B[i, j] = A[i, j] * T.float32(2)

    out = tir.transform.DefaultCPUSchedule(TARGET)(Module)["main"]
    assert _kinds(out) == {tir.ForKind.SERIAL}
    tvm.ir.assert_structural_equal(out.body, Module["main"].body)


# ---- in relax.build -----------------------------------------------------------------

def _relax_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((128, 1024), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((1024,), "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit(relax.op.exp(x))
            out = bb.emit_output(relax.op.add(lv, y))
        bb.emit_func_output(out)
    return bb.get()


def _prim_funcs(mod):
    """The PrimFuncs of ``mod`` but VMShapeLower's shape function."""
    return [f for _, f in mod.functions.items()
            if isinstance(f, tir.PrimFunc) and "tir.is_host_func" not in (f.attrs or {})]


def test_relax_build_schedules_legalized_functions_by_default():
    mod = _relax_module()
    legalized = relax.get_pipeline(target=TARGET)(mod)
    funcs = _prim_funcs(legalized)
    assert funcs and all(f.attrs["tir.is_scheduled"] for f in funcs)
    assert all({tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED} <= _kinds(f) for f in funcs)
    with tvm.transform.PassContext(disabled_pass=["DefaultCPUSchedule"]):
        plain = relax.get_pipeline(target=TARGET)(mod)
    assert all(_kinds(f) == {tir.ForKind.SERIAL} and "tir.is_scheduled" not in f.attrs for f in _prim_funcs(plain))
    x, y = _rand((128, 1024)), _rand((1024,), seed=1)
    for ctx in ({}, {"disabled_pass": ["DefaultCPUSchedule"]}):
        with tvm.transform.PassContext(**ctx):
            ex = relax.build(mod, target="llvm")
        res = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(y)).numpy()
        np.testing.assert_allclose(res, np.exp(x) + y, rtol=1e-5)


def test_get_pipeline_options():
    with pytest.raises(TypeError, match="target"):
        relax.get_pipeline("default_build", nonesuch=1)
    with pytest.raises(ValueError, match="neither a CPU target nor a device target with a default schedule"):
        relax.get_pipeline(target="nvptx")



def test_relax_linear_and_batched_matmul_are_scheduled():
    """relax.op.linear / matmul legalized by LegalizeOps (permute_dims + matmul + add)
    are scheduled by relax.build and match NumPy."""
    if not hasattr(relax.op, "linear"):
        pytest.skip("relax.op.linear is not in this build")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 64, 128), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((256, 128), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((256,), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((4, 256, 32), "float32"))
    with bb.function("main", [x, w, b, y]):
        with bb.dataflow():
            h = bb.emit(relax.op.linear(x, w, b))
            out = bb.emit_output(relax.op.matmul(h, y))
        bb.emit_func_output(out)
    mod = bb.get()
    funcs = {f.attrs["global_symbol"] if "global_symbol" in f.attrs else str(i): f
             for i, f in enumerate(_prim_funcs(relax.get_pipeline(target=TARGET)(mod)))}
    matmuls = [f for f in funcs.values() if "T_matmul" in f.script()]
    assert matmuls and all({tir.ForKind.PARALLEL, tir.ForKind.VECTORIZED} <= _kinds(f) for f in matmuls)
    arrays = [_rand((4, 64, 128)), _rand((256, 128), seed=1), _rand((256,), seed=2), _rand((4, 256, 32), seed=3)]
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    res = vm["main"](*[tvm.nd.array(a) for a in arrays]).numpy()
    np.testing.assert_allclose(res, (arrays[0] @ arrays[1].T + arrays[2]) @ arrays[3], rtol=1e-4, atol=1e-3)


def test_relax_nn_ops_are_scheduled():
    """conv2d / relu / max_pool2d and layer_norm / softmax / gelu through LegalizeOps
    and relax.build: every TOPI function scheduled, results as NumPy / PyTorch."""
    torch = pytest.importorskip("torch")
    if not hasattr(relax.op.nn, "conv2d"):
        pytest.skip("relax.op.nn is not in this build")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 4, 16, 16), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((8, 4, 3, 3), "float32"))
    s = relax.Var("s", relax.TensorStructInfo((64, 128), "float32"))
    g = relax.Var("g", relax.TensorStructInfo((128,), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((128,), "float32"))
    with bb.function("main", [x, w, s, g, b]):
        with bb.dataflow():
            c = bb.emit(relax.op.nn.max_pool2d(relax.op.nn.relu(relax.op.nn.conv2d(x, w, padding=1)), 2, 2))
            t = bb.emit(relax.op.nn.gelu(relax.op.nn.softmax(relax.op.nn.layer_norm(s, g, b, axes=[-1]))))
            out = bb.emit_output(relax.Tuple([c, t]))
        bb.emit_func_output(out)
    mod = bb.get()
    funcs = _prim_funcs(relax.get_pipeline(target=TARGET)(mod))
    assert funcs and all(f.attrs["tir.is_scheduled"] for f in funcs)
    assert any(tir.ForKind.VECTORIZED in _kinds(f) for f in funcs)
    arrays = [_rand((2, 4, 16, 16)), _rand((8, 4, 3, 3), seed=1), _rand((64, 128), seed=2) * 4,
              _rand((128,), seed=3), _rand((128,), seed=4)]
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    res = vm["main"](*[tvm.nd.array(a) for a in arrays])
    tx, tw, ts, tg, tb = (torch.from_numpy(a) for a in arrays)
    F = torch.nn.functional
    ref_c = F.max_pool2d(F.relu(F.conv2d(tx, tw, padding=1)), 2, 2).numpy()
    ref_t = F.gelu(torch.softmax(F.layer_norm(ts, (128,), tg, tb), dim=-1)).numpy()
    np.testing.assert_allclose(res[0].numpy(), ref_c, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(res[1].numpy(), ref_t, rtol=1e-4, atol=1e-5)


@tvm.testing.requires_llvm  # the vector width of an -mcpu is LLVM's
def test_before_after_elementwise_on_avx2():
    """The pass on a hand-written elementwise function gives exactly the expected
    module: outer loop parallel, inner loop split by AVX2's 8 float32 lanes and
    vectorized, the function marked scheduled."""
    from tessera.script import tir as T

    @T.prim_func
    def before(A: T.Buffer((64, 1024), "float32"), B: T.Buffer((64, 1024), "float32"),
               C: T.Buffer((64, 1024), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i0, i1 in T.grid(64, 1024):
            with T.block("C"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                C[v0, v1] = A[v0, v1] + B[v0, v1]

    @T.prim_func
    def after(A: T.Buffer((64, 1024), "float32"), B: T.Buffer((64, 1024), "float32"),
              C: T.Buffer((64, 1024), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True, "tir.is_scheduled": True})
        for i0 in T.parallel(64):
            for i1_0 in range(128):
                for i1_1 in T.vectorized(8):
                    with T.block("C"):
                        v0 = T.axis.spatial(64, i0)
                        v1 = T.axis.spatial(1024, i1_0 * 8 + i1_1)
                        C[v0, v1] = A[v0, v1] + B[v0, v1]

    tvm.ir.assert_structural_equal(_schedule(before, "llvm -mcpu=haswell -num-cores=4"), after)
