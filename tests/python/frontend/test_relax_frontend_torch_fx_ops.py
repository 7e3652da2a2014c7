"""The PyTorch importers' operators added for TVM v0.18's from_fx tests (fill_ / fill,
new_ones, tril_ / triu_, tile, repeat, torch.max / torch.min in their three forms,
cross_entropy / CrossEntropyLoss) and the forms TVM emits (sizes and ints returned,
explicit casts, split tuples indexed from either end): small modules imported, built
and run, compared with PyTorch over several shapes and attributes."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tessera.relax.frontend.torch import from_fx  # noqa: E402

from .test_relax_frontend_torch_more_ops import _Fn1, _Fn2, check  # noqa: E402


def _fx(model, specs):
    return from_fx(torch.fx.symbolic_trace(model.eval()), [(list(s), d) for s, d in specs])


def _run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in args])


def _ops(mod):
    return [b.value.op.name for blk in mod["main"].body.blocks for b in blk.bindings
            if hasattr(b.value, "op") and hasattr(b.value.op, "name")]


# --------------------------------------------------------------------------------------
# fill_ / torch.fill / new_ones: R.full
# --------------------------------------------------------------------------------------
def _fill_inplace(m, x):
    y = x * 2
    y.fill_(1.5)
    return y + x


@pytest.mark.parametrize("fn,specs,kinds", [
    (_fill_inplace, [((4, 5), "float32")], ["fx"]),
    (_fill_inplace, [((3,), "int64")], ["fx"]),                    # 1.5 into int64 is 1, as torch
    (lambda m, x: torch.fill(x, -2.25), [((2, 3, 4), "float32")], ["fx", "ep"]),
    (lambda m, x: x.new_ones(2, 3) + 1, [((7,), "float32")], ["fx", "ep"]),
    (lambda m, x: x.new_ones((4, 1, 2)), [((3, 3), "int64")], ["fx", "ep"]),
    (lambda m, x: x.new_ones(3, dtype=torch.float16), [((2,), "float32")], ["fx"]),
], ids=["fill_f32", "fill_int", "torch_fill", "new_ones_varargs", "new_ones_tuple_int", "new_ones_dtype"])
def test_fill_and_new_ones(fn, specs, kinds):
    for kind in kinds:
        check(_Fn1(fn), specs, kind)


def test_fill_takes_a_0d_tensor_and_emits_full():
    model = _Fn2(lambda m, x, v: x.clone().fill_(v))
    mod = _fx(model, [((2, 3), "float32"), ((), "float32")])
    assert "relax.full" in _ops(mod)
    x, v = np.ones((2, 3), "float32"), np.array(4.5, "float32")
    np.testing.assert_array_equal(_run(mod, x, v).numpy(), np.full((2, 3), 4.5, "float32"))


# --------------------------------------------------------------------------------------
# tril_ / triu_, tile, repeat
# --------------------------------------------------------------------------------------
def _tril_inplace(m, x):
    y = x + 0
    y.tril_(-1)
    return y


def _triu_inplace(m, x):
    x.triu_(1)
    return x


@pytest.mark.parametrize("fn,shape", [(_tril_inplace, (5, 5)), (_triu_inplace, (2, 4, 3)),
                                      (lambda m, x: x.tile((2,)), (1, 3)), (lambda m, x: x.tile(4, 2), (1, 3)),
                                      (lambda m, x: torch.tile(x, (2, 1, 3)), (2, 3)),
                                      (lambda m, x: torch.tile(x, (3,)), (2, 2, 2)),
                                      (lambda m, x: x.repeat(2), (3,)), (lambda m, x: x.repeat(4, 2), (1, 3)),
                                      (lambda m, x: x.repeat(2, 1, 3), (2, 3)),
                                      (lambda m, x: x.repeat(0, 2), (2, 3))],
                         ids=["tril_", "triu_", "tile1", "tile2", "tile_more_dims", "tile_fewer_dims", "repeat1",
                              "repeat2", "repeat_more_dims", "repeat_zero"])
def test_trilu_inplace_tile_repeat(fn, shape):
    check(_Fn1(fn), [(shape, "float32")], "fx")
    if fn not in (_tril_inplace, _triu_inplace):
        check(_Fn1(fn), [(shape, "float32")], "ep")


# --------------------------------------------------------------------------------------
# torch.max / torch.min: elementwise, full reduction, (values, indices) along a dim
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda m, x, y: torch.max(x, y), lambda m, x, y: torch.min(x, y) * 2,
    lambda m, x, y: x.max(y),
], ids=["max_binary", "min_binary", "max_method_binary"])
def test_max_min_binary(fn):
    for kind in ("fx", "ep"):
        check(_Fn2(fn), [((4, 5), "float32"), ((4, 5), "float32")], kind)


@pytest.mark.parametrize("fn,shape", [
    (lambda m, x: torch.max(x), (3, 4)),
    (lambda m, x: x.min(), (5,)),
    (lambda m, x: torch.max(x, 1), (3, 4)),
    (lambda m, x: torch.max(x, dim=-1, keepdim=True), (2, 3, 4)),
    (lambda m, x: x.min(0), (4, 2)),
    (lambda m, x: torch.min(x, 1, True).values + 1, (3, 5)),
    (lambda m, x: x.max(dim=0)[1], (6, 2)),
], ids=["max_all", "min_all", "max_dim", "max_keepdim", "min_dim", "min_values", "max_indices"])
def test_max_min_reductions(fn, shape):
    for kind in ("fx", "ep"):
        check(_Fn1(fn), [(shape, "float32")], kind)


# --------------------------------------------------------------------------------------
# cross_entropy / CrossEntropyLoss: log_softmax + nll_loss
# --------------------------------------------------------------------------------------
def _targets(shape, classes, seed=1):
    return np.random.default_rng(seed).integers(0, classes, shape).astype("int64")


@pytest.mark.parametrize("make,logits_shape,target_shape", [
    (lambda: nn.CrossEntropyLoss(), (3, 5), (3,)),
    (lambda: nn.CrossEntropyLoss(weight=torch.tensor([0.5, 2.0, 1.0, 3.0])), (6, 4), (6,)),
    (lambda: nn.CrossEntropyLoss(ignore_index=1, reduction="sum"), (8, 3), (8,)),
    (lambda: nn.CrossEntropyLoss(reduction="none"), (4, 3), (4,)),
    (lambda: nn.CrossEntropyLoss(), (2, 4, 3, 5), (2, 3, 5)),  # class dim 1 of a 4-d input
], ids=["mean", "weight", "ignore_sum", "none", "spatial"])
def test_cross_entropy(make, logits_shape, target_shape):
    loss = make()

    class Module(nn.Module):
        def __init__(self):
            super().__init__()
            self.loss = loss

        def forward(self, logits, target):
            return self.loss(logits, target)

    class Functional(nn.Module):
        def forward(self, logits, target):
            return F.cross_entropy(logits, target, weight=loss.weight, ignore_index=loss.ignore_index,
                                   reduction=loss.reduction)

    logits = np.random.default_rng(0).standard_normal(logits_shape).astype("float32")
    target = _targets(target_shape, logits_shape[1])
    with torch.no_grad():
        want = loss(torch.from_numpy(logits), torch.from_numpy(target)).numpy()
    for model in (Module(), Functional()):
        mod = _fx(model, [(logits_shape, "float32"), (target_shape, "int64")])
        assert _ops(mod)[:2] == ["relax.nn.log_softmax", "relax.nn.nll_loss"]
        np.testing.assert_allclose(_run(mod, logits, target).numpy(), want, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------------------
# TVM's forms: sizes and ints returned, explicit casts, split tuples
# --------------------------------------------------------------------------------------
def test_sizes_and_ints_returned():
    mod = _fx(_Fn1(lambda m, x: x.size()), [((1, 3, 4), "float32")])
    assert [int(d) for d in mod["main"].ret_struct_info.values] == [1, 3, 4]
    mod = _fx(_Fn1(lambda m, x: (x + 1, x.shape, x.size(-1))), [((2, 5), "float32")])
    out = _run(mod, np.zeros((2, 5), "float32"))
    assert [int(d) for d in out[1]] == [2, 5]
    assert out[2].numpy().dtype == np.int32 and int(out[2].numpy()) == 5
    mod = _fx(_Fn1(lambda m, x: torch.ops.aten.sym_size.int(x, -2)), [((1, 3, 4), "float32")])
    assert int(_run(mod, np.zeros((1, 3, 4), "float32")).numpy()) == 3


@pytest.mark.parametrize("fn,dtype,want", [
    (lambda m, x: x.float(), "float32", ["relax.astype"]),
    (lambda m, x: x.half(), "float32", ["relax.astype"]),
    (lambda m, x: x.to(torch.float32), "float32", ["relax.astype"]),
    (lambda m, x: x.type(torch.int32), "int64", ["relax.astype"]),
    (lambda m, x: x.to(x), "float32", []),  # to(other) of the same dtype: no cast (TVM's form)
], ids=["float", "half", "to_same", "type_int", "to_other"])
def test_explicit_casts(fn, dtype, want):
    assert _ops(_fx(_Fn1(fn), [((2, 3), dtype)])) == want
    check(_Fn1(fn), [((2, 3), dtype)], "fx")


@pytest.mark.parametrize("fn", [
    lambda m, x: x.split(2, dim=1)[-1], lambda m, x: torch.chunk(x, 3, 1)[-3] * 2,
    lambda m, x: torch.cat(x.split([1, 2, 3], dim=1)[1:], 1), lambda m, x: x.chunk(2, 0)[::-1],
], ids=["last", "first_negative", "slice", "reversed"])
def test_split_tuple_indexing(fn):
    check(_Fn1(fn), [((4, 6), "float32")], "fx")


# --------------------------------------------------------------------------------------
# conv3d (R.nn.conv3d, NCDHW / OIDHW)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Conv3d(3, 4, 3), (1, 3, 5, 6, 7)),
    (lambda: nn.Conv3d(2, 4, (1, 2, 3), stride=(1, 2, 1), padding=(0, 1, 2), bias=False), (2, 2, 4, 5, 6)),
    (lambda: nn.Conv3d(4, 4, 3, padding="same", dilation=2, groups=2), (1, 4, 6, 6, 6)),
], ids=["plain", "strided_padded", "same_dilated_groups"])
def test_conv3d(make, shape):
    torch.manual_seed(0)
    conv = make()
    for kind in ("fx", "ep"):
        check(_Fn1(lambda m, x: m.conv(x), conv=conv), [(shape, "float32")], kind, rtol=1e-4, atol=1e-4)
    weight = conv.weight.detach()
    check(_Fn1(lambda m, x: F.conv3d(x, weight, None, 2, 1, 1, conv.groups)), [((1, shape[1], 5, 5, 5), "float32")],
          "fx",
          rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------------------
# einsum (R.einsum)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn,specs", [
    (lambda m, x: torch.einsum("ii", x), [((4, 4), "float32")]),
    (lambda m, x: torch.einsum("ij->ji", x), [((3, 5), "float32")]),
    (lambda m, x, y: torch.einsum("i,j->ij", x, y), [((5,), "float32"), ((4,), "float32")]),
    (lambda m, x, y: torch.einsum("bij,bjk->bik", x, y), [((2, 3, 4), "float32"), ((2, 4, 5), "float32")]),
    (lambda m, x, y: torch.einsum("ij,kj", [x, y]), [((3, 4), "float32"), ((5, 4), "float32")]),
    (lambda m, x, y: torch.einsum("i j , j ->", x, y), [((3, 4), "float32"), ((4,), "float32")]),
], ids=["trace", "transpose", "outer", "bmm", "list_implicit", "spaces_full_sum"])
def test_einsum(fn, specs):
    model = _Fn1(fn) if len(specs) == 1 else _Fn2(fn)
    for kind in ("fx", "ep"):
        check(model, specs, kind, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------------------
# scaled_dot_product_attention in TVM's form (R.nn.attention between permute_dims)
# --------------------------------------------------------------------------------------
class _Fn4(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, q, k, v, mask):
        return self.fn(q, k, v, mask)


@pytest.mark.parametrize("kind", ["fx", "ep"])
@pytest.mark.parametrize("fn,kv_len,mask_shape", [
    (lambda q, k, v, mask: F.scaled_dot_product_attention(q, k, v, is_causal=True), 7, None),
    (lambda q, k, v, mask: F.scaled_dot_product_attention(q, k, v, mask, scale=0.5), 7, (2, 1, 5, 7)),
    (lambda q, k, v, mask: F.scaled_dot_product_attention(q, k, v, mask), 3, (1, 3, 5, 3)),
], ids=["causal_longer_keys", "broadcast_mask_scale", "full_mask_short_keys"])
def test_sdpa_attention_form(kind, fn, kv_len, mask_shape):
    specs = [((2, 3, 5, 4), "float32"), ((2, 3, kv_len, 4), "float32"), ((2, 3, kv_len, 6), "float32")]
    if mask_shape is None:
        model = _Fn2(lambda m, q, kv: fn(q, kv[..., :4], kv, None))
        specs = [specs[0], specs[2]]
    else:
        model = _Fn4(fn)
        specs = specs + [(mask_shape, "float32")]
    if kind == "fx":
        assert "relax.nn.attention" in _ops(_fx(model, specs))
    check(model, specs, kind, rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------------------
# interpolate in TVM's form (R.image.resize2d) where it computes torch's answer
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fx", "ep"])
@pytest.mark.parametrize("kwargs,resize2d", [
    (dict(size=(6, 9), mode="nearest"), True),             # non-integer ratios: floor, as torch
    (dict(size=(2, 3), mode="nearest"), True),             # exact downsampling
    (dict(scale_factor=3, mode="nearest"), True),          # integer upsampling
    (dict(scale_factor=(2.0, 1.0), mode="bilinear", align_corners=False), True),
    (dict(size=(5, 7), mode="bilinear", align_corners=True), True),
    (dict(scale_factor=1.7, mode="bilinear"), False),      # torch's scale differs from out / in: resize_te
], ids=["nearest_size", "nearest_down", "nearest_x3", "bilinear_scale", "bilinear_ac", "bilinear_inexact"])
def test_interpolate_resize2d_form(kind, kwargs, resize2d):
    model = _Fn1(lambda m, x: F.interpolate(x, **kwargs))
    specs = [((1, 2, 4, 6), "float32")]
    if kind == "fx":
        assert ("relax.image.resize2d" in _ops(_fx(model, specs))) == resize2d
    check(model, specs, kind, rtol=1e-5, atol=1e-5)
