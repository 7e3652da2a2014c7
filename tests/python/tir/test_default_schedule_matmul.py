"""DefaultCPUSchedule's packed-panel matmul rule (tir/transform/default_schedule_matmul.cc):
matmul, dense-as-matmul, batch matmul and matmul with elementwise epilogues (bias, GELU,
residual) compute what NumPy/PyTorch compute over several shapes (odd sizes fall back to
the generic schedule; symbolic batch); the scheduled loops have the promised structure
(B's column panel packed into a compact K x J buffer unless B's rows are that panel, J = two vectors, R unrolled rows,
a parallel outer loop, the epilogue on the tile); PassContext config
tir.default_schedule.packed_matmul=False leaves matmuls to the generic schedule."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, te, tir, topi

AVX512 = "llvm -mcpu=skylake-avx512 -num-cores=4"  # 16 float32 lanes: J = 32, R = 8
AVX2 = "llvm -mcpu=haswell -num-cores=4"           # 8 lanes: J = 16, R = 4
PACKED = "tir.default_schedule.packed_matmul"
# Loop structures follow the vector width of an -mcpu, which LLVM knows.
pytestmark = tvm.testing.requires_llvm.marks()


def _rand(shape, seed=0):
    return (np.random.default_rng(seed).random(shape) - 0.5).astype("float32")


def _schedule(func, target=AVX512, packed=True):
    with tvm.transform.PassContext(config={PACKED: packed}):
        return tir.transform.DefaultCPUSchedule(target)(tvm.IRModule({"main": func}))["main"]


def _run(func, arrays, out_shape):
    lib = tvm.build(tvm.IRModule({"main": func}), target="llvm")
    out = tvm.nd.array(np.zeros(out_shape, "float32"))
    lib["main"](*[tvm.nd.array(a) for a in arrays], out)
    return out.numpy()


def _loops(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return [(l.kind, int(l.extent) if isinstance(l.extent, tir.IntImm) else None) for l in reversed(found)]


def _check(tensors, arrays, expected, packed_expected=True, target=AVX512):
    func = te.create_prim_func(tensors)
    sched = _schedule(func, target)
    assert ('_global")' in sched.script()) == packed_expected, sched.script()
    out = _run(sched, arrays, expected.shape)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    return sched


@pytest.mark.parametrize("m,k,n,packed", [(128, 256, 128, True), (64, 96, 48, True), (24, 1000, 64, True),
                                          (8, 7, 32, False),  # B's rows are one panel: read in place
                                          (33, 64, 96, True), (197, 128, 64, True),
                                          (33, 70, 50, False), (1, 256, 512, False), (13, 32, 64, False)])
def test_matmul_matches_numpy(m, k, n, packed):
    A, B = te.placeholder((m, k), name="A"), te.placeholder((k, n), name="B")
    a, b = _rand((m, k)), _rand((k, n), 1)
    _check([A, B, topi.nn.matmul(A, B)], [a, b], a @ b, packed_expected=packed)


def test_batch_matmul_as_in_attention():
    Q, Kt = te.placeholder((2, 4, 128, 64), name="Q"), te.placeholder((2, 4, 64, 96), name="Kt")
    q, kt = _rand((2, 4, 128, 64)), _rand((2, 4, 64, 96), 1)
    _check([Q, Kt, topi.matmul(Q, Kt)], [q, kt], q @ kt)


def test_matmul_with_bias_gelu_and_residual_epilogue():
    torch = pytest.importorskip("torch")
    X, W = te.placeholder((1, 64, 96), name="X"), te.placeholder((96, 160), name="W")
    Bv, R = te.placeholder((160,), name="Bv"), te.placeholder((1, 64, 160), name="R")
    out = topi.add(topi.nn.gelu(topi.add(topi.matmul(X, W), Bv)), R)
    x, w, bv, r = _rand((1, 64, 96)), _rand((96, 160), 1), _rand((160,), 2), _rand((1, 64, 160), 3)
    ref = (torch.nn.functional.gelu(torch.from_numpy(x) @ torch.from_numpy(w) + torch.from_numpy(bv))
           + torch.from_numpy(r)).numpy()
    sched = _check([X, W, Bv, R, out], [x, w, bv, r], ref)
    # The epilogue runs on each tile inside the parallel loop, not as a second nest.
    (par,) = [n for n in _fors(sched) if n.kind == tir.ForKind.PARALLEL]
    inner = []
    tir.stmt_functor.post_order_visit(par.body, lambda n: inner.append(n.name_hint) if isinstance(n, tir.Block) else None)
    assert any("gelu" in name for name in inner), sched.script()


def _fors(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.For) else None)
    return list(reversed(found))


@pytest.mark.parametrize("target,cols,rows", [(AVX512, 32, 8), (AVX2, 16, 4)])
def test_loop_structure_is_the_packed_panel_kernel(target, cols, rows):
    A, B = te.placeholder((128, 256), name="A"), te.placeholder((256, 512), name="B")
    sched = _schedule(te.create_prim_func([A, B, topi.nn.matmul(A, B)]), target)
    kinds = _loops(sched)
    assert kinds[0][0] == tir.ForKind.PARALLEL  # the outer loop: batch x column panels
    assert (tir.ForKind.UNROLLED, rows) in kinds
    assert (tir.ForKind.VECTORIZED, cols) in kinds
    lowered = tvm.lower(tvm.IRModule({"main": sched}))["main"].script()
    # B's panel: a compact K x J buffer allocated inside the parallel loop (one per thread).
    panel = f"T.allocate([T.int64({256 * cols})]"
    assert panel in lowered, lowered
    assert lowered.index(panel) > lowered.index("T.parallel")


def test_opt_out_keeps_the_generic_schedule():
    A, B = te.placeholder((128, 256), name="A"), te.placeholder((256, 512), name="B")
    func = te.create_prim_func([A, B, topi.nn.matmul(A, B)])
    sched = _schedule(func, packed=False)
    assert '_global")' not in sched.script()
    a, b = _rand((128, 256)), _rand((256, 512), 1)
    np.testing.assert_allclose(_run(sched, [a, b], (128, 512)), a @ b, rtol=1e-4, atol=1e-4)


def test_relax_build_symbolic_batch_and_constant_weight():
    """relax.build: x (n, 40, 64) @ W (constant) + b, GELU; n symbolic; vs PyTorch."""
    torch = pytest.importorskip("torch")
    n = tvm.tir.Var("n", "int64")
    w, bias = _rand((64, 96), 1), _rand((96,), 2)
    x = relax.Var("x", relax.TensorStructInfo((n, 40, 64), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(relax.op.matmul(x, relax.const(w)))
            h = bb.emit(relax.op.nn.gelu(relax.op.add(h, relax.const(bias))))
            out = bb.emit_output(h)
        bb.emit_func_output(out)
    ex = relax.build(bb.get(), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for batch in (1, 3):
        xs = _rand((batch, 40, 64), batch)
        ref = torch.nn.functional.gelu(torch.from_numpy(xs) @ torch.from_numpy(w) + torch.from_numpy(bias)).numpy()
        np.testing.assert_allclose(vm["main"](tvm.nd.array(xs)).numpy(), ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("target", ["llvm -mcpu=skylake-avx512 -num-cores=1", AVX512])
@pytest.mark.parametrize("xs,ws", [((1, 128, 256), (256, 512)), ((1, 4, 128, 64), (1, 4, 64, 128)),
                                   ((8, 12, 128, 64), (8, 12, 64, 128))])  # BERT's Q*K^T at batch 8: 384 panels
def test_accumulator_tile_is_compact_with_constant_indices(target, xs, ws):
    """x (1, M, K) @ W as the importers give it (a unit batch loop, or the batch fused into
    the parallel loop) and attention's (1, H, M, K) @ (1, H, K, N) (heads and column panels
    fused): the R x J accumulators lower to a compact per-tile buffer indexed by constants
    (registers for LLVM), B's panel to a compact K x J buffer, not full-size buffers
    indexed by the parallel loop."""
    X, W = te.placeholder(xs, name="X"), te.placeholder(ws, name="W")
    sched = _schedule(te.create_prim_func([X, W, topi.matmul(X, W)]), target)
    lowered = tvm.lower(tvm.IRModule({"main": sched}))["main"].script()
    assert "T.allocate([T.int64(256)]" in lowered, lowered  # 8 x 32
    assert f"T.allocate([T.int64({ws[-2] * 32})]" in lowered, lowered  # K x 32
    update = [line for line in lowered.splitlines() if "T_matmul_local_1[" in line and "* W_global" in line]
    assert update and all("//" not in line.split("] = ")[0] for line in update), lowered
