"""relax.op.image.resize2d (src/relax/op/image.cc, legalized in
python/tessera/relax/op/image.py): struct info, the attributes in TVM's typed forms
(ints of float attributes as floats, out_dtype "" as "void"), errors naming op and
attribute, and results against PyTorch's interpolate."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import relax as R

from relax_op_helpers import infer, tensor

torch = pytest.importorskip("torch")


def test_resize2d_struct_info_and_errors():
    tvm.ir.assert_structural_equal(infer(relax.op.image.resize2d(tensor((1, 3, 4, 4)), (8, 6))),
                                   relax.TensorStructInfo((1, 3, 8, 6), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.image.resize2d(tensor((1, 3, 4, 4)), 5, out_dtype="float16")),
                                   relax.TensorStructInfo((1, 3, 5, 5), "float16"))
    assert [int(v) for v in infer(relax.op.image.resize2d(tensor((1, 4, 4, 3)), (8, 8), layout="NHWC")).shape.values] \
        == [1, 8, 8, 3]
    with pytest.raises(ValueError, match="relax.image.resize2d: attribute 'layout' = \"NHWD\" is not a layout of NCHW"):
        infer(relax.op.image.resize2d(tensor((1, 4, 4, 3)), (8, 8), layout="NHWD"))
    with pytest.raises(ValueError, match="attribute 'method' = \"cubic\" is not supported"):
        infer(relax.op.image.resize2d(tensor((1, 3, 4, 4)), (8, 8), method="cubic"))
    with pytest.raises(ValueError, match="operand 'data' must be 4-D"):
        infer(relax.op.image.resize2d(tensor((3, 4, 4)), (8, 8)))


@R.function
def _scripted(x: R.Tensor((1, 2, 4, 6), "float32")):
    a = R.image.resize2d(x, (6, 9), roi=[0.0, 0.0, 0.0, 0.0], layout="NCHW", method="nearest_neighbor",
                         coordinate_transformation_mode="asymmetric", rounding_method="floor", cubic_alpha=-0.5,
                         cubic_exclude=0, extrapolation_value=0, out_dtype="")
    b = R.image.resize2d(x, R.shape([7, 5]), method="linear", coordinate_transformation_mode="align_corners")
    return (a, b)


def test_resize2d_script_forms_and_run():
    attrs = _scripted.body.blocks[0].bindings[0].value.attrs
    assert isinstance(attrs["extrapolation_value"], tvm.tir.FloatImm) and attrs["out_dtype"] == "void"
    tvm.ir.assert_structural_equal(_scripted, tvm.script.from_source(_scripted.script()))
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 6)).astype("float32")
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": _scripted}), target="llvm"), tvm.cpu())
    a, b = vm["main"](tvm.nd.array(x))
    t = torch.from_numpy(x)
    np.testing.assert_allclose(a.numpy(), torch.nn.functional.interpolate(t, (6, 9), mode="nearest").numpy())
    np.testing.assert_allclose(b.numpy(), torch.nn.functional.interpolate(t, (7, 5), mode="bilinear",
                                                                         align_corners=True).numpy(),
                               rtol=1e-5, atol=1e-6)
