"""Comparison and remaining elementwise Relax ops: equal..greater_equal
(src/relax/op/comparison.cc; bool results), ewise_fma (ternary.cc), and the
power/floor_divide legalizations, against NumPy through relax.build + VM;
struct info, errors, round trip, dedup."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import infer, rand, roundtrip, run, tensor

CMP = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
       "greater": np.greater, "greater_equal": np.greater_equal}


@pytest.mark.parametrize("name", sorted(CMP))
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64"])
@pytest.mark.parametrize("sa,sb", [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5))])
def test_comparison(name, dtype, sa, sb):
    a, b = rand(sa, dtype, 1, -2, 2), rand(sb, dtype, 2, -2, 2)
    if dtype.startswith("float"):
        a, b = np.round(a), np.round(b)  # equal values occur
    out = run(getattr(relax.op, name), a, b)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, CMP[name](a, b))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 4)])
def test_ewise_fma(dtype, shape):
    a, b, c = rand(shape, dtype, 1), rand(shape, dtype, 2), rand(shape, dtype, 3)
    tol = 1e-2 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(run(relax.op.ewise_fma, a, b, c), a * b + c, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_power(dtype):
    a, b = rand((2, 3), dtype, 1, 0.5, 2), rand((3,), dtype, 2, -2, 2)
    np.testing.assert_allclose(run(relax.op.power, a, b), np.power(a, b), rtol=1e-2 if dtype == "float16" else 1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_floor_divide(dtype):
    a = rand((2, 4), dtype, 1, -9, 9)
    b = np.array([3, -2, 4, -5], dtype)
    np.testing.assert_allclose(run(relax.op.floor_divide, a, b), np.floor_divide(a, b), rtol=1e-6)


def test_struct_info_and_errors():
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.less(tensor((n, 1)), tensor((3,), name="y"))),
                                   relax.TensorStructInfo((n, 3), "bool"))
    assert infer(relax.op.equal(tensor(None), tensor((3,), name="y"))).dtype == "bool"
    tvm.ir.assert_structural_equal(infer(relax.op.ewise_fma(tensor((n, 2)), tensor((n, 2)), tensor((n, 2)))),
                                   relax.TensorStructInfo((n, 2), "float32"))
    # As TVM, operands of two dtypes compare (in NumPy's promoted dtype: test_relax_op_tvm_operand_forms.py).
    assert infer(relax.op.greater(tensor((2,)), tensor((2,), "int32"))).dtype == "bool"
    with pytest.raises(ValueError, match=r"relax.equal: operands 'x1'.*'x2'.*cannot be broadcast"):
        infer(relax.op.equal(tensor((2,)), tensor((3,))))
    with pytest.raises(ValueError, match=r"relax.ewise_fma: operand 'x3'.*does not have the shape"):
        infer(relax.op.ewise_fma(tensor((2, 3)), tensor((2, 3)), tensor((2, 1))))
    with pytest.raises(ValueError, match=r"relax.ewise_fma: operands must have the same number of dimensions"):
        infer(relax.op.ewise_fma(tensor((2, 3)), tensor((2, 3)), tensor((3,))))
    with pytest.raises(TypeError, match=r"relax.ewise_fma: operands 'x1' and 'x2' must have the same dtype"):
        infer(relax.op.ewise_fma(tensor((2,)), tensor((2,), "int32"), tensor((2,))))
    with pytest.raises(TypeError, match=r"relax.ewise_fma: operand 'x3'"):
        relax.op.ewise_fma(tensor((2,)), tensor((2,)), 1.0)


def test_round_trip_and_dedup():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                a = R.ewise_fma(x, y, y)
                b = R.ewise_fma(y, x, x)
                c = R.less(a, b)
                d = R.greater_equal(a, b)
                e = R.power(a, b)
                f = R.floor_divide(a, b)
                R.output(c, d, e, f)
            return (c, d, e, f)

    text = roundtrip(Mod)
    assert "R.ewise_fma(x, y, y)" in text and "R.less(a, b)" in text
    legal = relax.transform.LegalizeOps()(Mod)
    names = sorted(gv.name_hint for gv in legal.get_global_vars() if isinstance(legal[gv], tvm.tir.PrimFunc))
    assert names == ["ewise_fma", "floor_divide", "greater_equal", "less", "power"]
