"""relax.tile / repeat / flip (src/relax/op/replicate.cc,
python/tessera/relax/op/replicate.py): struct info (static, symbolic,
unknown rank; the data's own struct info when nothing changes), errors naming
attribute and operand, results against NumPy (np.tile, np.repeat, np.flip)
through relax.build, and the TVMScript round trip."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R

from relax_op_helpers import infer, rand, roundtrip, run, tensor


def test_tile_struct_info():
    a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.tile(tensor((2, 10, 4)), (5, 4, 3, 2))),
                                   relax.TensorStructInfo((5, 8, 30, 8), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.tile(tensor((a, b)), 2)), relax.TensorStructInfo((a, b * 2), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.tile(relax.Var("x", R.Tensor("float32", ndim=3)), (1, 2, 3, 4))),
                                   relax.TensorStructInfo(dtype="float32", ndim=4))
    x = tensor((2, 3))
    assert infer(relax.op.tile(x, (1, 1))).same_as(x.struct_info)
    with pytest.raises(ValueError, match="relax.tile: attribute 'repeats' must be >= 0"):
        infer(relax.op.tile(x, -1))


def test_repeat_struct_info():
    a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.repeat(tensor((2, 10, 4)), 2, axis=-2)),
                                   relax.TensorStructInfo((2, 20, 4), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.repeat(tensor((2, 10, 4)), 2)), relax.TensorStructInfo((160,), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.repeat(tensor((a, b)), 3, 1)), relax.TensorStructInfo((a, b * 3), "float32"))
    x = tensor((2, 3))
    assert infer(relax.op.repeat(x, 1, 0)).same_as(x.struct_info)
    with pytest.raises(ValueError, match="relax.repeat: attribute 'axis' = 2 is out of range"):
        infer(relax.op.repeat(x, 2, 2))


def test_flip_struct_info():
    x = tensor((2, 3))
    assert infer(relax.op.flip(x, 1)).same_as(x.struct_info)
    with pytest.raises(ValueError, match="relax.flip: attribute 'axis' = -3 is out of range"):
        infer(relax.op.flip(x, -3))


@pytest.mark.parametrize("reps", [2, (3, 2), (2, 1, 3), (1, 1)])
def test_tile_against_numpy(reps):
    a = rand((2, 3), seed=1)
    np.testing.assert_array_equal(run(lambda x: relax.op.tile(x, reps), a), np.tile(a, reps))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("repeats", [1, 3])
def test_repeat_against_numpy(axis, repeats):
    a = rand((2, 3), "int32", seed=2, low=-9, high=9)
    np.testing.assert_array_equal(run(lambda x: relax.op.repeat(x, repeats, axis), a), np.repeat(a, repeats, axis))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_flip_against_numpy(axis):
    a = rand((3, 4), seed=3)
    np.testing.assert_array_equal(run(lambda x: relax.op.flip(x, axis), a), np.flip(a, axis))


def test_round_trip():
    @tvm.script.ir_module
    class Module:  # pylint: disable=too-few-public-methods
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            a = R.tile(x, (2, 1))
            b = R.repeat(a, 2, axis=0)
            c = R.flip(b, axis=1)
            return c

    text = roundtrip(Module)
    assert "R.tile(" in text and "R.repeat(" in text and "R.flip(" in text


def test_script_tile_int_repeats_is_a_list():
    """R.tile(x, 2) is R.tile(x, [2]) (an int alone is the list of it, as TVM's constructor makes it)."""
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.tile(x, 2)
        return y

    tvm.ir.assert_structural_equal(main.body.blocks[0].bindings[0].value.attrs["repeats"], [2])
    assert main.ret_struct_info.shape.values[0] == 6
