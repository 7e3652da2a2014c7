"""relax.op.zeros / relax.op.ones (src/relax/op/create.cc,
python/tessera/relax/op/create.py): struct-info inference over static and
symbolic shapes, errors naming the op and operand, TVMScript R.zeros /
R.ones, and the legalized kernels against NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, tir as T


def _infer(call):
    return relax.BlockBuilder().normalize(call).struct_info


def test_zeros_ones_infer_static_and_symbolic_shapes():
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(_infer(relax.op.zeros((2, 3), "float16")), relax.TensorStructInfo((2, 3), "float16"))
    tvm.ir.assert_structural_equal(_infer(relax.op.ones([n, 4], "int32")), relax.TensorStructInfo((n, 4), "int32"))
    s = relax.Var("s", relax.ShapeStructInfo(ndim=2))
    assert _infer(relax.op.zeros(s, "float32")).ndim == 2


def test_zeros_ones_bad_inputs():
    with pytest.raises(ValueError, match="relax.zeros: operand 'shape' has the negative dimension -2"):
        _infer(relax.op.zeros((2, -2), "float32"))
    with pytest.raises(TypeError, match="relax.ones: attribute 'dtype' is required"):
        relax.op.ones((2,), None)
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    with pytest.raises(TypeError, match="relax.zeros: operand 'shape'"):
        _infer(relax.Call(tvm.ir.Op.get("relax.zeros"), [x], {"dtype": "float32"}))
    with pytest.raises(tvm.error.ParseError, match="dtype"):
        @R.function
        def bad():
            z = R.zeros(R.shape([2]))
            return z


def test_script_zeros_ones_build_and_run():
    @R.function
    def main(x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        z = R.zeros(R.shape([n, 3]), "float32")
        o = R.ones((2,), dtype="int32")
        y = R.add(x, z)
        return (y, o)

    x = relax.Var("x", relax.TensorStructInfo((tir.Var("n", "int64"), 3), "float32"))
    n = x.struct_info.shape[0]
    tvm.ir.assert_structural_equal(main.body.blocks[0].bindings[0].value, relax.op.zeros([n, 3], "float32"),
                                   map_free_vars=True)
    ex = relax.build(tvm.IRModule({"main": main}), "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    data = np.random.rand(5, 3).astype("float32")
    y, o = vm["main"](tvm.nd.array(data))
    np.testing.assert_array_equal(y.numpy(), data + np.zeros((5, 3), "float32"))
    np.testing.assert_array_equal(o.numpy(), np.ones((2,), "int32"))


def test_int_attributes_from_struct_info_dims_equal_python_ints():
    # A static dim (an int64 IntImm) given as an attribute is the same
    # attribute as the Python int: the rewriters of TVM's tests slice with
    # dims read from struct info and compare against parsed scripts.
    x = relax.Var("x", relax.TensorStructInfo((4, 8), "float32"))
    width = x.struct_info.shape[1]
    tvm.ir.assert_structural_equal(relax.op.strided_slice(x, axes=[1], begin=[0], end=[width]),
                                   relax.op.strided_slice(x, axes=[1], begin=[0], end=[8]))


def test_full_infer_script_and_run():
    """relax.op.full: the dtype is the attribute's, else the fill value's; TVMScript
    R.full(shape or dims tuple, value, dtype) round-trips; the kernel fills the value."""
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(_infer(relax.op.full([n, 2], relax.const(1.5, "float32"))),
                                   relax.TensorStructInfo((n, 2), "float32"))
    tvm.ir.assert_structural_equal(_infer(relax.op.full((3,), relax.const(2, "int32"), "float16")),
                                   relax.TensorStructInfo((3,), "float16"))
    with pytest.raises(ValueError, match="relax.full: operand 'shape' has the negative dimension -1"):
        _infer(relax.op.full((2, -1), relax.const(0.0, "float32")))

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        a = R.full(R.shape([2, 3]), R.const(1.5, "float32"), dtype="float32")
        b = R.full((2, 3), R.const(-3, "int32"))
        c = R.add(R.add(a, R.astype(b, "float32")), x)
        return c

    assert main.body.blocks[0].bindings[1].value.struct_info.dtype == "int32"
    tvm.ir.assert_structural_equal(main, tvm.script.from_source(main.script()))
    vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": main}), target="llvm"), tvm.cpu())
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), x - 1.5)
