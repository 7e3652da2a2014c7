"""Reduction Relax ops (src/relax/op/statistical.cc, relax/op/statistical.py):
sum, mean, max, min, prod with axis/keepdims against NumPy through
relax.build + VM; struct-info inference (symbolic, unknown ndim); errors; the
TVMScript round trip (positional attributes) and LegalizeOps deduplication."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import infer, rand, roundtrip, run, tensor

OPS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), ([1], False), ([0, 2], True), ([-1], True), (None, True)])
def test_reduction_matches_numpy(name, dtype, axis, keepdims):
    if name == "mean" and dtype == "int32":
        pytest.skip("mean of integers is refused by topi.mean (tested below)")
    low, high = (0.5, 1.5) if name == "prod" else (-2, 2)
    a = rand((2, 3, 4), dtype, low=low, high=high)
    op = getattr(relax.op, name)
    out = run(lambda x: op(x, axis, keepdims), a)
    expected = OPS[name](a, axis=None if axis is None else tuple(axis), keepdims=keepdims)
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(out, expected.astype(dtype), rtol=tol, atol=tol)
    assert out.dtype == np.dtype(dtype)


def test_struct_info():
    n = tir.Var("n", "int64")
    sinfo = relax.TensorStructInfo
    tvm.ir.assert_structural_equal(infer(relax.op.sum(tensor((n, 3, 4)), [1])), sinfo((n, 4), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.mean(tensor((n, 3)), [0], keepdims=True)), sinfo((1, 3), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.max(tensor((n, 3)))), sinfo((), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.min(tensor((n, 3)), 1)), sinfo((n,), "float32"))
    assert infer(relax.op.sum(tensor(None), [1])).ndim == -1
    assert infer(relax.op.sum(tensor(None))).ndim == 0
    s = infer(relax.op.prod(relax.Var("y", relax.TensorStructInfo(dtype="int32", ndim=3)), [0, 1]))
    assert s.ndim == 1 and s.dtype == "int32" and s.shape is None


def test_errors():
    with pytest.raises(ValueError, match=r"relax.sum: attribute 'axis' = 2 is out of range for operand 'x' of 2 dim"):
        infer(relax.op.sum(tensor((2, 3)), [2]))
    with pytest.raises(ValueError, match=r"relax.mean: attribute 'axis' repeats axis 1"):
        infer(relax.op.mean(tensor((2, 3)), [1, -1]))
    with pytest.raises(TypeError, match=r"relax.max: operand 'x' \(argument 0\) must be a tensor"):
        infer(relax.op.max(relax.ShapeExpr([2])))
    with pytest.raises(TypeError, match=r"relax.sum: attribute 'axis' must be an int or a list of ints"):
        relax.op.sum(tensor((2,)), "0")
    with pytest.raises(TypeError, match=r"relax.sum: attribute 'axis' must be a list of ints or None"):
        infer(relax.Call(tvm.ir.Op.get("relax.sum"), [tensor((2,))], {"axis": "zero"}))


def test_script_round_trip_and_dedup():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.sum(x, [1])
                b = R.sum(y, axis=[1], keepdims=False)
                c = R.mean(x, [0], True)
                d = R.prod(y)
                R.output(a, b, c, d)
            return (a, b, c, d)

    text = roundtrip(Mod)
    assert "R.sum(x, axis=[1], keepdims=False)" in text and "R.mean(x, axis=[0], keepdims=True)" in text
    assert "R.prod(y, axis=None, keepdims=False)" in text
    legal = relax.transform.LegalizeOps()(Mod)
    names = sorted(gv.name_hint for gv in legal.get_global_vars() if isinstance(legal[gv], tvm.tir.PrimFunc))
    assert names == ["mean", "prod", "sum"]


def test_legalizing_unknown_shape_names_op_and_binding():
    x = relax.Var("x", relax.TensorStructInfo(dtype="float32", ndim=2))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        gv = bb.emit(relax.op.sum(x, [1]), "s")
        bb.emit_func_output(gv)
    with pytest.raises(TypeError, match=r"LegalizeOps: cannot legalize relax.sum bound to 's': .*known shape"):
        relax.transform.LegalizeOps()(bb.get())


# ---------------------------------------------------------------- cumsum, cumprod

def _np_scan(name, x, axis, dtype, exclusive):
    fn = np.cumsum if name == "cumsum" else np.cumprod
    if axis is None:
        x, axis = x.reshape(-1), 0
    out = fn(x.astype(dtype or x.dtype), axis=axis)
    if exclusive:
        ident = 0 if name == "cumsum" else 1
        out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), ident),
                              np.take(out, range(x.shape[axis] - 1), axis=axis)], axis=axis)
    return out


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis,dtype,exclusive", [(1, None, False), (-1, None, True), (None, None, False),
                                                  (0, "float64", False)])
def test_scan_against_numpy(name, axis, dtype, exclusive):
    x = rand((3, 4, 5), low=0.5, high=1.5)
    got = run(lambda v: getattr(relax.op, name)(v, axis=axis, dtype=dtype, exclusive=exclusive), x)
    ref = _np_scan(name, x, axis, dtype, exclusive)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5)


def test_scan_int_and_struct_info():
    xi = rand((2, 6), "int32", low=-3, high=3)
    np.testing.assert_array_equal(run(lambda v: relax.op.cumsum(v, axis=1), xi), np.cumsum(xi, axis=1))
    n = tir.Var("n", "int64")
    tvm.ir.assert_structural_equal(infer(relax.op.cumsum(tensor((n, 3)), axis=0, dtype="int64")),
                                   relax.TensorStructInfo((n, 3), "int64"))
    tvm.ir.assert_structural_equal(infer(relax.op.cumprod(tensor((n, 3)))), relax.TensorStructInfo((n * 3,), "float32"))
    with pytest.raises(ValueError, match=r"relax.cumsum: .*axis.*out of range"):
        infer(relax.op.cumsum(tensor((2, 3)), axis=2))
    with pytest.raises(TypeError, match=r"relax.cumprod: operand 'data'"):
        infer(relax.op.cumprod(relax.ShapeExpr([2])))


def test_scan_script_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3, 4), "float32")) -> R.Tensor((3, 4), "float32"):
            a = R.cumsum(x, axis=1, exclusive=True)
            b = R.cumprod(a, axis=0, dtype="float32")
            return b

    text = roundtrip(Mod)
    assert "R.cumsum(x, axis=1" in text and "R.cumprod(" in text
