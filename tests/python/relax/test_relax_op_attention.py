"""relax.op.nn.attention (src/relax/op/nn/attention.cc, legalized in
python/tessera/relax/op/nn/attention.py): struct info, errors naming the op and the
operand or attribute, the TVMScript form, and results against a NumPy reference with
a broadcast bias and both causal alignments."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import relax as R

from relax_op_helpers import infer, tensor


def _reference(q, k, v, bias=None, scale=None, causal=None):
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    scores = np.einsum("bsnh,btnh->bnst", q, k) * scale
    if bias is not None:
        scores = scores + bias
    if causal is not None:
        s, t = scores.shape[-2:]
        offset = 0 if causal == "TopLeft" else t - s
        visible = np.arange(t)[None, :] <= np.arange(s)[:, None] + offset
        scores = np.where(visible, scores, -np.inf)
    scores = scores - scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(-1, keepdims=True)
    return np.einsum("bnst,btnh->bsnh", p, v)


def test_attention_struct_info_and_errors():
    out = infer(relax.op.nn.attention(tensor((2, 5, 3, 4)), tensor((2, 7, 3, 4)), tensor((2, 7, 3, 6))))
    tvm.ir.assert_structural_equal(out, relax.TensorStructInfo((2, 5, 3, 6), "float32"))
    with pytest.raises(ValueError, match="relax.nn.attention: the head sizes of 'query' and 'key' differ"):
        infer(relax.op.nn.attention(tensor((2, 5, 3, 4)), tensor((2, 7, 3, 5)), tensor((2, 7, 3, 6))))
    with pytest.raises(ValueError, match=r"relax.nn.attention: dimension 3 \(seq_kv\) of 'bias'"):
        infer(relax.op.nn.attention(tensor((2, 5, 3, 4)), tensor((2, 7, 3, 4)), tensor((2, 7, 3, 4)), tensor((2, 3, 5, 5))))
    with pytest.raises(ValueError, match="relax.nn.attention: operand 'query' must be 4-D"):
        infer(relax.op.nn.attention(tensor((5, 3, 4)), tensor((2, 7, 3, 4)), tensor((2, 7, 3, 4))))
    with pytest.raises(ValueError, match="attribute 'causal_mask' must be None, \"TopLeft\" or \"BottomRight\""):
        infer(relax.op.nn.attention(tensor((2, 5, 3, 4)), tensor((2, 5, 3, 4)), tensor((2, 5, 3, 4)), causal_mask="Top"))


@R.function
def _scripted(q: R.Tensor((2, 5, 3, 4), "float32"), k: R.Tensor((2, 7, 3, 4), "float32"),
              v: R.Tensor((2, 7, 3, 6), "float32"), bias: R.Tensor((2, 1, 5, 7), "float32")):
    a = R.nn.attention(q, k, v, bias, scale=0.25)
    b = R.nn.attention(q, k, v, scale=None, causal_mask="TopLeft")
    c = R.nn.attention(q, k, v, causal_mask="BottomRight")
    return (a, b, c)


def test_attention_script_and_run():
    tvm.ir.assert_structural_equal(_scripted, tvm.script.from_source(_scripted.script()))
    rng = np.random.default_rng(0)
    q, k, v, bias = (rng.standard_normal(s).astype("float32") for s in [(2, 5, 3, 4), (2, 7, 3, 4), (2, 7, 3, 6),
                                                                          (2, 1, 5, 7)])
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": _scripted}), target="llvm"), tvm.cpu())
    a, b, c = vm["main"](*[tvm.nd.array(x) for x in (q, k, v, bias)])
    np.testing.assert_allclose(a.numpy(), _reference(q, k, v, bias, 0.25), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.numpy(), _reference(q, k, v, causal="TopLeft"), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), _reference(q, k, v, causal="BottomRight"), rtol=1e-4, atol=1e-5)
