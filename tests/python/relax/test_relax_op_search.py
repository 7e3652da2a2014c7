"""Search Relax ops (src/relax/op/search.cc, relax/op/search.py): where with
broadcasting, argmax/argmin with axis/keepdims, against NumPy through
relax.build + VM; struct info; errors; round trip; LegalizeOps dedup."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import infer, rand, roundtrip, run, tensor


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64"])
@pytest.mark.parametrize("sc,sx,sy", [((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), (1,)), ((2, 1), (1, 3), (2, 3))])
def test_where(dtype, sc, sx, sy):
    c, x, y = rand(sc, "bool", 1), rand(sx, dtype, 2), rand(sy, dtype, 3)
    np.testing.assert_array_equal(run(relax.op.where, c, x, y), np.where(c, x, y))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False), (None, True)])
def test_arg_reduce(name, dtype, axis, keepdims):
    a = rand((3, 4), dtype, low=-3, high=3)  # ints repeat: first index wins, as NumPy
    out = run(lambda x: getattr(relax.op, name)(x, axis, keepdims), a)
    expected = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, expected)


def test_struct_info():
    n = tir.Var("n", "int64")
    sinfo = relax.TensorStructInfo
    tvm.ir.assert_structural_equal(infer(relax.op.where(tensor((n, 1), "bool", "c"), tensor((1, 3)), tensor((3,)))),
                                   sinfo((n, 3), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.argmax(tensor((n, 3)), 1)), sinfo((n,), "int64"))
    tvm.ir.assert_structural_equal(infer(relax.op.argmin(tensor((n, 3)), 0, True)), sinfo((1, 3), "int64"))
    tvm.ir.assert_structural_equal(infer(relax.op.argmax(tensor((n, 3)))), sinfo((), "int64"))
    assert infer(relax.op.where(tensor(None, "bool"), tensor((2,)), tensor((2,)))).ndim == -1


def test_errors():
    with pytest.raises(TypeError, match=r"relax.where: operand 'condition' must have dtype bool, got float32"):
        infer(relax.op.where(tensor((2,)), tensor((2,)), tensor((2,))))
    with pytest.raises(TypeError, match=r"relax.where: operands 'x1' and 'x2' must have the same dtype"):
        infer(relax.op.where(tensor((2,), "bool"), tensor((2,)), tensor((2,), "int32")))
    with pytest.raises(ValueError, match=r"relax.where: operands 'condition'.*'x1'.*cannot be broadcast"):
        infer(relax.op.where(tensor((3,), "bool"), tensor((2,)), tensor((2,))))
    with pytest.raises(ValueError, match=r"relax.argmax: attribute 'axis' = 2 is out of range for operand 'x'"):
        infer(relax.op.argmax(tensor((2, 3)), 2))
    with pytest.raises(TypeError, match=r"relax.argmin: attribute 'axis' must be an int or None"):
        relax.op.argmin(tensor((2, 3)), [0])


def test_round_trip_and_dedup():
    @I.ir_module
    class Mod:
        @R.function
        def main(c: R.Tensor((2, 3), "bool"), x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.where(c, x, y)
                b = R.where(c, y, x)
                d = R.argmax(a, 1)
                e = R.argmin(b, axis=0, keepdims=True)
                R.output(d, e)
            return (d, e)

    text = roundtrip(Mod)
    assert "R.argmax(a, axis=1, keepdims=False)" in text and "R.where(c, x, y)" in text
    legal = relax.transform.LegalizeOps()(Mod)
    names = sorted(gv.name_hint for gv in legal.get_global_vars() if isinstance(legal[gv], tvm.tir.PrimFunc))
    assert names == ["argmax", "argmin", "where"]
