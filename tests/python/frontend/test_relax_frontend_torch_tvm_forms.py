"""The PyTorch importers emit TVM v0.18's Relax forms (trigonometric unaries, round,
tril/triu, argmax/argmin, maximum/minimum, clip for clamp/hardtanh/hardsigmoid/hardswish,
nn.leakyrelu, layer_norm over trailing negative axes, reductions over the dims as written,
squeeze(axis=None), matmul/linear/conv with out_dtype spelled out, _to_copy as astype):
each form checked against PyTorch, in float32 and (where the dtype is carried) float64."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from .test_relax_frontend_torch_more_ops import KINDS, Fn, check  # noqa: E402

F32, F64 = "float32", "float64"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fn", [
    lambda m, x: torch.acos(x.clamp(-0.9, 0.9)) + torch.asin(x.clamp(-0.9, 0.9)) + torch.atan(x),
    lambda m, x: torch.acosh(x.abs() + 1.5) + torch.asinh(x) + torch.atanh(x.clamp(-0.9, 0.9)),
    lambda m, x: torch.cos(x) + torch.cosh(x) + torch.sin(x) + torch.sinh(x) + torch.tan(x.clamp(-1, 1)),
    lambda m, x: torch.round(x * 3),
    lambda m, x: torch.tril(x, 1) + torch.triu(x, -1),
    lambda m, x: torch.maximum(x, x.t()) - torch.minimum(x, torch.zeros_like(x)),
    lambda m, x: torch.clamp(x, min=-0.5, max=0.25),
    lambda m, x: F.hardtanh(x) + F.hardsigmoid(x) + F.hardswish(x) + F.leaky_relu(x, 0.02),
    lambda m, x: x.mean(dim=-1) + x.sum(dim=[1, 0], keepdim=False),
    lambda m, x: x.unsqueeze(-1).squeeze(),
], ids=["atrig", "ahyp", "trig", "round", "tril_triu", "max_min", "clamp", "hard_acts", "reduce_dims", "squeeze"])
def test_elementwise_forms(fn, kind):
    check(Fn(fn), [((4, 4), F32)], kind)


@pytest.mark.parametrize("kind", KINDS)
def test_arg_extremes(kind):
    model = Fn(lambda m, x: (x.argmax(-1), x.argmin(dim=0, keepdim=True), torch.argmax(x)))
    check(model, [((3, 5), F32)], kind)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("kind", KINDS)
def test_out_dtype_follows_the_input(kind, dtype):
    """matmul, bmm, addmm, linear and conv carry the input's dtype (a float64 model stays float64)."""
    model = Fn(lambda m, a, b: (a @ b, torch.bmm(a, b), m.lin(a), m.conv(a), torch.addmm(a[0], a[1], b[0])),
               lin=nn.Linear(4, 3), conv=nn.Conv1d(4, 2, 3, padding=1))
    model = model.to(getattr(torch, dtype))
    check(model, [((3, 4, 4), dtype), ((3, 4, 4), dtype)], kind)


@pytest.mark.parametrize("kind", KINDS)
def test_layer_norm_trailing_axes(kind):
    check(Fn(lambda m, x: m.ln(x) + F.layer_norm(x, [5]), ln=nn.LayerNorm([4, 5])), [((2, 3, 4, 5), F32)], kind)



@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fn", [
    lambda m, x: x + torch.arange(4),
    lambda m, x: x + torch.arange(0.5, 2.5, 0.5),
    lambda m, x: x + torch.arange(7, -1, -2, dtype=torch.float32),
], ids=["int", "float", "dtype_descending"])
def test_arange(fn, kind):
    """R.arange with torch's dtype rules and its legalization (start + i * step)."""
    check(Fn(fn), [((3, 4), F32)], kind)



def test_empty_is_zeros():
    """torch.empty's values are unspecified: R.zeros of its size and dtype."""
    import tessera as tvm
    from tessera import relax
    from tessera.relax.frontend.torch import from_exported_program

    program = torch.export.export(Fn(lambda m, x: torch.empty(x.shape[0], 4, dtype=torch.float16)),
                                  (torch.randn(3, 2),))
    mod = from_exported_program(program, unwrap_unit_return_tuple=True)
    out = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())["main"](tvm.nd.array(
        torch.randn(3, 2).numpy()))
    assert out.shape == (3, 4) and str(out.dtype) == "float16" and not out.numpy().any()


@pytest.mark.parametrize("kind", KINDS)
def test_unflatten(kind):
    check(Fn(lambda m, x: x.unflatten(1, (2, -1)) * 2), [((3, 8), F32)], kind)
