"""torch.export dynamic shapes (torch.export.Dim) import as symbolic Relax shapes: a
model exported with a dynamic batch (and sequence) imports once, builds once and runs
at any size, checked against PyTorch; sizes computed from dynamic dims (a reshape to
batch * seq, a view(-1, ...)) become Relax shape expressions that build and run."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from tessera.relax.frontend.torch import from_exported_program  # noqa: E402


class Encoder(nn.Module):
    """A small attention-style block: its reshapes fold batch and sequence together."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)
        self.out = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(1, 2) / 8 ** 0.5, dim=-1)
        y = (att @ v).reshape(b * s, 8)          # a size that is an expression: b * s
        y = torch.relu(self.out(y)).view(b, s, -1)
        return self.norm(y + x)


def _run(mod, args, target="llvm"):
    vm = relax.VirtualMachine(relax.build(mod, target=target), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(a.numpy()) for a in args])
    return out if isinstance(out, tvm.nd.NDArray) else out[0]


def test_dynamic_batch_imports_once_and_runs_at_any_batch():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    program = torch.export.export(model, (torch.randn(2, 8),), dynamic_shapes=({0: batch},))
    mod = from_exported_program(program, unwrap_unit_return_tuple=True)
    (param,) = mod["main"].params
    first = param.struct_info.shape.values[0]
    assert isinstance(first, tvm.tir.Var) and first.dtype == "int64"   # one symbolic batch dim
    assert [int(d) for d in param.struct_info.shape.values[1:]] == [8]
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    for n in (1, 3):
        x = torch.randn(n, 8)
        got = vm["main"](tvm.nd.array(x.numpy())).numpy()
        np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["llvm", "c"])
def test_batch_and_sequence_with_expression_shapes(target):
    model = Encoder().eval()
    batch, seq = torch.export.Dim("batch", max=32), torch.export.Dim("seq", max=64)
    program = torch.export.export(model, (torch.randn(2, 5, 8),), dynamic_shapes=({0: batch, 1: seq},))
    mod = from_exported_program(program, unwrap_unit_return_tuple=True)
    assert "*" in mod.script()  # the reshape's size is an expression of the two dims
    vm = relax.VirtualMachine(relax.build(mod, target=target), tvm.cpu())
    for b, s in ((1, 3), (3, 7)):
        x = torch.randn(b, s, 8)
        got = vm["main"](tvm.nd.array(x.numpy())).numpy()
        np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_wrong_rank_or_fixed_dim_is_refused_at_the_call():
    model = nn.Linear(8, 4).eval()
    program = torch.export.export(model, (torch.randn(2, 8),), dynamic_shapes=({0: torch.export.Dim("b")},))
    vm = relax.VirtualMachine(relax.build(from_exported_program(program), target="llvm"), tvm.cpu())
    with pytest.raises(ValueError):
        vm["main"](tvm.nd.array(np.zeros((3, 5), "float32")))


def test_cnn_with_dynamic_batch():
    """conv, batch-norm, pooling, adaptive pooling and flatten over a symbolic batch."""
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5)).eval()
    program = torch.export.export(model, (torch.randn(2, 3, 16, 16),),
                                  dynamic_shapes=({0: torch.export.Dim("batch", max=16)},))
    vm = relax.VirtualMachine(relax.build(from_exported_program(program, unwrap_unit_return_tuple=True),
                                          target="llvm"), tvm.cpu())
    for n in (1, 3):
        x = torch.randn(n, 3, 16, 16)
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x.numpy())).numpy(), model(x).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)


def test_positions_squeeze_and_unflatten_over_symbolic_dims():
    """arange(seq) of a dynamic length, squeeze next to a symbolic dim, unflatten of a dynamic dim."""
    model = Fn1()
    dims = {0: torch.export.Dim("batch", max=8), 1: torch.export.Dim("seq", max=32)}
    program = torch.export.export(model, (torch.randn(2, 5, 1),), dynamic_shapes=(dims,))
    vm = relax.VirtualMachine(relax.build(from_exported_program(program, unwrap_unit_return_tuple=True),
                                          target="llvm"), tvm.cpu())
    for b, s in ((1, 3), (3, 8)):
        x = torch.randn(b, s, 1)
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x.numpy())).numpy(), model(x).numpy(), rtol=1e-6)


class Fn1(nn.Module):
    def forward(self, x):
        y = x.squeeze(-1) + torch.arange(x.shape[1]).to(torch.float32)
        return y.unflatten(0, (1, -1))
