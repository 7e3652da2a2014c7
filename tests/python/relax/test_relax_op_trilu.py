"""relax.tril / relax.triu (src/relax/op/create.cc): struct-info inference with
its errors naming op and operand, the legalized kernel against NumPy (k as a
constant and as a symbolic PrimValue), and the TVMScript round trip."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import tensor, infer, run, roundtrip, rand


@pytest.mark.parametrize("name,ref", [("tril", np.tril), ("triu", np.triu)])
@pytest.mark.parametrize("k", [0, 1, -2])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 6, 4)])
def test_trilu_against_numpy(name, ref, k, shape):
    x = rand(shape)
    np.testing.assert_array_equal(run(lambda v: getattr(relax.op, name)(v, k), x), ref(x, k))


def test_trilu_struct_info():
    n = tir.Var("n", "int64")
    call = relax.op.tril(tensor((n, 3, 4)), n)
    assert call.op == tvm.ir.Op.get("relax.tril") and isinstance(call.args[1], relax.PrimValue)
    tvm.ir.assert_structural_equal(infer(call), relax.TensorStructInfo((n, 3, 4), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.triu(tensor(None, "int8"))),
                                   relax.TensorStructInfo(dtype="int8", ndim=-1))


def test_trilu_errors_name_op_and_operand():
    with pytest.raises(ValueError, match=r"relax.tril: operand 'x' must have at least 2 dimensions, got 1"):
        infer(relax.op.tril(tensor((4,))))
    with pytest.raises(TypeError, match=r"relax.triu: operand 'k' must be an int"):
        relax.op.triu(tensor((2, 2)), 1.5)
    bad = relax.Call(tvm.ir.Op.get("relax.triu"), [tensor((2, 2)), relax.PrimValue(tir.FloatImm("float32", 1.0))])
    with pytest.raises(TypeError, match=r"relax.triu: operand 'k' must be an integer"):
        infer(bad)
    with pytest.raises(TypeError, match=r"relax.tril: operand 'x' .*must be a tensor"):
        infer(relax.Call(tvm.ir.Op.get("relax.tril"), [relax.ShapeExpr([2]), relax.PrimValue(0)]))


def test_script_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4, 4), "float32")) -> R.Tensor((4, 4), "float32"):
            a = R.tril(x, R.prim_value(1))
            b = R.triu(a, R.prim_value(-1))
            return b

    text = roundtrip(Mod)
    assert "R.tril(x, R.prim_value(1))" in text and "R.triu(" in text
