"""relax.op.einsum (src/relax/op/einsum.cc, legalized in
python/tessera/relax/op/einsum.py): struct info for explicit and implicit
subscripts, errors naming the op, attribute and operand, the TVMScript form, and
results against numpy.einsum."""
import re

import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R

from relax_op_helpers import infer, tensor


def test_einsum_struct_info():
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.einsum([tensor((n, 3)), tensor((3, 5))], "ij,jk->ik")),
                                   relax.TensorStructInfo((n, 5), "float32"))
    # implicit output: the labels seen once, sorted ("ba" -> "ab")
    tvm.ir.assert_structural_equal(infer(relax.op.einsum([tensor((2, 3))], "ba")),
                                   relax.TensorStructInfo((3, 2), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.einsum([tensor((4, 4))], "ii")), relax.TensorStructInfo((), "float32"))


@pytest.mark.parametrize("operands,subscripts,err,match", [
    ([(2, 3)], "ij,jk", ValueError, "names 2 operands, but 1 are given"),
    ([(2, 3)], "i...j", ValueError, r"ellipses \('\.\.\.'\) are not supported"),
    ([(2, 3)], "ij->ii", ValueError, "output label 'i' appears twice"),
    ([(2, 3)], "ij->k", ValueError, "output label 'k' is in no operand"),
    ([(2, 3)], "i2", ValueError, "unexpected character '2'"),
])
def test_einsum_bad_subscripts(operands, subscripts, err, match):
    with pytest.raises(err, match=rf"relax.einsum: attribute 'subscripts' = \"{re.escape(subscripts)}\": {match}"):
        infer(relax.op.einsum([tensor(s) for s in operands], subscripts))


def test_einsum_dtype_and_operand_errors():
    with pytest.raises(TypeError, match="relax.einsum"):
        infer(relax.op.einsum([tensor((2,)), tensor((2,), "int32")], "i,i"))
    with pytest.raises(TypeError, match="relax.einsum: attribute 'subscripts' must be a str"):
        relax.op.einsum([tensor((2,))], 3)


@R.function
def _scripted(a: R.Tensor((2, 3, 4), "float32"), b: R.Tensor((2, 4, 5), "float32"), c: R.Tensor((3, 3), "float32")):
    x = R.einsum((a, b), subscripts="bij,bjk->bik")
    y = R.einsum((c,), subscripts="ii")
    z = R.einsum((a, c), "bij,ik")
    return (x, y, z)


def test_einsum_script_and_run():
    tvm.ir.assert_structural_equal(_scripted, tvm.script.from_source(_scripted.script()))
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(s).astype("float32") for s in [(2, 3, 4), (2, 4, 5), (3, 3)])
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": _scripted}), target="llvm"), tvm.cpu())
    x, y, z = vm["main"](tvm.nd.array(a), tvm.nd.array(b), tvm.nd.array(c))
    np.testing.assert_allclose(x.numpy(), np.einsum("bij,bjk->bik", a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.numpy(), np.einsum("ii", c), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z.numpy(), np.einsum("bij,ik", a, c), rtol=1e-5, atol=1e-5)
