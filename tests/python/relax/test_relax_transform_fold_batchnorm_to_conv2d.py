"""relax.transform.FoldBatchnormToConv2d: inference batch_norm after a
constant-weight conv2d (with or without a conv bias) becomes one conv2d plus
a constant bias; results match PyTorch; batch_norms it cannot fold stay."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tessera as tvm  # noqa: E402
from tessera import relax  # noqa: E402
from tessera.relax.frontend.torch import from_exported_program  # noqa: E402


def _randomize_bn(model, seed=0):
    gen = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen))
            m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(n, generator=gen))


def _import(model, shape):
    torch.manual_seed(0)
    x = torch.randn(*shape)
    mod = from_exported_program(torch.export.export(model, (x,)), unwrap_unit_return_tuple=True)
    return mod, x


def _ops(mod):
    text = mod.script()
    return {name: text.count(f"R.nn.{name}(") for name in ("conv2d", "batch_norm")}


def _run(mod, x):
    ex = relax.build(mod, target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x.numpy())).numpy()


@pytest.mark.parametrize("bias,stride,groups,eps", [(False, 1, 1, 1e-5), (True, 2, 1, 1e-3), (False, 1, 4, 1e-5)])
def test_fold_matches_pytorch(bias, stride, groups, eps):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Conv2d(8, 12, 3, stride, 1, bias=bias, groups=groups),
                                torch.nn.BatchNorm2d(12, eps=eps), torch.nn.ReLU()).eval()
    _randomize_bn(model)
    mod, x = _import(model, (2, 8, 11, 9))
    folded = relax.transform.FoldBatchnormToConv2d()(mod)
    assert _ops(folded) == {"conv2d": 1, "batch_norm": 0}
    expected = model(x).detach().numpy()
    got = _run(folded, x)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
    # The default pipeline folds it too, with the same result.
    np.testing.assert_allclose(_run(mod, x), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())


def test_conv_output_used_twice_is_not_folded():
    class TwoUses(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = torch.nn.Conv2d(3, 4, 1, bias=False), torch.nn.BatchNorm2d(4)

        def forward(self, x):
            c = self.conv(x)
            return self.bn(c) + c

    model = TwoUses().eval()
    _randomize_bn(model)
    mod, x = _import(model, (1, 3, 5, 5))
    folded = relax.transform.FoldBatchnormToConv2d()(mod)
    assert _ops(folded) == {"conv2d": 1, "batch_norm": 1}
    expected = model(x).detach().numpy()
    np.testing.assert_allclose(_run(mod, x), expected, rtol=1e-4, atol=1e-5)


def test_batch_norm_without_conv_is_left_alone():
    model = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.BatchNorm2d(3)).eval()
    _randomize_bn(model)
    mod, _ = _import(model, (1, 3, 4, 4))
    assert _ops(relax.transform.FoldBatchnormToConv2d()(mod))["batch_norm"] == 1


def test_opt_out_keeps_batch_norm():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).eval()
    _randomize_bn(model)
    mod, x = _import(model, (1, 3, 6, 6))
    with tvm.transform.PassContext(disabled_pass=["FoldBatchnormToConv2d"]):
        got = _run(mod, x)
    expected = model(x).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
