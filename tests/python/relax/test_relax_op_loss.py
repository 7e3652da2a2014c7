"""relax.nn.cross_entropy_with_logits and relax.nn.nll_loss
(src/relax/op/nn/loss.cc, python/tessera/relax/op/nn/loss.py): struct info
of TVM's forms (batched and 1-D, with and without weights, each reduction),
errors naming operand and attribute, results against NumPy through
relax.build, and the TVMScript round trip."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R

from relax_op_helpers import infer, rand, roundtrip, run, tensor


def _nll_reference(pred, tgt, weights, reduction, ignore_index=-100):
    batched = pred.ndim >= 2
    classes = pred.shape[1] if batched else pred.shape[0]
    weights = np.ones(classes, pred.dtype) if weights is None else weights
    loss = np.zeros(tgt.shape, pred.dtype)
    wsel = np.zeros(tgt.shape, pred.dtype)
    for idx in np.ndindex(*tgt.shape):
        t = int(tgt[idx])
        if t == ignore_index:
            continue
        p = pred[(idx[0], t) + idx[1:]] if batched else pred[t]
        loss[idx] = -p * weights[t]
        wsel[idx] = weights[t]
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / wsel.sum()


def test_cross_entropy_struct_info_and_errors():
    tvm.ir.assert_structural_equal(infer(relax.op.nn.cross_entropy_with_logits(tensor((2, 3)), tensor((2, 3), name="y"))),
                                   relax.TensorStructInfo((), "float32"))
    tvm.ir.assert_structural_equal(
        infer(relax.op.nn.cross_entropy_with_logits(tensor((2, 3)), tensor((2, 3), dtype="", name="y"))),
        relax.TensorStructInfo((), ""))
    with pytest.raises(ValueError, match=r"relax.nn.cross_entropy_with_logits: operands 'predictions' \(3 dimensions\)"):
        infer(relax.op.nn.cross_entropy_with_logits(tensor((2, 3, 4)), tensor((2, 3), name="y")))
    with pytest.raises(ValueError, match=r"dimension 1 of operands 'predictions' and 'labels' differs \(3 vs 4\)"):
        infer(relax.op.nn.cross_entropy_with_logits(tensor((2, 3)), tensor((2, 4), name="y")))
    with pytest.raises(TypeError, match=r"operand 'predictions' \(argument 0\) must be a tensor"):
        infer(relax.op.nn.cross_entropy_with_logits(relax.Var("s", relax.ShapeStructInfo([2])), tensor((2,))))


@pytest.mark.parametrize("shape", [(4, 5), (6,)])
def test_cross_entropy_against_numpy(shape):
    x, y = rand(shape, seed=1), rand(shape, seed=2)
    ref = -(x * y).sum() / (shape[0] if len(shape) == 2 else 1)
    np.testing.assert_allclose(run(relax.op.nn.cross_entropy_with_logits, x, y), ref, rtol=1e-5)


def test_nll_loss_struct_info():
    n, c, d = tir.Var("n", "int64"), tir.Var("c", "int64"), tir.Var("d", "int64")
    x, y, w = tensor((3, 5, 10, 10)), tensor((3, 10, 10), "int64", "y"), tensor((5,), name="w")
    nll = relax.op.nn.nll_loss
    tvm.ir.assert_structural_equal(infer(nll(x, y, w)), relax.TensorStructInfo((), "float32"))
    tvm.ir.assert_structural_equal(infer(nll(x, y, w, "none")), relax.TensorStructInfo((3, 10, 10), "float32"))
    tvm.ir.assert_structural_equal(infer(nll(x, y, reduction="none")), relax.TensorStructInfo((3, 10, 10), "float32"))
    tvm.ir.assert_structural_equal(infer(nll(tensor((5,)), tensor((), "int64", "y"), w, "none")),
                                   relax.TensorStructInfo((), "float32"))
    tvm.ir.assert_structural_equal(infer(nll(tensor((n, c, d)), tensor((n, d), "int64", "y"), reduction="none")),
                                   relax.TensorStructInfo((n, d), "float32"))
    tvm.ir.assert_structural_equal(infer(nll(x, y, tensor((5,), dtype="", name="w"))), relax.TensorStructInfo((), ""))
    tvm.ir.assert_structural_equal(infer(nll(relax.Var("p", relax.TensorStructInfo(dtype="float32", ndim=4)), y,
                                             reduction="none")),
                                   relax.TensorStructInfo(dtype="float32", ndim=3))


@pytest.mark.parametrize("make,error,match", [
    (lambda: relax.op.nn.nll_loss(tensor((3, 5, 10)), tensor((3, 10, 10), "int64", "y")), ValueError,
     "operand 'targets' must have 2 dimensions for predictions of 3, got 3"),
    (lambda: relax.op.nn.nll_loss(tensor((3, 5, 10)), tensor((3, 10), "float32", "y")), TypeError,
     "operand 'targets' must have an integer dtype"),
    (lambda: relax.op.nn.nll_loss(tensor((3, 5)), tensor((3,), "int64", "y"), tensor((4,), name="w")), ValueError,
     "operand 'weights' must have one weight per class of 'predictions' (5 vs 4)"),
    (lambda: relax.op.nn.nll_loss(tensor((3, 5)), tensor((4,), "int64", "y")), ValueError,
     "the batch of operands 'predictions' and 'targets' differs (3 vs 4)"),
    (lambda: relax.op.nn.nll_loss(tensor((3, 5)), tensor((3,), "int64", "y"), tensor((5, 5), name="w")), ValueError,
     "operand 'weights' must be 1-D"),
    (lambda: relax.op.nn.nll_loss(tensor((3, 5)), tensor((3,), "int64", "y"), tensor((5,), "float16", "w")), TypeError,
     "operands 'predictions' (float32) and 'weights' (float16) must have the same dtype"),
])
def test_nll_loss_errors(make, error, match):
    with pytest.raises(error, match=match.replace("(", r"\(").replace(")", r"\)")):
        infer(make())


def test_nll_loss_bad_reduction():
    with pytest.raises(ValueError, match='reduction must be "mean", "sum" or "none"'):
        relax.op.nn.nll_loss(tensor((3, 5)), tensor((3,), "int64", "y"), reduction="foo")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("with_weights", [True, False])
@pytest.mark.parametrize("pred_shape,tgt_shape", [((4, 5, 3), (4, 3)), ((4, 5), (4,)), ((5,), ())])
def test_nll_loss_against_numpy(reduction, with_weights, pred_shape, tgt_shape):
    pred = rand(pred_shape, seed=3)
    classes = pred_shape[1] if len(pred_shape) >= 2 else pred_shape[0]
    tgt = np.random.default_rng(4).integers(0, classes, size=tgt_shape).astype("int64")
    if tgt.ndim and tgt.size > 1:
        tgt.flat[1] = -100  # ignored
    weights = rand((classes,), seed=5, low=0.5, high=2.0)
    arrays = (pred, tgt, weights) if with_weights else (pred, tgt)
    out = run(lambda *a: relax.op.nn.nll_loss(*a, reduction=reduction), *arrays)
    ref = _nll_reference(pred, tgt, weights if with_weights else None, reduction)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_loss_round_trip():
    @tvm.script.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @R.function
        def main(x: R.Tensor((3, 5), "float32"), y: R.Tensor((3,), "int64"), w: R.Tensor((5,), "float32"),
                 z: R.Tensor((3, 5), "float32")):
            a = R.nn.nll_loss(x, y, w, reduction="sum", ignore_index=1)
            b = R.nn.cross_entropy_with_logits(x, z)
            return (a, b)

    text = roundtrip(Module)
    assert 'R.nn.nll_loss(x, y, w, reduction="sum", ignore_index=1)' in text
