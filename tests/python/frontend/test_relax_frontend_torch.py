"""The PyTorch importers (tvm.relax.frontend.torch.from_fx / from_exported_program) on an
MLP, a small CNN and a transformer block: every import is built with relax.build, run on
the VM and compared with PyTorch eager; the imported modules use the high-level Relax
operators (checked before LegalizeOps, and once against a hand-written TVMScript module);
keep_params_as_input + relax.frontend.detach_params round-trip the weights."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from tessera.relax.frontend import detach_params  # noqa: E402
from tessera.relax.frontend.torch import from_fx, from_exported_program  # noqa: E402

RTOL = ATOL = 1e-5


# --------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear0 = nn.Linear(64, 32)
        self.relu = nn.ReLU()
        self.linear1 = nn.Linear(32, 10)

    def forward(self, x):
        return self.linear1(self.relu(self.linear0(x)))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.avg = nn.AvgPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.avg(torch.relu(self.bn2(self.conv2(x))))
        x = self.gap(x)
        x = torch.flatten(x, 1)
        return self.fc(self.drop(x))


class TransformerBlock(nn.Module):
    """Pre-norm block: layer_norm, multi-head attention (matmul, softmax), GELU MLP,
    residual adds; exercises view/reshape, permute/transpose, contiguous, slicing,
    x.shape / size arithmetic and scalar division."""

    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * dim, dim)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        batch, seq, dim = x.shape
        head_dim = dim // self.heads
        qkv = self.qkv(self.ln1(x))
        q = qkv[:, :, :dim].reshape(batch, seq, self.heads, head_dim).permute(0, 2, 1, 3)
        k = qkv[:, :, dim:2 * dim].view(batch, seq, self.heads, head_dim).transpose(1, 2)
        v = qkv[..., 2 * dim:].reshape(batch, seq, self.heads, head_dim).permute(0, 2, 1, 3)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (head_dim ** 0.5)
        attn = F.softmax(scores, dim=-1)
        out = (attn @ v).transpose(1, 2).contiguous().view(batch, seq, dim)
        x = x + self.drop(self.proj(out))
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


def _init(model, seed):
    """Deterministic weights, with non-trivial batch-norm statistics."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, tensor in sorted(model.state_dict().items()):
            if tensor.dtype != torch.float32:
                continue
            if name.endswith("running_var"):
                tensor.copy_(torch.rand(tensor.shape, generator=gen) + 0.5)
            else:
                tensor.copy_(torch.rand(tensor.shape, generator=gen) - 0.5)
    return model.eval()


MODELS = {
    "mlp": (lambda: _init(MLP(), 0), (4, 64)),
    "cnn": (lambda: _init(SmallCNN(), 1), (2, 3, 16, 16)),
    "transformer": (lambda: _init(TransformerBlock(), 2), (2, 8, 32)),
}


