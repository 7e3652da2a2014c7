"""Winograd conv2d (topi.nn.conv2d_nchw_winograd, legalized from relax.nn.conv2d
by python/tessera/relax/op/nn/convolution.py): the transforms against NumPy, the
choice of the legalization (config switches, constant weight, static shapes, 3x3
stride 1), and whole builds with fused bias / residual / ReLU against PyTorch.
Tolerance: F(4,3) in float32 adds about 1e-6 of the output's magnitude (B^T and
A^T have entries up to 5 and 8), so results are compared at 1e-4 of the largest
output (the direct kernel's tests use 1e-5)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax, tir, topi  # noqa: E402

TARGET = "llvm -num-cores=4"
ON = {"relax.conv2d_winograd": True}


def _module(x_shape, w, padding=1, bias=None, residual=False, relu=True, batch=None):
    shape = list(x_shape)
    if batch is not None:
        shape[0] = tir.Var(batch, "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    oh, ow = x_shape[2] + 2 * padding - 2, x_shape[3] + 2 * padding - 2
    params = [x]
    if residual:
        params.append(relax.Var("r", relax.TensorStructInfo([shape[0], w.shape[0], oh, ow], "float32")))
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), padding=padding))
            if bias is not None:
                y = bb.emit(relax.op.add(y, relax.const(bias.reshape(1, -1, 1, 1))))
            if residual:
                y = bb.emit(relax.op.add(y, params[1]))
            if relu:
                y = bb.emit(relax.op.nn.relu(y))
            out = bb.emit_output(y)
        bb.emit_func_output(out)
    return bb.get()


def _legalized_kernels(mod, config):
    with tvm.transform.PassContext(config=config):
        with tvm.target.Target(TARGET):
            mod = relax.transform.LegalizeOps()(mod)
    return [gv.name_hint for gv in mod.get_global_vars() if isinstance(mod[gv], tir.PrimFunc)]


def _expected(x, w, padding, b=None, r=None, relu=True):
    out = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w),
                                     None if b is None else torch.from_numpy(b), padding=padding)
    if r is not None:
        out = out + torch.from_numpy(r)
    return (torch.relu(out) if relu else out).numpy()


def _close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


@pytest.mark.parametrize("m", [2, 4, 6])
def test_transform_matrices_compute_a_correlation(m):
    # y = A^T [(G g) * (B^T d)] is the 3-tap correlation of d, in float64 to rounding.
    from tessera.topi.nn.conv2d_winograd import winograd_matrices
    at, g, bt = winograd_matrices(m)
    rng = np.random.default_rng(m)
    d, k = rng.standard_normal(m + 2), rng.standard_normal(3)
    np.testing.assert_allclose(at @ ((g @ k) * (bt @ d)), np.correlate(d, k, "valid"), rtol=0, atol=1e-12)


def test_weight_transform_panels():
    w = np.random.default_rng(1).standard_normal((48, 2, 3, 3)).astype("float32")
    u = topi.nn.conv2d_winograd_weight_transform(w, 2)
    assert u.shape == (4, 4, 3, 2, 16)  # 48 output channels: three panels of 16
    np.testing.assert_array_equal(u[:, :, 2, :, 5], topi.nn.conv2d_winograd_weight_transform(w[37:38], 2)[:, :, 0, :, 0])


def test_weight_transform_matches_numpy():
    from tessera.topi.nn.conv2d_winograd import winograd_matrices
    w = np.random.default_rng(0).standard_normal((5, 3, 3, 3)).astype("float32")
    u = topi.nn.conv2d_winograd_weight_transform(w, 4)
    _, g, _ = winograd_matrices(4)
    assert u.dtype == np.float32 and u.shape == (6, 6, 1, 3, 5)  # one panel of 5 output channels
    np.testing.assert_allclose(u[:, :, 0, 1, 2], g @ w[2, 1].astype(np.float64) @ g.T, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="3x3"):
        topi.nn.conv2d_winograd_weight_transform(np.zeros((4, 4, 5, 5)), 4)


def test_legalization_choice():
    w = np.zeros((16, 8, 3, 3), "float32")
    mod = _module((1, 8, 12, 12), w)
    assert "conv2d_winograd" in _legalized_kernels(mod, ON)
    for config in ({"relax.conv2d_winograd": False}, {**ON, "relax.conv2d_packed": False}):
        assert "conv2d_winograd" not in _legalized_kernels(mod, config)
    # Not a 3x3 stride-1 undilated conv, a weight that is a parameter, a symbolic batch: not Winograd.
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((1, 8, 12, 12), "float32"))
    wv = relax.Var("w", relax.TensorStructInfo((16, 8, 3, 3), "float32"))
    with bb.function("main", [x, wv]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.nn.conv2d(x, wv, padding=1))
        bb.emit_func_output(out)
    assert "conv2d_winograd" not in _legalized_kernels(bb.get(), ON)
    assert "conv2d_winograd" not in _legalized_kernels(_module((1, 8, 12, 12), w, batch="n"), ON)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), strides=2, padding=1))
            out = bb.emit_output(relax.op.nn.conv2d(y, relax.const(np.zeros((16, 16, 3, 3), "float32")),
                                                    dilation=2, padding=2))
        bb.emit_func_output(out)
    assert "conv2d_winograd" not in _legalized_kernels(bb.get(), ON)


def _transformed_weight_shape(mod, config):
    with tvm.transform.PassContext(config=config):
        with tvm.target.Target(TARGET):
            mod = relax.transform.LegalizeOps()(mod)
    shapes = [[int(d) for d in c.data.shape] for c in _constants(mod["main"])]
    return [s for s in shapes if len(s) == 5]


def _constants(func):
    found = []
    relax.analysis.post_order_visit(func, lambda e: found.append(e) if isinstance(e, relax.Constant) else None)
    return found


def test_default_choice_by_shape():
    # Unset config: Winograd from 16 channels in and out (measured faster there), F(4,3) from
    # an 8 x 8 output, F(2,3) below (7 x 7); fewer channels, or a transformed input over
    # 16 MiB (measured slower), keep the packed kernel.
    wide = _module((1, 64, 14, 14), np.zeros((64, 64, 3, 3), "float32"))
    assert "conv2d_winograd" in _legalized_kernels(wide, {})
    assert _transformed_weight_shape(wide, {}) == [[6, 6, 2, 64, 32]]
    small = _module((1, 64, 7, 7), np.zeros((64, 64, 3, 3), "float32"))
    assert _transformed_weight_shape(small, {}) == [[4, 4, 2, 64, 32]]
    thin = _module((1, 8, 28, 28), np.zeros((64, 8, 3, 3), "float32"))
    assert "conv2d_winograd" not in _legalized_kernels(thin, {})
    big = _module((8, 32, 112, 112), np.zeros((32, 32, 3, 3), "float32"))  # 36 x 32 x 6272 floats: 28 MiB
    assert "conv2d_winograd" not in _legalized_kernels(big, {})
    assert "conv2d_winograd" in _legalized_kernels(_module((2, 32, 112, 112), np.zeros((32, 32, 3, 3), "float32")),
                                                   {})
    assert "conv2d_winograd" not in _legalized_kernels(wide, {"relax.conv2d_winograd": False})
    # The batched GEMM needs the matmul rule's register tile: 9 tiles (12 x 12) or 24 output
    # channels would leave it to the generic schedule, so the packed kernel stays.
    assert "conv2d_winograd" not in _legalized_kernels(_module((1, 64, 12, 12), np.zeros((64, 64, 3, 3), "float32")), {})
    assert "conv2d_winograd" not in _legalized_kernels(_module((1, 32, 28, 28), np.zeros((24, 32, 3, 3), "float32")), {})
    assert "conv2d_winograd" in _legalized_kernels(_module((1, 64, 16, 16), np.zeros((64, 64, 3, 3), "float32")), {})
    assert "conv2d_winograd" in _legalized_kernels(_module((1, 64, 12, 12), np.zeros((64, 64, 3, 3), "float32")),
                                                   {"relax.conv2d_winograd": True})


CASES = [  # (N, C, H, W), K, padding, bias, residual, relu
    ((1, 16, 14, 14), 32, 1, True, False, True),   # tiles cover the output exactly
    ((1, 13, 11, 9), 20, 1, True, True, True),     # odd H/W (partial edge tiles), C/K not multiples of 16
    ((3, 8, 10, 13), 12, 0, False, False, False),  # batch 3, unpadded, conv written to the output
    ((1, 24, 5, 6), 16, 1, True, True, False),     # under 8 x 8: F(2,3)
]


@pytest.mark.parametrize("x_shape,k,padding,bias,residual,relu", CASES)
def test_matches_pytorch(x_shape, k, padding, bias, residual, relu):
    rng = np.random.default_rng(sum(x_shape))
    x = rng.standard_normal(x_shape).astype("float32")
    w = (rng.standard_normal((k, x_shape[1], 3, 3)) / np.sqrt(9 * x_shape[1])).astype("float32")
    b = rng.standard_normal(k).astype("float32") if bias else None
    oh, ow = x_shape[2] + 2 * padding - 2, x_shape[3] + 2 * padding - 2
    r = rng.standard_normal((x_shape[0], k, oh, ow)).astype("float32") if residual else None
    mod = _module(x_shape, w, padding, b, residual, relu)
    assert "conv2d_winograd" in _legalized_kernels(mod, ON)
    with tvm.transform.PassContext(config=ON):
        ex = relax.build(mod, target=TARGET)
    args = [tvm.nd.array(x)] + ([tvm.nd.array(r)] if residual else [])
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](*args).numpy()
    _close(got, _expected(x, w, padding, b, r, relu))


def test_symbolic_batch_falls_back_to_the_packed_kernel():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 9, 9)).astype("float32")
    w = rng.standard_normal((16, 8, 3, 3)).astype("float32")
    with tvm.transform.PassContext(config=ON):
        ex = relax.build(_module((2, 8, 9, 9), w, batch="n"), target=TARGET)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    for n in (1, 2):
        _close(vm["main"](tvm.nd.array(x[:n])).numpy(), _expected(x[:n], w, 1))


def test_topi_rejects_mismatched_transforms():
    from tessera import te
    x = te.placeholder((1, 8, 6, 6), name="x")
    bt, at = topi.nn.winograd_transform_constants(4)
    u = te.placeholder((6, 6, 1, 4, 16), name="u")  # 4 channels, the data has 8
    with pytest.raises(ValueError, match="channels"):
        topi.nn.conv2d_nchw_winograd(x, u, te.placeholder(bt.shape, name="bt"), te.placeholder(at.shape, name="at"), 1)
