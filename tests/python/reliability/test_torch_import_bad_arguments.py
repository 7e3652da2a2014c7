"""Bad arguments to the PyTorch importer's fill_ / new_ones, tile / repeat, torch.max /
torch.min and cross_entropy converters, and to relax.op.full itself: each raises a
tvm.error exception naming the fx node and the argument, at import time (nothing is
compiled, so no subprocess is needed); the valid neighbours of each case import and
match PyTorch (test_relax_frontend_torch_fx_ops.py)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tessera.relax.frontend.torch import from_fx  # noqa: E402


class _One(nn.Module):
    def __init__(self, fn, **mods):
        super().__init__()
        self.fn = fn
        for key, value in mods.items():
            setattr(self, key, value)

    def forward(self, x):
        return self.fn(self, x)


class _Two(_One):
    def forward(self, a, b):  # pylint: disable=arguments-differ
        return self.fn(self, a, b)


def _fx(fn, spec):
    return from_fx(torch.fx.symbolic_trace(_One(fn).eval()), [(list(spec[0]), spec[1])])


def _fx2(fn, spec_a, spec_b, **mods):
    return from_fx(torch.fx.symbolic_trace(_Two(fn, **mods).eval()), [spec_a, spec_b])


def test_repeat_with_fewer_counts_than_dims():
    with pytest.raises(ValueError, match=r"fx node 'repeat'.*at least one count per dimension \(2\), got \[3\]"):
        _fx(lambda m, x: x.repeat(3), ((2, 3), "float32"))


@pytest.mark.parametrize("fn,node", [(lambda m, x: x.tile(2, -1), "tile"), (lambda m, x: x.repeat(-2, 1), "repeat")])
def test_negative_counts(fn, node):
    with pytest.raises(ValueError, match=rf"fx node '{node}'.*must be non-negative ints"):
        _fx(fn, ((2, 3), "float32"))


def test_fill_value_must_be_a_number_or_a_0d_tensor():
    with pytest.raises(ValueError, match=r"fx node 'fill_'.*value must be a number or a 0-d tensor, got a tensor of "
                                         r"shape \[3\]"):
        _fx2(lambda m, x, v: x.clone().fill_(v), ([2, 3], "float32"), ([3], "float32"))


def test_new_ones_negative_size():
    with pytest.raises(ValueError, match=r"fx node 'new_ones'.*negative size \[2, -1\]"):
        _fx(lambda m, x: x.new_ones(2, -1), ((2,), "float32"))


def test_max_dim_out_of_range_and_keepdim_without_dim():
    with pytest.raises(IndexError, match=r"fx node 'max_1'.*dim=2 is out of range for a tensor of rank 2"):
        _fx(lambda m, x: torch.max(x, 2), ((2, 3), "float32"))
    with pytest.raises(TypeError, match=r"fx node 'min_1'.*min\(\) without dim takes no keepdim"):
        _fx(lambda m, x: x.min(keepdim=True), ((2, 3), "float32"))


def test_cross_entropy_unsupported_attributes():
    with pytest.raises(tvm.error.OpNotImplemented, match=r"label_smoothing=0.1.*fx node 'loss'"):
        _fx2(lambda m, x, t: m.loss(x, t), ([3, 4], "float32"), ([3], "int64"),
             loss=nn.CrossEntropyLoss(label_smoothing=0.1))
    with pytest.raises(tvm.error.OpNotImplemented, match=r"class-probability targets.*fx node 'cross_entropy'"):
        _fx2(lambda m, x, t: F.cross_entropy(x, t), ([3, 4], "float32"), ([3, 4], "float32"))
    with pytest.raises(ValueError, match=r"fx node 'cross_entropy'.*reduction must be 'mean', 'sum' or 'none', "
                                         r"got 'avg'"):
        _fx2(lambda m, x, t: F.cross_entropy(x, t, reduction="avg"), ([3, 4], "float32"), ([3], "int64"))


def test_relax_full_operands():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([2, 3], "float32"))
    with bb.function("main", [x]):
        with pytest.raises(ValueError, match=r"relax.full: operand 'fill_value' must be a 0-d tensor, got 2 dim"):
            bb.emit(relax.op.full([2, 3], x))
        with pytest.raises(TypeError, match=r"relax.full.*fill_value"):
            relax.op.full([2, 3], 1.5)
        out = bb.emit(relax.op.full([2, 3], relax.const(7, "int32"), "float16"))
        assert out.struct_info.dtype == "float16"
        bb.emit_func_output(out)
    got = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())["main"](
        tvm.nd.array(np.zeros((2, 3), "float32")))
    np.testing.assert_array_equal(got.numpy(), np.full((2, 3), 7, "float16"))


def test_conv3d_unsupported_arguments():
    with pytest.raises(tvm.error.OpNotImplemented, match=r"Conv3d padding_mode='reflect'.*fx node 'conv'"):
        from_fx(torch.fx.symbolic_trace(_One(lambda m, x: m.conv(x), conv=nn.Conv3d(1, 1, 3, padding=1,
                                                                                    padding_mode="reflect"))),
                [([1, 1, 4, 4, 4], "float32")])
    weight = torch.ones(2, 1, 3, 3, 3)
    with pytest.raises(ValueError, match=r"fx node 'conv3d'.*stride must be an int or a 3-tuple, got \[1, 2\]"):
        _fx(lambda m, x: F.conv3d(x, weight, stride=(1, 2)), ((1, 1, 4, 4, 4), "float32"))
    with pytest.raises(tvm.error.OpNotImplemented, match=r"conv3d on a rank-4 input \(only batched, rank 5\)"):
        _fx(lambda m, x: F.conv3d(x, weight), ((1, 4, 4, 4), "float32"))


def test_einsum_bad_equations():
    with pytest.raises(tvm.error.OpNotImplemented, match=r"einsum with an ellipsis \(equation '\.\.\.ij->\.\.\.ji'\)"):
        _fx(lambda m, x: torch.einsum("...ij->...ji", x), ((2, 3, 4), "float32"))
    with pytest.raises(ValueError, match=r"relax.einsum: subscripts \"ijk\" name 3 dimensions, operand "
                                         r"'operands\[0\]' has 2"):
        _fx(lambda m, x: torch.einsum("ijk->i", x), ((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"relax.einsum: label 'j' has extent 3 and, in operand 'operands\[1\]', 4"):
        _fx2(lambda m, x, y: torch.einsum("ij,jk->ik", x, y), ([2, 3], "float32"), ([4, 5], "float32"))
