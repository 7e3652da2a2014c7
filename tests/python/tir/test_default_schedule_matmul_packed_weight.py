"""relax.matmul with a weight computed from constants (linear's permute_dims of a
constant included) legalizes to topi.matmul_packed: the weight is packed in column
panels at build time (FoldConstant) and the scheduled kernel reads it in place, with no
per-call panel copy; results match PyTorch (batched, symbolic batch, bias + GELU
epilogue, 16-wide panels); a weight that is a parameter keeps the plain kernel."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax, tir  # noqa: E402


def _rand(shape, seed=0):
    return (np.random.default_rng(seed).random(shape) - 0.5).astype("float32")


def _linear_module(x_shape, w, bias, weight_param=False):
    """x @ W.T + bias, GELU (W: (N, K) as torch.nn.Linear stores it)."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    params = [x]
    wv = relax.const(w)
    if weight_param:
        wv = relax.Var("w", relax.TensorStructInfo(w.shape, "float32"))
        params.append(wv)
    with bb.function("main", params):
        with bb.dataflow():
            h = bb.emit(relax.op.linear(x, wv, relax.const(bias)))
            out = bb.emit_output(relax.op.nn.gelu(h))
        bb.emit_func_output(out)
    return bb.get()


def _expected(x, w, bias):
    return torch.nn.functional.gelu(torch.nn.functional.linear(torch.from_numpy(x), torch.from_numpy(w),
                                                               torch.from_numpy(bias))).numpy()


@pytest.mark.parametrize("x_shape,n", [((2, 24, 64), 96), ((40, 48), 32), ((1, 13, 32), 48),
                                       # no panel width divides N (a classifier's 1000 classes): the last
                                       # panel is zero-padded, the padding computed and dropped by the unpack
                                       ((8, 96), 1000), ((1, 160), 1000), ((3, 5, 64), 100), ((4, 40), 10),
                                       ((13, 48), 67)])
def test_matches_pytorch(x_shape, n):
    x, w, bias = _rand(x_shape), _rand((n, x_shape[-1]), 1), _rand((n,), 2)
    ex = relax.build(_linear_module(x_shape, w, bias), target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(got, _expected(x, w, bias), rtol=1e-4, atol=1e-5)


def test_symbolic_batch():
    n = tir.Var("n", "int64")
    w, bias = _rand((64, 32), 1), _rand((64,), 2)
    vm = relax.VirtualMachine(relax.build(_linear_module((n, 8, 32), w, bias), target="llvm"), tvm.cpu())
    for batch in (1, 3):
        x = _rand((batch, 8, 32), batch)
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), _expected(x, w, bias), rtol=1e-4, atol=1e-5)


def _pipeline(mod):
    # relax.build packs by default; a LegalizeOps run by hand only when asked.
    seq = tvm.transform.Sequential([relax.transform.LegalizeOps(), relax.transform.FoldConstant(),
                                    relax.transform.DeadCodeElimination()])
    with tvm.transform.PassContext(config={"relax.matmul_packed": True}):
        return seq(mod)


def test_legalize_ops_by_hand_keeps_one_plain_matmul_kernel():
    """Outside relax.build, LegalizeOps gives TVM's one kernel per op (no packing kernel)."""
    mod = relax.transform.LegalizeOps()(_linear_module((1, 16, 64), _rand((96, 64), 1), _rand((96,), 2)))
    names = [gv.name_hint for gv in mod.get_global_vars()]
    assert not [nm for nm in names if "pack" in nm], names


