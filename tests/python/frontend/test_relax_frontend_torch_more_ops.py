"""The PyTorch importers' operators of issue [I] (chunk, split, unbind, embedding,
baddbmm / addmm, scaled_dot_product_attention, interpolate, group_norm, conv1d,
conv_transpose1d/2d, masked_fill, arange, cumsum, where, clamp, hardtanh / relu6,
hardswish, hardsigmoid, leaky_relu, prelu): small modules through from_fx,
from_exported_program and its core-aten decomposition, compared with PyTorch."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tessera.relax.frontend.torch import from_fx, from_exported_program  # noqa: E402

KINDS = ["fx", "ep", "ep_core"]


def _inputs(specs, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in specs:
        if dtype == "int64":
            out.append(rng.integers(0, 10, shape).astype("int64"))
        elif dtype == "bool":
            out.append(rng.random(shape) > 0.5)
        else:
            out.append(rng.standard_normal(shape).astype(dtype))
    return out


def check(model, specs, kind, rtol=1e-5, atol=1e-5):
    model = model.eval()
    args = _inputs(specs)
    torch_args = [torch.from_numpy(a.copy()) for a in args]
    if kind == "fx":
        mod = from_fx(torch.fx.symbolic_trace(model), [(list(s), d) for s, d in specs])
    else:
        program = torch.export.export(model, tuple(torch_args))
        if kind == "ep_core":
            program = program.run_decompositions()
        mod = from_exported_program(program, unwrap_unit_return_tuple=True)
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    got = vm["main"](*[tvm.nd.array(a) for a in args])
    with torch.no_grad():
        want = model(*torch_args)
    got = [got] if isinstance(got, tvm.nd.NDArray) else list(got)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        assert str(g.numpy().dtype) == str(w.numpy().dtype)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)


class _Fn(nn.Module):
    def __init__(self, fn, **mods):
        super().__init__()
        self.fn = fn
        for k, v in mods.items():
            setattr(self, k, v)


class _Fn1(_Fn):
    def forward(self, a):
        return self.fn(self, a)


class _Fn2(_Fn):
    def forward(self, a, b):
        return self.fn(self, a, b)


class _Fn3(_Fn):
    def forward(self, a, b, c):
        return self.fn(self, a, b, c)


class _Fn4(_Fn):
    def forward(self, a, b, c, d):
        return self.fn(self, a, b, c, d)


def Fn(fn, **mods):
    """A module computing ``fn(module, *inputs)`` (fx needs a fixed forward signature)."""
    import inspect
    arity = len(inspect.signature(fn).parameters) - 1
    return {1: _Fn1, 2: _Fn2, 3: _Fn3, 4: _Fn4}[arity](fn, **mods)


F32 = "float32"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fn", [
    lambda m, x: x.chunk(3, dim=-1),
    lambda m, x: torch.chunk(x, 4, 1),
    lambda m, x: x.split(2, dim=-1),
    lambda m, x: torch.split(x, [1, 2, 3], dim=2),
    lambda m, x: x.unbind(1),
    lambda m, x: torch.unbind(x, -1)[0] + 1,
], ids=["chunk3", "chunk_uneven", "split_size", "split_sections", "unbind", "unbind_last"])
def test_split_family(fn, kind):
    check(Fn(fn), [((2, 3, 6), F32)], kind)


@pytest.mark.parametrize("kind", KINDS)
def test_embedding(kind):
    check(Fn(lambda m, i: m.emb(i) * 2, emb=nn.Embedding(10, 4)), [((2, 5), "int64")], kind)
    check(Fn(lambda m, i, w: F.embedding(i, w)), [((3,), "int64"), ((10, 3), F32)], kind)


@pytest.mark.parametrize("kind", KINDS)
def test_baddbmm_addmm(kind):
    check(Fn(lambda m, a, b, c: torch.baddbmm(a, b, c, beta=0.5, alpha=2.0)),
          [((2, 3, 5), F32), ((2, 3, 4), F32), ((2, 4, 5), F32)], kind)
    check(Fn(lambda m, a, b, c: torch.baddbmm(a, b, c)), [((1, 3, 5), F32), ((2, 3, 4), F32), ((2, 4, 5), F32)], kind)
    check(Fn(lambda m, a, b, c: torch.addmm(a, b, c, beta=2.0)), [((5,), F32), ((3, 4), F32), ((4, 5), F32)], kind)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("variant", ["plain", "causal", "float_mask", "bool_mask", "scale"])
def test_scaled_dot_product_attention(kind, variant):
    specs = [((2, 2, 5, 8), F32)] * 3
    if variant == "plain":
        fn = lambda m, q, k, v: F.scaled_dot_product_attention(q, k, v)  # noqa: E731
    elif variant == "causal":
        fn = lambda m, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    elif variant == "scale":
        fn = lambda m, q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.3)  # noqa: E731
    elif variant == "float_mask":
        specs = specs + [((5, 5), F32)]
        fn = lambda m, q, k, v, mask: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # noqa: E731
    else:
        specs = specs + [((2, 1, 5, 5), "bool")]

        def fn(m, q, k, v, mask):
            mask = mask | (q[:1, :1, :, :5] > -1e30)[..., :1]  # the first key is always visible
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    check(Fn(fn), specs, kind, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("kwargs", [dict(scale_factor=2, mode="nearest"), dict(size=(7, 5), mode="nearest"),
                                    dict(scale_factor=2, mode="bilinear", align_corners=False),
                                    dict(size=(7, 9), mode="bilinear", align_corners=True),
                                    dict(size=(6, 9), mode="bilinear", align_corners=False)],
                         ids=["nearest_x2", "nearest_size", "bilinear_x2", "bilinear_ac", "bilinear_size"])
def test_interpolate(kind, kwargs):
    check(Fn(lambda m, x: F.interpolate(x, **kwargs)), [((1, 2, 4, 3), F32)], kind, rtol=1e-5, atol=1e-5)


def test_upsample_module():
    check(Fn(lambda m, x: m.up(x), up=nn.Upsample(scale_factor=3, mode="nearest")), [((1, 2, 3, 3), F32)], "fx")


@pytest.mark.parametrize("kind", KINDS)
def test_group_norm(kind):
    check(Fn(lambda m, x: m.gn(x), gn=nn.GroupNorm(2, 6)), [((2, 6, 3, 4), F32)], kind, rtol=1e-4, atol=1e-5)
    check(Fn(lambda m, x: F.group_norm(x, 3, eps=1e-3)), [((2, 6, 5), F32)], kind, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("conv", [nn.Conv1d(4, 6, 3), nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2),
                                  nn.Conv1d(4, 4, 5, padding="same", bias=False)], ids=["plain", "strided", "same"])
def test_conv1d(kind, conv):
    check(Fn(lambda m, x: m.conv(x), conv=conv), [((2, 4, 11), F32)], kind, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("conv", [nn.ConvTranspose2d(4, 3, 3), nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1,
                                                                                     output_padding=1, groups=2),
                                  nn.ConvTranspose2d(4, 2, (2, 3), stride=(2, 1), dilation=2, bias=False),
                                  nn.ConvTranspose1d(4, 3, 3, stride=2)], ids=["plain", "strided", "dilated", "1d"])
def test_conv_transpose(kind, conv):
    shape = (1, 4, 5) if isinstance(conv, nn.ConvTranspose1d) else (1, 4, 5, 4)
    check(Fn(lambda m, x: m.conv(x), conv=conv), [(shape, F32)], kind, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_masked_fill_where_arange_cumsum(kind):
    check(Fn(lambda m, x, mask: x.masked_fill(mask, -1e4)), [((2, 5), F32), ((2, 5), "bool")], kind)
    check(Fn(lambda m, x: torch.where(x > 0, x, torch.zeros_like(x) + 0.5)), [((3, 4), F32)], kind)
    check(Fn(lambda m, x: torch.where(x > 0, x, x * 0.5)), [((3, 4), F32)], kind)
    check(Fn(lambda m, x: x + torch.arange(4)), [((3, 4), F32)], kind)
    check(Fn(lambda m, x: torch.cumsum(x, dim=1)), [((3, 4), F32)], kind)
    check(Fn(lambda m, i: i.cumsum(-1)), [((3, 4), "int64")], kind)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fn", [
    lambda m, x: torch.clamp(x, -0.5, 0.5), lambda m, x: x.clamp(min=0.1), lambda m, x: x.clip(max=0.2),
    lambda m, x: F.hardtanh(x, -0.3, 0.7), lambda m, x: F.relu6(x * 4), lambda m, x: m.r6(x * 4),
    lambda m, x: F.hardswish(x * 3), lambda m, x: m.hs(x * 3), lambda m, x: F.hardsigmoid(x * 3),
    lambda m, x: F.leaky_relu(x, 0.2), lambda m, x: m.lrelu(x), lambda m, x: m.prelu(x), lambda m, x: m.prelu1(x),
], ids=["clamp", "clamp_min", "clip_max", "hardtanh", "relu6", "ReLU6", "hardswish", "Hardswish", "hardsigmoid",
        "leaky_relu", "LeakyReLU", "PReLU_channels", "PReLU_one"])
def test_activations(kind, fn):
    prelu = nn.PReLU(3)
    with torch.no_grad():
        prelu.weight.copy_(torch.tensor([0.1, 0.2, 0.3]))
    model = Fn(fn, r6=nn.ReLU6(), hs=nn.Hardswish(), lrelu=nn.LeakyReLU(0.3), prelu=prelu, prelu1=nn.PReLU())
    check(model, [((2, 3, 4), F32)], kind)
