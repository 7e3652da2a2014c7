"""relax.op.nn.conv3d (src/relax/op/nn/convolution.cc, legalized to
topi.nn.conv3d_ncdhw): struct info over static and symbolic shapes, the attributes
completed to three (padding: six) values as TVM's constructor completes them, also
from TVMScript, errors naming op and attribute, and results against PyTorch."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R

from relax_op_helpers import infer, tensor

torch = pytest.importorskip("torch")


def test_conv3d_struct_info():
    n = tir.Var("n", "int64")
    call = relax.op.nn.conv3d(tensor((n, 3, 8, 9, 10)), tensor((6, 3, 3, 3, 3)), strides=(1, 2, 1), padding=1)
    tvm.ir.assert_structural_equal(infer(call), relax.TensorStructInfo((n, 6, 8, 5, 10), "float32"))
    assert [int(v) for v in call.attrs["padding"]] == [1] * 6
    assert [int(v) for v in call.attrs["strides"]] == [1, 2, 1]
    grouped = relax.op.nn.conv3d(tensor((1, 4, 5, 5, 5)), tensor((8, 2, 1, 1, 1)), groups=2, out_dtype="float16")
    tvm.ir.assert_structural_equal(infer(grouped), relax.TensorStructInfo((1, 8, 5, 5, 5), "float16"))


def test_conv3d_bad_arguments():
    with pytest.raises(ValueError, match="relax.nn.conv3d: operand 'weight' has 2 input channels per group"):
        infer(relax.op.nn.conv3d(tensor((1, 3, 4, 4, 4)), tensor((6, 2, 3, 3, 3))))
    with pytest.raises(ValueError, match="relax.nn.conv3d: operand 'data' must be 5-D"):
        infer(relax.op.nn.conv3d(tensor((1, 3, 4, 4)), tensor((6, 3, 3, 3, 3))))
    with pytest.raises(ValueError, match="relax.nn.conv3d: strides must have 1 or 3 elements, got 2"):
        relax.op.nn.conv3d(tensor((1, 3, 4, 4, 4)), tensor((6, 3, 3, 3, 3)), strides=(1, 2))
    with pytest.raises(ValueError, match="relax.nn.conv3d: attribute 'data_layout' = \"NHWC\" is not a layout of NCDHW"):
        infer(relax.op.nn.conv3d(tensor((1, 4, 4, 4, 3)), tensor((6, 3, 3, 3, 3)), data_layout="NHWC"))


@R.function
def _scripted(x: R.Tensor((1, 2, 6, 7, 8), "float32"), w: R.Tensor((4, 2, 3, 3, 3), "float32")):
    y = R.nn.conv3d(x, w, strides=[2], padding=[0, 1, 2], dilation=[1])
    return y


def test_conv3d_script_completes_attributes_and_runs():
    call = _scripted.body.blocks[0].bindings[0].value
    assert [int(v) for v in call.attrs["strides"]] == [2, 2, 2]
    assert [int(v) for v in call.attrs["padding"]] == [0, 1, 2, 0, 1, 2]
    assert [int(v) for v in call.attrs["dilation"]] == [1, 1, 1]
    tvm.ir.assert_structural_equal(_scripted, tvm.script.from_source(_scripted.script()))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2, 6, 7, 8)).astype("float32")
    w = rng.standard_normal((4, 2, 3, 3, 3)).astype("float32")
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": _scripted}), target="llvm"), tvm.cpu())
    got = vm["main"](tvm.nd.array(x), tvm.nd.array(w)).numpy()
    want = torch.nn.functional.conv3d(torch.from_numpy(x), torch.from_numpy(w), stride=2, padding=(0, 1, 2)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