def test_weight_folded_packed_and_read_in_place():
    x_shape, w, bias = (1, 16, 64), _rand((96, 64), 1), _rand((96,), 2)
    mod = _pipeline(_linear_module(x_shape, w, bias))
    # The packing kernel was evaluated at build time: only the constant is left.
    names = [gv.name_hint for gv in mod.get_global_vars()]
    assert not [nm for nm in names if "weight_pack" in nm or "transpose" in nm], names
    consts = []
    relax.analysis.post_order_visit(mod["main"], lambda e: consts.append(e) if isinstance(e, relax.Constant) else None)
    packed = [c.data.numpy() for c in consts if len(c.data.shape) == 3]
    assert len(packed) == 1
    np.testing.assert_array_equal(packed[0], w.T.reshape(64, 3, 32).transpose(1, 0, 2))
    # The scheduled kernel reads the packed weight in place: no panel buffer per call.
    matmul = next(gv for gv in mod.get_global_vars() if gv.name_hint.startswith("matmul"))
    sched = tir.transform.DefaultCPUSchedule("llvm -mcpu=skylake-avx512 -num-cores=4")(
        tvm.IRModule({"main": mod[matmul]}))["main"]
    text = sched.script()
    assert 'scope="local"' in text and "T.parallel" in text, text
    assert '_global")' not in text, text


def test_weight_parameter_keeps_the_plain_kernel():
    x_shape, w, bias = (1, 16, 64), _rand((96, 64), 1), _rand((96,), 2)
    mod = relax.transform.LegalizeOps()(_linear_module(x_shape, w, bias, weight_param=True))
    assert not [gv for gv in mod.get_global_vars() if "weight_pack" in gv.name_hint]
    x = _rand(x_shape)
    ex = relax.build(_linear_module(x_shape, w, bias, weight_param=True), target="llvm")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(w)).numpy()
    np.testing.assert_allclose(got, _expected(x, w, bias), rtol=1e-4, atol=1e-5)


def test_padded_columns_with_symbolic_batch():
    n = tir.Var("n", "int64")
    w, bias = _rand((1000, 64), 1), _rand((1000,), 2)
    vm = relax.VirtualMachine(relax.build(_linear_module((n, 64), w, bias), target="llvm"), tvm.cpu())
    for batch in (1, 8, 11):
        x = _rand((batch, 64), batch)
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), _expected(x, w, bias), rtol=1e-4, atol=1e-5)


def test_padded_weight_is_packed_and_the_kernel_is_the_panel_kernel():
    """(8, 2048) x 1000 classes as ResNet-50's fc at batch 8: a (32, K, 32) constant whose
    columns past 1000 are zero, read in place by the packed-panel kernel (parallel outer
    loop, 8 unrolled rows, 32-wide vectors), not the generic schedule's predicated tiles."""
    x_shape, w, bias = (8, 256), _rand((1000, 256), 1), _rand((1000,), 2)
    mod = _pipeline(_linear_module(x_shape, w, bias))
    consts = []
    relax.analysis.post_order_visit(mod["main"], lambda e: consts.append(e) if isinstance(e, relax.Constant) else None)
    (packed,) = [c.data.numpy() for c in consts if len(c.data.shape) == 3]
    assert packed.shape == (32, 256, 32)
    padded = np.concatenate([w.T, np.zeros((256, 24), "float32")], axis=1)
    np.testing.assert_array_equal(packed, padded.reshape(256, 32, 32).transpose(1, 0, 2))
    matmul = next(gv for gv in mod.get_global_vars() if gv.name_hint.startswith("matmul"))
    sched = tir.transform.DefaultCPUSchedule("llvm -mcpu=skylake-avx512 -num-cores=4")(
        tvm.IRModule({"main": mod[matmul]}))["main"]
    loops = []
    tir.stmt_functor.post_order_visit(sched.body, lambda s: loops.append(s) if isinstance(s, tir.For) else None)
    kinds = [(l.kind, int(l.extent)) for l in loops]
    assert (tir.ForKind.UNROLLED, 8) in kinds and (tir.ForKind.VECTORIZED, 32) in kinds, sched.script()
    assert any(k == tir.ForKind.PARALLEL for k, _ in kinds), sched.script()
    # The tile computes whole panels: no predicate on the reduction (the unpack drops the padding).
    realizes = []
    tir.stmt_functor.post_order_visit(sched.body, lambda s: realizes.append(s) if isinstance(s, tir.BlockRealize) else None)
    tiles = [r for r in realizes if r.block.name_hint.startswith("matmul_packed")]
    assert tiles and all(isinstance(r.predicate, tir.IntImm) and int(r.predicate) == 1 for r in tiles), sched.script()

