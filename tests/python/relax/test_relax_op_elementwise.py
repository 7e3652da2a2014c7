"""Struct-info inference of the elementwise Relax ops (src/relax/op/binary.cc,
unary.cc): broadcasting with symbolic dims, dtype/shape errors naming the op
and operand, and the TVMScript round trip of R.add / R.log."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import rand, run


def _t(shape, dtype="float32"):
    return relax.Var("x", relax.TensorStructInfo(shape, dtype))


def _infer(call):
    bb = relax.BlockBuilder()
    return bb.normalize(call).struct_info_


def test_broadcast_static():
    s = _infer(relax.op.add(_t((2, 1, 4)), _t((3, 1))))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((2, 3, 4), "float32"))


def test_broadcast_symbolic():
    n = tir.Var("n", "int64")
    s = _infer(relax.op.multiply(_t((n, 4)), _t((1, 4))))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((n, 4), "float32"))
    m = tir.Var("m", "int64")
    s = _infer(relax.op.subtract(_t((n, 4)), _t((m, 4))))
    assert s.ndim == 2 and s.shape is None and s.dtype == "float32"


def test_binary_dtype_mismatch():
    with pytest.raises(TypeError, match=r"relax.add.*x1.*x2.*float32.*int32"):
        _infer(relax.op.add(_t((4,)), _t((4,), "int32")))


def test_binary_incompatible_shapes():
    with pytest.raises(ValueError, match=r"relax.maximum.*broadcast"):
        _infer(relax.op.maximum(_t((3,)), _t((4,))))


def test_unary_keeps_struct_info_and_refuses_int():
    n = tir.Var("n", "int64")
    s = _infer(relax.op.exp(_t((n, 2))))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((n, 2), "float32"))
    with pytest.raises(TypeError, match=r"relax.log.*'x'.*float"):
        _infer(relax.op.log(_t((2,), "int32")))
    with pytest.raises(TypeError, match=r"relax.negative.*'x'"):
        _infer(relax.op.negative(relax.ShapeExpr([2])))


def test_constructor_refuses_non_expr():
    with pytest.raises(TypeError, match=r"relax.add.*x2"):
        relax.op.add(_t((2,)), 3)


def test_script_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((1,), "float32")) -> R.Tensor((4,), "float32"):
            lv = R.log(x)
            gv = R.add(lv, y)
            return gv

    text = Mod.script()
    assert "R.log(x)" in text and "R.add(lv, y)" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), Mod)


@pytest.mark.parametrize("name,ref", [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                                      ("bitwise_xor", np.bitwise_xor)])
def test_bitwise_against_numpy(name, ref):
    a, b = rand((3, 4), "int32", low=-50, high=50), rand((4,), "int32", low=-50, high=50, seed=1)
    np.testing.assert_array_equal(run(getattr(relax.op, name), a, b), ref(a, b))


@pytest.mark.parametrize("name,ref", [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                                      ("logical_xor", np.logical_xor)])
def test_logical_against_numpy(name, ref):
    a, b = rand((3, 4), "bool"), rand((3, 1), "bool", seed=1)
    np.testing.assert_array_equal(run(getattr(relax.op, name), a, b), ref(a, b))


def test_bitwise_logical_dtype_errors():
    with pytest.raises(TypeError, match=r"relax.bitwise_and: operands 'x1' and 'x2' must have an integer dtype"):
        _infer(relax.op.bitwise_and(_t((2,)), _t((2,))))
    with pytest.raises(TypeError, match=r"relax.logical_or: operands 'x1' and 'x2' must have dtype bool"):
        _infer(relax.op.logical_or(_t((2,), "int32"), _t((2,), "int32")))
