"""The trigonometric and hyperbolic Relax ops (relax.sin ... relax.atanh),
relax.clip and relax.nn.leakyrelu (src/relax/op/unary.cc, nn/nn.cc):
struct-info inference with its errors naming op and operand, the legalized
kernels against NumPy, and the TVMScript round trip."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import tensor, infer, run, roundtrip, rand

# name -> (NumPy reference, input range)
TRIG = {
    "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)), "tan": (np.tan, (-1.2, 1.2)),
    "asin": (np.arcsin, (-0.99, 0.99)), "acos": (np.arccos, (-0.99, 0.99)), "atan": (np.arctan, (-5, 5)),
    "sinh": (np.sinh, (-3, 3)), "cosh": (np.cosh, (-3, 3)), "asinh": (np.arcsinh, (-5, 5)),
    "acosh": (np.arccosh, (1.01, 5)), "atanh": (np.arctanh, (-0.95, 0.95)),
}


@pytest.mark.parametrize("name", sorted(TRIG))
def test_trig_against_numpy(name):
    ref, (lo, hi) = TRIG[name]
    x = rand((3, 5), low=lo, high=hi)
    np.testing.assert_allclose(run(getattr(relax.op, name), x), ref(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(TRIG))
def test_trig_struct_info_and_int_refused(name):
    op = getattr(relax.op, name)
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(infer(op(tensor((n, 2)))), relax.TensorStructInfo((n, 2), "float32"))
    with pytest.raises(TypeError, match=rf"relax.{name}: operand 'x' must have a float dtype"):
        infer(op(tensor((2,), "int32")))


def test_clip_against_numpy_and_struct_info():
    x = rand((4, 6), low=-3, high=3)
    np.testing.assert_allclose(run(lambda v: relax.op.clip(v, -1.5, 2), x), np.clip(x, -1.5, 2))
    xi = rand((7,), "int32", low=-5, high=5)
    np.testing.assert_array_equal(run(lambda v: relax.op.clip(v, 0, 3), xi), np.clip(xi, 0, 3))
    call = relax.op.clip(tensor((2, 3)), 0, 6)
    assert call.op == tvm.ir.Op.get("relax.clip") and isinstance(call.args[1], relax.PrimValue)
    tvm.ir.assert_structural_equal(infer(call), relax.TensorStructInfo((2, 3), "float32"))


def test_clip_errors_name_op_and_operand():
    with pytest.raises(TypeError, match=r"relax.clip: operand 'min'"):
        relax.op.clip(tensor((2,)), "a", 1)
    bad = relax.Call(tvm.ir.Op.get("relax.clip"), [tensor((2,)), tensor((1,), name="lo"), relax.PrimValue(1)])
    with pytest.raises(TypeError, match=r"relax.clip: operand 'min'.*scalar"):
        infer(bad)
    with pytest.raises(TypeError, match=r"relax.clip: operand 'x'"):
        infer(relax.op.clip(relax.ShapeExpr([2]), 0, 1))


@pytest.mark.parametrize("alpha", [0.01, 0.2])
def test_leakyrelu_against_numpy(alpha):
    x = rand((2, 3, 4))
    got = run(lambda v: relax.op.nn.leakyrelu(v, alpha), x)
    np.testing.assert_allclose(got, np.where(x > 0, x, alpha * x), rtol=1e-6)


def test_leakyrelu_default_alpha_and_errors():
    call = relax.op.nn.leakyrelu(tensor((2, 3)))
    assert abs(float(call.attrs["alpha"]) - 0.01) < 1e-9
    tvm.ir.assert_structural_equal(infer(call), relax.TensorStructInfo((2, 3), "float32"))
    with pytest.raises(TypeError, match=r"relax.nn.leakyrelu: operand 'data' must have a float dtype"):
        infer(relax.op.nn.leakyrelu(tensor((2,), "int32")))


def test_script_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            a = R.sin(x)
            b = R.atanh(a)
            c = R.clip(b, R.prim_value(0.0), R.prim_value(6.0))
            d = R.nn.leakyrelu(c, alpha=0.2)
            return d

    text = roundtrip(Mod)
    assert "R.sin(x)" in text and "R.atanh(a)" in text and "R.clip(" in text and "R.nn.leakyrelu(" in text


# name -> (NumPy reference, dtypes it takes)
ROUNDING = {
    "ceil": np.ceil, "floor": np.floor, "round": np.round, "trunc": np.trunc, "sign": np.sign,
    "square": np.square,
}


@pytest.mark.parametrize("name", sorted(ROUNDING))
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_rounding_sign_square_against_numpy(name, dtype):
    x = rand((4, 5), dtype, low=-3, high=3)
    if dtype == "float32":
        x[0, :4] = [0.5, 1.5, -2.5, 0.0]  # halves round to even as NumPy's
    got = run(getattr(relax.op, name), x)
    assert got.dtype == x.dtype
    np.testing.assert_allclose(got, ROUNDING[name](x), rtol=1e-6)


def test_erf_and_predicates_against_numpy():
    from math import erf  # pylint: disable=import-outside-toplevel
    x = rand((6,), low=-2, high=2)
    np.testing.assert_allclose(run(relax.op.erf, x), np.vectorize(erf)(x).astype("float32"), rtol=1e-5, atol=1e-6)
    y = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], "float32")
    for name, ref in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        got = run(getattr(relax.op, name), y)
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, ref(y))
    xi = np.array([1, -2, 0], "int32")
    np.testing.assert_array_equal(run(relax.op.isfinite, xi), [True] * 3)
    np.testing.assert_array_equal(run(relax.op.bitwise_not, xi), np.bitwise_not(xi))
    b = np.array([True, False, True])
    np.testing.assert_array_equal(run(relax.op.logical_not, b), np.logical_not(b))


def test_unary_dtype_rules():
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.isnan(tensor((n, 2)))), relax.TensorStructInfo((n, 2), "bool"))
    tvm.ir.assert_structural_equal(infer(relax.op.floor(tensor((2,), "int8"))), relax.TensorStructInfo((2,), "int8"))
    with pytest.raises(TypeError, match=r"relax.erf: operand 'x' must have a float dtype"):
        infer(relax.op.erf(tensor((2,), "int32")))
    with pytest.raises(TypeError, match=r"relax.bitwise_not: operand 'x' must have an integer dtype"):
        infer(relax.op.bitwise_not(tensor((2,))))
    with pytest.raises(TypeError, match=r"relax.logical_not: operand 'x' must have dtype bool"):
        infer(relax.op.logical_not(tensor((2,), "int32")))