def _input(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _torch_out(model, x):
    with torch.no_grad():
        return model(torch.from_numpy(x)).numpy()


def _run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    return vm["main"](*[a if isinstance(a, tvm.nd.NDArray) else tvm.nd.array(a) for a in args])


def _op_names(func):
    names = []
    for block in func.body.blocks:
        for binding in block.bindings:
            value = binding.value
            if isinstance(value, relax.Call) and isinstance(value.op, tvm.ir.Op):
                names.append(value.op.name)
    return names


def _import(kind, model, shape, **kwargs):
    if kind == "fx":
        return from_fx(torch.fx.symbolic_trace(model), [(shape, "float32")], **kwargs)
    program = torch.export.export(model, (torch.from_numpy(_input(shape)),))
    if kind == "ep_core":
        program = program.run_decompositions()
    return from_exported_program(program, unwrap_unit_return_tuple=True, **kwargs)


# --------------------------------------------------------------------------------------
# numerics: both importers (and the core-aten decomposition) against PyTorch
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fx", "ep", "ep_core"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_import_matches_torch(name, kind):
    make, shape = MODELS[name]
    model = make()
    mod = _import(kind, model, shape)
    main = mod["main"]
    assert len(main.params) == 1
    assert [int(d) for d in main.params[0].struct_info.shape.values] == list(shape)
    for seed in (0, 1):
        x = _input(shape, seed)
        res = _run(mod, x)
        assert isinstance(res, tvm.nd.NDArray)
        np.testing.assert_allclose(res.numpy(), _torch_out(model, x), rtol=RTOL, atol=ATOL)


def test_exported_program_returns_tuple_unless_unwrapped():
    model = MODELS["mlp"][0]()
    x = _input((4, 64))
    program = torch.export.export(model, (torch.from_numpy(x),))
    mod = from_exported_program(program)
    assert isinstance(mod["main"].ret_struct_info, relax.TupleStructInfo)
    res = _run(mod, x)
    assert len(res) == 1
    np.testing.assert_allclose(res[0].numpy(), _torch_out(model, x), rtol=RTOL, atol=ATOL)


# --------------------------------------------------------------------------------------
# structure: high-level operators before LegalizeOps
# --------------------------------------------------------------------------------------
LINEAR = ["relax.permute_dims", "relax.matmul", "relax.add"]


@pytest.mark.parametrize("kind", ["fx", "ep"])
def test_mlp_uses_high_level_ops(kind):
    mod = _import(kind, MODELS["mlp"][0](), (4, 64))
    assert _op_names(mod["main"]) == LINEAR + ["relax.nn.relu"] + LINEAR
    assert not any(isinstance(f, tvm.tir.PrimFunc) for _, f in mod.functions_items())


@pytest.mark.parametrize("kind", ["fx", "ep"])
def test_cnn_uses_high_level_ops(kind):
    names = _op_names(_import(kind, MODELS["cnn"][0](), (2, 3, 16, 16))["main"])
    conv_bias = ["relax.nn.conv2d", "relax.reshape", "relax.add"]
    assert names == (conv_bias + ["relax.nn.batch_norm", "relax.nn.relu", "relax.nn.max_pool2d"]
                     + ["relax.nn.conv2d", "relax.nn.batch_norm", "relax.nn.relu", "relax.nn.avg_pool2d",
                        "relax.nn.adaptive_avg_pool2d", "relax.reshape"] + LINEAR)


@pytest.mark.parametrize("kind", ["fx", "ep"])
def test_transformer_uses_high_level_ops(kind):
    names = _op_names(_import(kind, MODELS["transformer"][0](), (2, 8, 32))["main"])
    assert names.count("relax.nn.layer_norm") == 2
    assert names.count("relax.nn.softmax") == 1
    assert names.count("relax.nn.gelu") == 1
    assert names.count("relax.strided_slice") == 3
    # 4 linear layers (permute_dims + matmul each) and the two attention matmuls
    assert names.count("relax.matmul") == 6
    assert names.count("relax.call_tir") == 0


def test_mlp_keep_params_equals_handwritten_module():
    """from_fx with keep_params_as_input gives exactly this module (parameters sorted by name)."""
    mod = from_fx(torch.fx.symbolic_trace(MODELS["mlp"][0]()), [((4, 64), "float32")], keep_params_as_input=True)
    mod, _ = detach_params(mod)

    @I.ir_module
    class Expected:
        @R.function
        def main(inp_0: R.Tensor((4, 64), dtype="float32"), linear0_bias: R.Tensor((32,), dtype="float32"),
                 linear0_weight: R.Tensor((32, 64), dtype="float32"), linear1_bias: R.Tensor((10,), dtype="float32"),
                 linear1_weight: R.Tensor((10, 32), dtype="float32")) -> R.Tensor((4, 10), dtype="float32"):
            R.func_attr({"num_input": 1})
            with R.dataflow():
                lv = R.permute_dims(linear0_weight, axes=None)
                lv1 = R.matmul(inp_0, lv, out_dtype="float32")
                lv2 = R.add(lv1, linear0_bias)
                lv3 = R.nn.relu(lv2)
                lv4 = R.permute_dims(linear1_weight, axes=None)
                lv5 = R.matmul(lv3, lv4, out_dtype="float32")
                lv6 = R.add(lv5, linear1_bias)
                gv = lv6
                R.output(gv)
            return gv

    tvm.ir.assert_structural_equal(mod, Expected)


# --------------------------------------------------------------------------------------
# keep_params_as_input + detach_params
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fx", "ep"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_keep_params_as_input_round_trip(name, kind):
    make, shape = MODELS[name]
    model = make()
    mod = _import(kind, model, shape, keep_params_as_input=True)
    main = mod["main"]
    named = dict(model.named_parameters())
    # fx: parameters sorted by name; exported program: in the program's order
    order = sorted(named) if kind == "fx" else list(named)
    assert int(main.attrs["num_input"]) == 1
    assert len(main.params) == 1 + len(order)
    assert len(main.attrs["params"]) == len(order)

    detached, params = detach_params(mod)
    assert "params" not in detached["main"].attrs
    assert list(params) == ["main"]
    for var, array, pname in zip(detached["main"].params[1:], params["main"], order):
        np.testing.assert_array_equal(array.numpy(), named[pname].detach().numpy())
        assert [int(d) for d in var.struct_info.shape.values] == list(named[pname].shape)
    assert not any(isinstance(b.value, relax.Constant) for blk in detached["main"].body.blocks
                   for b in blk.bindings)

    x = _input(shape)
    res = _run(detached, x, *params["main"])
    np.testing.assert_allclose(res.numpy(), _torch_out(model, x), rtol=RTOL, atol=ATOL)

    # other weights give other results: the parameters are really inputs
    doubled = [tvm.nd.array(p.numpy() * 2) for p in params["main"]]
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(2)
    res2 = _run(detached, x, *doubled)
    np.testing.assert_allclose(res2.numpy(), _torch_out(model, x), rtol=RTOL, atol=ATOL)


def test_detach_params_leaves_functions_without_params():
    mod = from_fx(torch.fx.symbolic_trace(Elementwise()), [((4, 5), "float32")])
    detached, params = detach_params(mod)
    assert params == {}
    tvm.ir.assert_structural_equal(detached, mod)


# --------------------------------------------------------------------------------------
# smaller operator coverage (functional / method / aten spellings)
# --------------------------------------------------------------------------------------
class Functional(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(6, 4) - 0.5)
        self.b = nn.Parameter(torch.rand(6) - 0.5)

    def forward(self, x, y):
        a = F.linear(x, self.w, self.b)                      # (2, 3, 6)
        a = F.silu(a) + torch.sigmoid(a) * 2 - 1
        s = torch.cat([a, torch.tanh(a)], dim=-1)           # (2, 3, 12)
        s = s.permute(2, 0, 1).flatten(1)                   # (12, 6)
        m = s.mean(dim=1, keepdim=True) + s.sum(-1).unsqueeze(1) / s.size(1)
        t = F.log_softmax(torch.bmm(y, y.transpose(1, 2)), dim=2)
        return m * 0.5, t[:, 1], F.gelu(s[2:8:2, ..., None], approximate="tanh").squeeze(-1)


@pytest.mark.parametrize("kind", ["fx", "ep", "ep_core"])
def test_functional_forms_match_torch(kind):
    model = Functional().eval()
    x, y = _input((2, 3, 4), 0), _input((2, 5, 3), 1)
    if kind == "fx":
        mod = from_fx(torch.fx.symbolic_trace(model), [((2, 3, 4), "float32"), ((2, 5, 3), "float32")])
    else:
        program = torch.export.export(model, (torch.from_numpy(x), torch.from_numpy(y)))
        if kind == "ep_core":
            program = program.run_decompositions()
        mod = from_exported_program(program)
    res = _run(mod, x, y)
    with torch.no_grad():
        expected = model(torch.from_numpy(x), torch.from_numpy(y))
    assert len(res) == len(expected)
    for got, want in zip(res, expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL, atol=ATOL)


class Elementwise(nn.Module):
    """Only the elementwise operators (and sizes, scalars, in-place methods)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(4, 5))
        self.register_buffer("b", torch.rand(5) + 1)

    def forward(self, x):
        y = torch.exp(x) * self.w + 2.0
        y = torch.sigmoid(y) - self.b / 3
        z = -torch.tanh(y) * x.size(0)
        z.mul_(0.5)
        return torch.abs(z) - torch.sqrt(self.b) + torch.rsqrt(self.b) * 2, 1 - y


@pytest.mark.parametrize("kind", ["fx", "ep"])
def test_elementwise_and_scalars_match_torch(kind):
    model = Elementwise().eval()
    x = _input((4, 5))
    if kind == "fx":
        mod = from_fx(torch.fx.symbolic_trace(model), [((4, 5), "float32")])
    else:
        mod = from_exported_program(torch.export.export(model, (torch.from_numpy(x),)))
    res = _run(mod, x)
    with torch.no_grad():
        expected = model(torch.from_numpy(x))
    for got, want in zip(res, expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL, atol=ATOL)


def test_output_tuple_options():
    class Two(nn.Module):
        def forward(self, x):
            return (x + 1,)

    gm = torch.fx.symbolic_trace(Two())
    tuple_ret = from_fx(gm, [((3,), "float32")])
    assert isinstance(tuple_ret["main"].ret_struct_info, relax.TupleStructInfo)
    unwrapped = from_fx(gm, [((3,), "float32")], unwrap_unit_return_tuple=True)
    assert isinstance(unwrapped["main"].ret_struct_info, relax.TensorStructInfo)
    no_bind = from_fx(gm, [((3,), "float32")], no_bind_return_tuple=True)
    assert isinstance(no_bind["main"].body.body, relax.Tuple)
    assert isinstance(tuple_ret["main"].body.body, relax.Var)
    x = np.arange(3, dtype="float32")
    np.testing.assert_allclose(_run(no_bind, x)[0].numpy(), x + 1)
    np.testing.assert_allclose(_run(unwrapped, x).numpy(), x + 1)


class Buffers(nn.Module):
    """A non-persistent buffer and a plain tensor attribute (a lifted constant in an
    exported program) next to a parameter."""

    def __init__(self):
        super().__init__()
        self.register_buffer("nb", torch.rand(3), persistent=False)
        self.c = torch.rand(3)
        self.w = nn.Parameter(torch.rand(3))

    def forward(self, x):
        return x * self.nb + self.c - self.w


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("kind", ["fx", "ep"])
def test_buffers_and_constants_are_constants(kind, keep):
    model = Buffers()
    x = _input((2, 3))
    if kind == "fx":
        mod = from_fx(torch.fx.symbolic_trace(model), [((2, 3), "float32")], keep_params_as_input=keep)
    else:
        mod = from_exported_program(torch.export.export(model, (torch.from_numpy(x),)), keep_params_as_input=keep,
                                    unwrap_unit_return_tuple=True)
    mod, params = detach_params(mod)
    assert len(mod["main"].params) == (2 if keep else 1)  # only the parameter may become an input
    res = _run(mod, x, *params.get("main", []))
    np.testing.assert_allclose(res.numpy(), _torch_out(model, x), rtol=RTOL, atol=ATOL)


class ShapeOps(nn.Module):
    """Linear (module and functional), cat, permute, flatten, mean/sum, size, unsqueeze,
    bmm, int/slice/None/Ellipsis indexing, squeeze, expand, float()."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 6)
        self.w = nn.Parameter(torch.rand(6, 4) - 0.5)
        self.b = nn.Parameter(torch.rand(6))

    def forward(self, x, y):
        a = self.lin(x) + F.linear(x, self.w, self.b)
        s = torch.cat([a, torch.tanh(a)], dim=-1).permute(2, 0, 1).flatten(1)
        m = s.mean(dim=1, keepdim=True) + s.sum(-1).unsqueeze(1) / s.size(1)
        t = torch.bmm(y, y.transpose(1, 2))
        return (m * 0.5, t[:, 1], s[2:8:2, ..., None].squeeze(-1), t[0, :, None, 1:3].expand(5, 4, 2),
                x.float().mean(), torch.transpose(t, 0, 2).reshape(-1, 10)[-3:])


@pytest.mark.parametrize("kind", ["fx", "ep", "ep_core"])
def test_shape_ops_match_torch(kind):
    model = ShapeOps().eval()
    x, y = _input((2, 3, 4), 0), _input((2, 5, 3), 1)
    if kind == "fx":
        mod = from_fx(torch.fx.symbolic_trace(model), [((2, 3, 4), "float32"), ((2, 5, 3), "float32")])
    else:
        program = torch.export.export(model, (torch.from_numpy(x), torch.from_numpy(y)))
        if kind == "ep_core":
            program = program.run_decompositions()
        mod = from_exported_program(program)
    res = _run(mod, x, y)
    with torch.no_grad():
        expected = model(torch.from_numpy(x), torch.from_numpy(y))
    assert len(res) == len(expected) == 6
    for got, want in zip(res, expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("module", [torch.nn.ReLU6(), torch.nn.Hardtanh(-0.5, 0.7)])
def test_hardtanh_and_relu6_match_pytorch(module):
    """ReLU6 / Hardtanh (MobileNetV2's activation) through both importers."""
    x = torch.randn(2, 3, 4, 5) * 4
    mods = [from_exported_program(torch.export.export(module, (x,)), unwrap_unit_return_tuple=True),
            from_fx(torch.fx.symbolic_trace(module), [((2, 3, 4, 5), "float32")])]
    for mod in mods:
        out = tvm.relax.VirtualMachine(tvm.relax.build(mod, "llvm"), tvm.cpu())["main"](tvm.nd.array(x.numpy()))
        out = out if hasattr(out, "numpy") else out[0]
        np.testing.assert_allclose(out.numpy(), module(x).numpy())
