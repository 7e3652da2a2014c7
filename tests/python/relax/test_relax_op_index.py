"""Indexing Relax ops (src/relax/op/index.cc, relax/op/index.py): take and
strided_slice against NumPy through relax.build + VM on several shapes and
dtypes (int32/int64 indices), struct-info inference (symbolic dims,
assume_inbound), errors naming op/operand/attribute, round trip, dedup."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I

from relax_op_helpers import infer, rand, roundtrip, run, tensor


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64"])
@pytest.mark.parametrize("idx_dtype", ["int32", "int64"])
@pytest.mark.parametrize("shape,idx_shape,axis", [((5,), (3,), None), ((4, 3), (2,), 0), ((4, 3), (2, 2), 1),
                                                  ((2, 3, 4), (5,), -1)])
def test_take(dtype, idx_dtype, shape, idx_shape, axis):
    a = rand(shape, dtype)
    n = shape[0 if axis is None else axis]
    idx = np.random.default_rng(3).integers(0, n, size=idx_shape).astype(idx_dtype)
    out = run(lambda x, i: relax.op.take(x, i, axis), a, idx)
    np.testing.assert_array_equal(out, np.take(a, idx, axis=axis))


def test_take_modes():
    a = rand((5,), "float32")
    idx = np.array([-1, 2, 7], "int64")
    np.testing.assert_array_equal(run(lambda x, i: relax.op.take(x, i, 0, mode="clip"), a, idx),
                                  np.take(a, idx, mode="clip"))
    np.testing.assert_array_equal(run(lambda x, i: relax.op.take(x, i, 0, mode="wrap"), a, idx),
                                  np.take(a, idx, mode="wrap"))


SLICES = [([0], [1], [3], None), ([1], [0], [2], [1]), ([0, 1], [1, -3], [4, 100], [2, 1]), ([1], [3], [0], [-1]),
          ([-1], [-1], [-5], [-2]), ([0], [10], [20], None)]


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.parametrize("axes,begin,end,strides", SLICES)
def test_strided_slice(dtype, axes, begin, end, strides):
    a = rand((4, 5), dtype)
    index = [slice(None)] * 2
    for k, ax in enumerate(axes):
        index[ax] = slice(begin[k], end[k], strides[k] if strides else None)
    out = run(lambda x: relax.op.strided_slice(x, axes, begin, end, strides), a)
    np.testing.assert_array_equal(out, a[tuple(index)])


def test_struct_info():
    n = tir.Var("n", "int64")
    sinfo = relax.TensorStructInfo
    tvm.ir.assert_structural_equal(infer(relax.op.take(tensor((n, 3)), tensor((2, 4), "int64", "i"), 0)),
                                   sinfo((2, 4, 3), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.take(tensor((n,)), tensor((7,), "int32", "i"))),
                                   sinfo((7,), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.strided_slice(tensor((n, 8)), [1], [2], [6], [2])),
                                   sinfo((n, 2), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.strided_slice(tensor((n, 8)), [0], [1], [3], assume_inbound=True)),
                                   sinfo((2, 8), "float32"))
    s = infer(relax.op.strided_slice(tensor((n, 8)), [0], [1], [3]))  # n may be smaller than 3
    assert s.ndim == 2 and s.shape is None
    tvm.ir.assert_structural_equal(infer(relax.op.strided_slice(tensor((n, 8)), [0], [1], [2**31])),
                                   sinfo((n - tir.min(tir.IntImm("int64", 1), n), 8), "float32"))
    assert infer(relax.op.take(tensor(None), tensor((2,), "int64", "i"), 1)).ndim == -1


@pytest.mark.parametrize("make,err,pattern", [
    (lambda: relax.op.take(tensor((4, 3)), tensor((2,), "float32", "i"), 0), TypeError,
     r"relax.take: operand 'indices' must have an integer dtype, got float32"),
    (lambda: relax.op.take(tensor((4, 3)), tensor((2,), "int64", "i")), ValueError,
     r"relax.take: operand 'x'.*must be 1-D when attribute 'axis' is None"),
    (lambda: relax.op.take(tensor((4, 3)), tensor((2,), "int64", "i"), 2), ValueError,
     r"relax.take: attribute 'axis' = 2 is out of range for operand 'x'"),
    (lambda: relax.op.strided_slice(tensor((4, 3)), [0], [1, 2], [3]), ValueError,
     r"relax.strided_slice: attribute 'begin' has 2 entries, attribute 'axes' 1"),
    (lambda: relax.op.strided_slice(tensor((4, 3)), [0], [1], [3], [0]), ValueError,
     r"relax.strided_slice: attribute 'strides' has a zero stride"),
    (lambda: relax.op.strided_slice(tensor((4, 3)), [2], [1], [3]), ValueError,
     r"relax.strided_slice: attribute 'axes' = 2 is out of range for operand 'x'"),
])
def test_errors(make, err, pattern):
    with pytest.raises(err, match=pattern):
        infer(make())


def test_constructor_errors():
    with pytest.raises(ValueError, match=r"relax.take: attribute 'mode'"):
        relax.op.take(tensor((4,)), tensor((2,), "int64", "i"), 0, mode="bogus")
    with pytest.raises(TypeError, match=r"relax.strided_slice: attribute 'begin' is required"):
        relax.op.strided_slice(tensor((4,)), [0], None, [1])


def test_round_trip_and_dedup():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4, 5), "float32"), i: R.Tensor((2,), "int64")):
            with R.dataflow():
                a = R.take(x, i, 1)
                b = R.take(x, i, axis=1, mode="fast")
                c = R.strided_slice(x, [0, 1], [1, 0], [3, 4], [1, 2])
                d = R.strided_slice(x, axes=[1], begin=[0], end=[2], assume_inbound=True)
                R.output(a, b, c, d)
            return (a, b, c, d)

    text = roundtrip(Mod)
    assert 'R.take(x, i, axis=1, mode="fast")' in text
    assert ("R.strided_slice(x, axes=[0, 1], begin=[1, 0], end=[3, 4], strides=[1, 2], assume_inbound=False)"
            in text)
    legal = relax.transform.LegalizeOps()(Mod)
    names = sorted(gv.name_hint for gv in legal.get_global_vars() if isinstance(legal[gv], tvm.tir.PrimFunc))
    assert names == ["strided_slice", "strided_slice1", "take"]
