"""Grouped (not depthwise) conv2d on the packed kernel (topi.nn.conv2d_nchw_packed
with groups, legalized from relax.nn.conv2d by python/tessera/relax/op/nn/convolution.py):
the weight packing against NumPy, the legalization's choice (wide groups, narrow groups of
4 sharing a block, the "relax.conv2d_grouped_packed" switch, what stays generic), and
whole builds with the fused bias + ReLU against PyTorch over groups x channels per group x
stride x kernel x batch, odd sizes, dilation, a weight that is a parameter."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax, te, tir, topi  # noqa: E402

TARGET = "llvm -num-cores=1"


def _module(x_shape, w, groups, stride=1, padding=None, dilation=1, const_weight=True):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    params = [x]
    if const_weight:
        wv = relax.const(w)
    else:
        wv = relax.Var("w", relax.TensorStructInfo(w.shape, "float32"))
        params.append(wv)
    b = np.linspace(-1, 1, w.shape[0]).astype("float32")
    padding = w.shape[-1] // 2 if padding is None else padding
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, wv, strides=stride, padding=padding, dilation=dilation, groups=groups))
            y = bb.emit(relax.op.add(y, relax.const(b.reshape(1, -1, 1, 1))))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get(), b


def _conv_blocks(mod, config=None):
    """Block names of the legalized conv2d kernel."""
    with tvm.transform.PassContext(config=config or {}):
        with tvm.target.Target(TARGET):
            mod = relax.transform.LegalizeOps()(mod)
    names = []
    for gv in mod.get_global_vars():
        if gv.name_hint.startswith("conv2d") and isinstance(mod[gv], tir.PrimFunc):
            tir.stmt_functor.post_order_visit(
                mod[gv].body, lambda n: names.append(n.name_hint) if isinstance(n, tir.Block) else None)
    return names


def _run(x, w, groups, stride=1, padding=None, dilation=1, const_weight=True, config=None):
    mod, b = _module(x.shape, w, groups, stride, padding, dilation, const_weight)
    with tvm.transform.PassContext(config=config or {}):
        ex = relax.build(mod, target=TARGET)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    args = [tvm.nd.array(x)] + ([] if const_weight else [tvm.nd.array(w)])
    got = vm["main"](*args).numpy()
    p = w.shape[-1] // 2 if padding is None else padding
    t, left, bottom, right = (p,) * 4 if isinstance(p, int) else p  # relax order: top, left, bottom, right
    tx = torch.nn.functional.pad(torch.from_numpy(x), (left, right, t, bottom))
    want = torch.relu(torch.nn.functional.conv2d(tx, torch.from_numpy(w), torch.from_numpy(b), stride=stride,
                                                 dilation=dilation, groups=groups)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    return mod


def _data(n, c, k, cpg, ks, hw, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, hw, hw)).astype("float32")
    w = (rng.standard_normal((k, cpg, ks, ks)) / np.sqrt(cpg * ks * ks)).astype("float32")
    return x, w


@pytest.mark.parametrize("out_per_group,block", [(4, 8), (8, 8), (16, 16), (24, 8), (64, 16), (2, None),
                                                 (6, None)])
def test_group_block(out_per_group, block):
    assert topi.nn.conv2d_group_block(out_per_group * 4, 4) == block


@pytest.mark.parametrize("k,cpg,groups", [(32, 3, 2), (32, 5, 8), (24, 2, 6)])
def test_pack_weight_kernel_matches_numpy(k, cpg, groups):
    # The kernel that packs a weight parameter and the NumPy packing of a constant agree,
    # zeros off the block diagonal included (narrow groups of 4 in a block of 8).
    block = topi.nn.conv2d_group_block(k, groups)
    w = np.random.default_rng(1).standard_normal((k, cpg, 3, 3)).astype("float32")
    W = te.placeholder(w.shape, name="W")
    P = topi.nn.conv2d_pack_weight(W, block, groups)
    f = tvm.build(te.create_prim_func([W, P]), target="llvm")
    out = tvm.nd.empty([int(d) for d in P.shape], "float32")
    f(tvm.nd.array(w), out)
    want = topi.nn.conv2d_pack_weight_numpy(w, block, groups)
    np.testing.assert_array_equal(out.numpy(), want)
    # Each output channel's weights sit once, under its own group's input channels.
    assert np.count_nonzero(want) == np.count_nonzero(w)


def test_legalization_choice():
    x, w = _data(1, 64, 64, 16, 3, 8)
    assert "conv2d_nchw_packed" in _conv_blocks(_module(x.shape, w, 4)[0])
    off = _conv_blocks(_module(x.shape, w, 4)[0], {"relax.conv2d_grouped_packed": False})
    assert "group_conv2d_nchw" in off and "conv2d_nchw_packed" not in off
    off = _conv_blocks(_module(x.shape, w, 4)[0], {"relax.conv2d_packed": False})
    assert "conv2d_nchw_packed" not in off
    # Narrow groups of 4 output channels share a block; of 2 they stay generic; depthwise too.
    x, w = _data(1, 128, 128, 4, 3, 8)
    assert "conv2d_nchw_packed" in _conv_blocks(_module(x.shape, w, 32)[0])
    x, w = _data(1, 64, 64, 2, 3, 8)
    assert "conv2d_nchw_packed" not in _conv_blocks(_module(x.shape, w, 32)[0])
    # Narrow groups over rows of whole 16-lane vectors at stride 1 stay generic (faster there).
    x, w = _data(1, 128, 128, 4, 3, 32)
    assert "conv2d_nchw_packed" not in _conv_blocks(_module(x.shape, w, 32)[0])
    assert "conv2d_nchw_packed" in _conv_blocks(_module(x.shape, w, 32, stride=2)[0])
    assert "conv2d_nchw_packed" in _conv_blocks(_module(x.shape, w, 32, padding=0)[0])  # 30 wide
    x, w = _data(1, 128, 128, 8, 3, 32)
    assert "conv2d_nchw_packed" in _conv_blocks(_module(x.shape, w, 16)[0])  # wide groups: packed
    x, w = _data(1, 64, 64, 1, 3, 8)
    assert "conv2d_nchw_packed" not in _conv_blocks(_module(x.shape, w, 64)[0])
    x, w = _data(1, 64, 32, 4, 3, 8)
    assert "conv2d_nchw_packed" not in _conv_blocks(_module(x.shape, w, 16)[0])


# groups x channels per group (in = out) x stride x kernel x batch x size: every
# groups / channels-per-group pair, the other parameters cycling through their values.
CASES = [(g, cpg, s, ks, n, hw) for i, (g, cpg) in enumerate((g, cpg) for g in (2, 4, 32) for cpg in (4, 8, 16, 64))
         for s, ks, n, hw in [((1, 2)[i % 2], (3, 1)[(i // 2) % 2], (1, 3)[(i // 4) % 2], (13, 7)[i % 3 == 2])]]
CASES += [(32, 4, 2, 3, 3, 13), (2, 8, 1, 1, 3, 13), (4, 16, 2, 1, 1, 7), (4, 8, 1, 3, 3, 9)]


@pytest.mark.parametrize("groups,cpg,stride,ks,batch,hw", CASES)
def test_matches_pytorch(groups, cpg, stride, ks, batch, hw):
    if groups * cpg > 256 and batch > 1:
        batch = 1  # keep the widest cases quick
    x, w = _data(batch, groups * cpg, groups * cpg, cpg, ks, hw)
    mod = _run(x, w, groups, stride)
    assert "conv2d_nchw_packed" in _conv_blocks(mod)


@pytest.mark.parametrize("cin,cout,groups", [(16, 32, 4), (32, 16, 4), (12, 24, 3)])
def test_different_in_and_out_channels_per_group(cin, cout, groups):
    x, w = _data(1, cin, cout, cin // groups, 3, 11)
    _run(x, w, groups)
    _run(x, w, groups, stride=2, padding=(0, 1, 2, 1), dilation=2)


@pytest.mark.parametrize("groups,cpg", [(2, 16), (8, 4)])
def test_weight_parameter_and_switch_off(groups, cpg):
    x, w = _data(2, groups * cpg, groups * cpg, cpg, 3, 9)
    _run(x, w, groups, const_weight=False)
    _run(x, w, groups, config={"relax.conv2d_grouped_packed": False})


def test_symbolic_batch():
    # The batch may stay symbolic (as in a dynamic-batch ONNX import): one build, two batches.
    _, w = _data(1, 32, 32, 4, 3, 9)
    mod, b = _module((tir.Var("n", "int64"), 32, 9, 9), w, 8)
    assert "conv2d_nchw_packed" in _conv_blocks(mod)
    vm = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())
    for n in (1, 3):
        x, _ = _data(n, 32, 32, 4, 3, 9, seed=n)
        want = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                                                     padding=1, groups=8)).numpy()
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), want, rtol=1e-5, atol=1e-5)
