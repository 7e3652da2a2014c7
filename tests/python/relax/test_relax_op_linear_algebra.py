"""relax.op.matmul / relax.op.linear (src/relax/op/linear_algebra.cc,
python/tessera/relax/op/linear_algebra.py, topi.matmul): NumPy results through
relax.build + VM over shapes (batch broadcasting, 1-D operands) and dtypes,
struct-info inference (symbolic dims, out_dtype), errors naming op and
operand, the TVMScript round trip and LegalizeOps sharing one PrimFunc."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import infer, rand, roundtrip, run, tensor


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)),
                                   ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 6))])
def test_matmul_matches_numpy(sa, sb):
    a, b = rand(sa, seed=1), rand(sb, seed=2)
    np.testing.assert_allclose(run(relax.op.matmul, a, b), np.matmul(a, b), rtol=1e-5, atol=1e-5)


def test_matmul_float16_and_int32():
    a, b = rand((3, 8), "float16", 1), rand((8, 2), "float16", 2)
    np.testing.assert_allclose(run(relax.op.matmul, a, b), np.matmul(a, b), rtol=1e-2, atol=1e-2)
    a, b = rand((3, 4), "int32", 1, -5, 5), rand((4, 2), "int32", 2, -5, 5)
    np.testing.assert_array_equal(run(relax.op.matmul, a, b), a @ b)


def test_matmul_out_dtype():
    a, b = rand((3, 4), "float16", 1), rand((4, 2), "float16", 2)
    out = run(lambda x, y: relax.op.matmul(x, y, out_dtype="float32"), a, b)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, a.astype("float32") @ b.astype("float32"), rtol=1e-5, atol=1e-5)


def test_linear_matches_numpy():
    x, w, b = rand((2, 5), seed=1), rand((3, 5), seed=2), rand((3,), seed=3)
    np.testing.assert_allclose(run(relax.op.linear, x, w, b), x @ w.T + b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(relax.op.linear, x, w), x @ w.T, rtol=1e-5, atol=1e-5)


def test_matmul_struct_info():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    s = infer(relax.op.matmul(tensor((n, 4)), tensor((4, m), name="y")))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((n, m), "float32"))
    s = infer(relax.op.matmul(tensor((2, 1, n, 4)), tensor((3, 4, 5), name="y")))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((2, 3, n, 5), "float32"))
    s = infer(relax.op.matmul(tensor((4,)), tensor((4,), name="y")))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((), "float32"))
    s = infer(relax.op.matmul(tensor((3, 4), "float16"), tensor((4, 2), "float16", "y"), out_dtype="float32"))
    tvm.ir.assert_structural_equal(s, relax.TensorStructInfo((3, 2), "float32"))
    s = infer(relax.op.matmul(tensor(None), tensor((4, 2), name="y")))
    assert s.ndim == -1 and s.dtype == "float32"
    s = infer(relax.op.matmul(tensor((3, 4)), relax.Var("y", relax.TensorStructInfo(dtype="float32", ndim=3))))
    assert s.ndim == 3 and s.shape is None


def test_matmul_errors_name_op_and_operand():
    with pytest.raises(ValueError, match=r"relax.matmul: the reduction dimension of operand 'x1'.*\(4\).*'x2'.*\(5\)"):
        infer(relax.op.matmul(tensor((3, 4)), tensor((5, 2), name="y")))
    with pytest.raises(TypeError, match=r"relax.matmul: operands 'x1' and 'x2' must have the same dtype"):
        infer(relax.op.matmul(tensor((3, 4)), tensor((4, 2), "float16", "y")))
    with pytest.raises(ValueError, match=r"relax.matmul: operand 'x2' must have at least 1 dimension"):
        infer(relax.op.matmul(tensor((3, 4)), tensor((), name="y")))
    with pytest.raises(ValueError, match=r"relax.matmul: operands 'x1'.*'x2'.*cannot be broadcast"):
        infer(relax.op.matmul(tensor((2, 3, 4)), tensor((3, 4, 5), name="y")))
    with pytest.raises(TypeError, match=r"relax.matmul: operand 'x2'"):
        relax.op.matmul(tensor((3, 4)), 2)


def test_matmul_script_round_trip_and_dedup():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((4, 3), "float32")):
            with R.dataflow():
                wt = R.permute_dims(w)
                a = R.matmul(x, wt)
                b = R.matmul(x, wt, out_dtype="float32")
                gv = R.add(a, b)
                R.output(gv)
            return gv

    text = roundtrip(Mod)
    assert 'R.matmul(x, wt, out_dtype="void")' in text
    # The two matmuls of identical shapes and dtypes share one PrimFunc.
    legal = relax.transform.LegalizeOps()(Mod)
    prims = [gv.name_hint for gv in legal.get_global_vars() if isinstance(legal[gv], tvm.tir.PrimFunc)]
    assert sorted(prims) == ["add", "matmul", "transpose"]



def test_symbolic_batch_builds_and_runs():
    """A module over a symbolic batch n (matmul, permute_dims, sum, where, argmax, astype) runs for two n."""
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                a = R.matmul(x, R.permute_dims(w))
                b = R.mean(a, [1], True)
                c = R.where(R.greater(a, b), a, R.negative(a))
                d = R.astype(R.argmax(c, 1), "float32")
                gv = R.add(R.sum(c, [1]), d)
                R.output(gv)
            return gv

    vm = relax.VirtualMachine(relax.build(Mod, target="llvm"), tvm.cpu())
    w = rand((3, 4), seed=7)
    for n in (2, 5):
        x = rand((n, 4), seed=n)
        a = x @ w.T
        c = np.where(a > a.mean(1, keepdims=True), a, -a)
        expected = c.sum(1) + np.argmax(c, 1).astype("float32")
        np.testing.assert_allclose(vm["main"](tvm.nd.array(x), tvm.nd.array(w)).numpy(), expected, rtol=1e-5,
                                   atol=1e-5)
