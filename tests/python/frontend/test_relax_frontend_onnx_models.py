"""Whole models through the ONNX importer: ResNet-18, a MobileNetV2-style network and
a BERT-style encoder, defined here in PyTorch with fixed-seed random weights, exported
locally with torch.onnx.export (TorchScript exporter) and compared with ONNX Runtime
within 1e-4; dynamic-batch exports import once and run at several batch sizes."""
import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from .onnx_helpers import onnx, run_ort, run_tessera  # noqa: E402
from torch_resnet import BasicBlock, ResNet18  # noqa: E402,F401
from tessera.relax.frontend.onnx import from_onnx  # noqa: E402
import tessera as tvm  # noqa: E402
from tessera import relax  # noqa: E402

TOL = 1e-4


# -- models -------------------------------------------------------------------------------
class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return x + self.body(x) if self.use_res else self.body(x)


class MobileNetV2Style(nn.Module):
    """MobileNetV2's building blocks (inverted residuals, depthwise convs, ReLU6 as
    Clip) plus a hardswish head and dropout, at small widths."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(16, 16, 1, 1), InvertedResidual(16, 24, 2, 6),
                                    InvertedResidual(24, 24, 1, 6), InvertedResidual(24, 32, 2, 6),
                                    InvertedResidual(32, 32, 1, 6))
        self.head = nn.Sequential(nn.Conv2d(32, 64, 1, bias=False), nn.BatchNorm2d(64), nn.Hardswish())
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, classes))

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.classifier(x.mean([2, 3]))


class EncoderLayer(nn.Module):
    """A BERT layer: fused QKV projection split with chunk, multi-head attention with
    an additive mask, GELU feed-forward, post-norm residuals."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5 + mask
        y = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, d)
        x = self.ln1(x + self.out(y))
        return self.ln2(x + self.ff(x))


class BertStyle(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, ff=64, layers=2, max_len=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.ln = nn.LayerNorm(d)
        self.layers = nn.ModuleList([EncoderLayer(d, heads, ff) for _ in range(layers)])
        self.pool = nn.Linear(d, d)

    def forward(self, ids, attn):
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(pos))
        mask = (1.0 - attn[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        return torch.tanh(self.pool(x[:, 0])), x


def _randomize(model, seed):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * (0.5 / max(1, p[0].numel()) ** 0.5 if p.dim() > 1 else 0.1)
                    + (1.0 if name.endswith("weight") and p.dim() == 1 else 0.0))
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
    return model.eval()


def export(model, args, path, names, outputs, dynamic_axes=None, opset=13):
    kwargs = dict(input_names=names, output_names=outputs, opset_version=opset, dynamic_axes=dynamic_axes)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    with torch.no_grad():
        torch.onnx.export(model, args, str(path), **kwargs)
    return onnx.load(str(path))


def compare(model_proto, feeds, **kwargs):
    expected = run_ort(model_proto, feeds)
    got = run_tessera(model_proto, feeds, **kwargs)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=TOL, atol=TOL)


# -- tests --------------------------------------------------------------------------------
def test_resnet18(tmp_path, opset=13):
    """ResNet-18's topology at a quarter of its widths (16..128 channels) to stay fast."""
    model = _randomize(ResNet18(widths=(16, 32, 64, 128)), 0)
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype("float32")
    proto = export(model, (torch.from_numpy(x),), tmp_path / "r18.onnx", ["data"], ["logits"], opset=opset)
    compare(proto, {"data": x})


def test_mobilenet_v2_style(tmp_path):
    model = _randomize(MobileNetV2Style(), 1)
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype("float32")
    proto = export(model, (torch.from_numpy(x),), tmp_path / "mbv2.onnx", ["data"], ["logits"], opset=17)
    compare(proto, {"data": x})


def _bert_inputs(rng, batch, seq):
    ids = rng.integers(0, 50, (batch, seq)).astype("int64")
    attn = np.ones((batch, seq), "int64")
    attn[:, seq - 2:] = 0
    return ids, attn


@pytest.mark.parametrize("opset", [14, 17])
def test_bert_style_encoder(tmp_path, opset):
    model = _randomize(BertStyle(), 2)
    ids, attn = _bert_inputs(np.random.default_rng(2), 2, 8)
    proto = export(model, (torch.from_numpy(ids), torch.from_numpy(attn)), tmp_path / "bert.onnx",
                   ["ids", "attn"], ["pooled", "hidden"], opset=opset)
    compare(proto, {"ids": ids, "attn": attn})


def _vm(mod):
    return relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())


def test_dynamic_batch_cnn_imports_once(tmp_path):
    """A dynamic-batch export: one import (symbolic batch in main's signature), run at batch 1 and 3."""
    model = _randomize(nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Conv2d(8, 8, 3, 1, 1, groups=2), nn.Hardswish(), nn.AdaptiveAvgPool2d(1),
                                     nn.Flatten(), nn.Linear(8, 10)), 3)
    x = np.zeros((2, 3, 16, 16), "float32")
    proto = export(model, (torch.from_numpy(x),), tmp_path / "dyn.onnx", ["data"], ["logits"],
                   dynamic_axes={"data": {0: "batch"}, "logits": {0: "batch"}})
    mod = from_onnx(proto)
    batch_dim = mod["main"].params[0].struct_info.shape.values[0]
    assert not hasattr(batch_dim, "value") and batch_dim.name == "batch"
    vm = _vm(mod)
    for batch in (1, 3):
        xi = np.random.default_rng(batch).standard_normal((batch, 3, 16, 16)).astype("float32")
        got = vm["main"](tvm.nd.array(xi)).numpy()
        np.testing.assert_allclose(got, run_ort(proto, {"data": xi})[0], rtol=TOL, atol=TOL)


def test_dynamic_batch_and_sequence_encoder(tmp_path):
    """Shape -> Gather -> Concat -> Reshape chains over a symbolic batch and sequence
    become symbolic Relax shapes: one import runs at (1, 5) and (3, 9)."""
    model = _randomize(BertStyle(layers=1), 4)
    ids, attn = _bert_inputs(np.random.default_rng(4), 2, 8)
    axes = {0: "batch", 1: "seq"}
    proto = export(model, (torch.from_numpy(ids), torch.from_numpy(attn)), tmp_path / "dynbert.onnx",
                   ["ids", "attn"], ["pooled", "hidden"], dynamic_axes={"ids": axes, "attn": axes}, opset=17)
    mod = from_onnx(proto)
    assert [str(d) for d in mod["main"].params[0].struct_info.shape.values] == ["batch", "seq"]
    vm = _vm(mod)
    for batch, seq in ((1, 5), (3, 9)):
        ids, attn = _bert_inputs(np.random.default_rng(seq), batch, seq)
        got = [o.numpy() for o in vm["main"](tvm.nd.array(ids), tvm.nd.array(attn))]
        for g, e in zip(got, run_ort(proto, {"ids": ids, "attn": attn})):
            np.testing.assert_allclose(g, e, rtol=TOL, atol=TOL)
