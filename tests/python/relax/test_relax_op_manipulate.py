"""Tensor-manipulation Relax ops (src/relax/op/manipulate.cc,
python/tessera/relax/op/manipulate.py): permute_dims, reshape, expand_dims,
squeeze, concat, split, flatten, broadcast_to against NumPy through
relax.build + VM on several shapes and dtypes; struct-info inference with
symbolic and unknown shapes; errors naming op, operand and attribute; the
TVMScript round trip; LegalizeOps deduplication."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir
from tessera.script import relax as R, ir as I, tir as T

from relax_op_helpers import infer, rand, roundtrip, run, tensor

DTYPES = ["float32", "float16", "int32", "int64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes", [((2, 3), None), ((2, 3, 4), [1, 2, 0]), ((2, 3, 4), [-1, 0, 1]),
                                        ((5,), [0])])
def test_permute_dims(dtype, shape, axes):
    a = rand(shape, dtype)
    np.testing.assert_array_equal(run(lambda x: relax.op.permute_dims(x, axes), a), np.transpose(a, axes))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("src,dst", [((2, 3, 4), (6, 4)), ((2, 3, 4), (4, -1)), ((12,), (2, 2, 3)), ((2, 6), (-1,))])
def test_reshape(dtype, src, dst):
    a = rand(src, dtype)
    np.testing.assert_array_equal(run(lambda x: relax.op.reshape(x, dst), a), a.reshape(dst))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_expand_dims_squeeze_flatten(dtype):
    a = rand((2, 1, 3), dtype)
    np.testing.assert_array_equal(run(lambda x: relax.op.expand_dims(x, [0, -1]), a),
                                  np.expand_dims(a, (0, a.ndim + 1)))
    np.testing.assert_array_equal(run(lambda x: relax.op.expand_dims(x, 1), a), np.expand_dims(a, 1))
    np.testing.assert_array_equal(run(relax.op.squeeze, a), np.squeeze(a))
    np.testing.assert_array_equal(run(lambda x: relax.op.squeeze(x, [1]), a), np.squeeze(a, 1))
    np.testing.assert_array_equal(run(relax.op.flatten, a), a.reshape(-1))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(dtype, axis):
    a, b = rand((2, 3), dtype, 1), rand((2, 3), dtype, 2)
    if axis == 0:
        b = rand((4, 3), dtype, 2)
    np.testing.assert_array_equal(run(lambda x, y: relax.op.concat([x, y], axis), a, b),
                                  np.concatenate([a, b], axis))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("ios,axis", [(3, 1), ([1, 4], 1), ([2], 0), (2, 0)])
def test_split(dtype, ios, axis):
    a = rand((4, 6), dtype)
    outs = run(lambda x: relax.op.split(x, ios, axis), a)
    expected = np.split(a, ios, axis)
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("src,dst", [((3,), (2, 3)), ((2, 1), (2, 4)), ((1, 3, 1), (2, 3, 5))])
def test_broadcast_to(dtype, src, dst):
    a = rand(src, dtype)
    np.testing.assert_array_equal(run(lambda x: relax.op.broadcast_to(x, dst), a), np.broadcast_to(a, dst))


# ---- struct info ----
def test_struct_info_symbolic():
    n, m = tir.Var("n", "int64"), tir.Var("m", "int64")
    sinfo = relax.TensorStructInfo
    tvm.ir.assert_structural_equal(infer(relax.op.permute_dims(tensor((n, 3, m)), [2, 0, 1])),
                                   sinfo((m, n, 3), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.permute_dims(tensor((n, m)))), sinfo((m, n), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.reshape(tensor((n, 4)), (2, -1))), sinfo((2, n * 2), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.flatten(tensor((n, 4)))), sinfo((n * 4,), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.expand_dims(tensor((n, m)), [1])), sinfo((n, 1, m), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.squeeze(tensor((n, 1)), [1])), sinfo((n,), "float32"))
    assert infer(relax.op.squeeze(tensor((n, 1)))).ndim == -1  # n may be 1
    tvm.ir.assert_structural_equal(infer(relax.op.concat([tensor((n, 2)), tensor((m, 2), name="y")], 0)),
                                   sinfo((n + m, 2), "float32"))
    s = infer(relax.op.split(tensor((n, 6)), 3, axis=1))
    tvm.ir.assert_structural_equal(s, relax.TupleStructInfo([sinfo((n, 2), "float32")] * 3))
    s = infer(relax.op.split(tensor((2, 7)), [2, 5], axis=1))
    tvm.ir.assert_structural_equal(s, relax.TupleStructInfo([sinfo((2, 2), "float32"), sinfo((2, 3), "float32"),
                                                              sinfo((2, 2), "float32")]))
    tvm.ir.assert_structural_equal(infer(relax.op.broadcast_to(tensor((1, n)), (3, n))), sinfo((3, n), "float32"))


def test_struct_info_unknown_shape_and_shape_var():
    x = tensor(None)
    assert infer(relax.op.permute_dims(x, [1, 0])).ndim == 2
    assert infer(relax.op.permute_dims(x)).ndim == -1
    assert infer(relax.op.flatten(x)).ndim == 1
    assert infer(relax.op.reshape(x, (2, -1))).ndim == 2
    s = relax.Var("s", relax.ShapeStructInfo(ndim=3))
    out = infer(relax.op.reshape(tensor((2, 3)), s))
    assert out.ndim == 3 and out.shape.same_as(s)
    y = relax.Var("y", relax.TensorStructInfo(dtype="float32", ndim=3))
    assert infer(relax.op.reshape(y, (6,))).ndim == 1


def test_reshape_minus_one_resolved_by_constructor():
    call = relax.op.reshape(tensor((2, 3, 4)), (4, -1))
    assert [int(v) for v in call.args[1].values] == [4, 6]


@pytest.mark.parametrize("make,err,pattern", [
    (lambda: relax.op.permute_dims(tensor((2, 3)), [0]), ValueError,
     r"relax.permute_dims: attribute 'axes' has 1 entries but operand 'x' has 2 dimensions"),
    (lambda: relax.op.permute_dims(tensor((2, 3)), [0, 0]), ValueError, r"relax.permute_dims: attribute 'axes' repeats"),
    (lambda: relax.op.permute_dims(tensor((2, 3)), [0, 2]), ValueError,
     r"relax.permute_dims: attribute 'axes' = 2 is out of range for operand 'x'"),
    (lambda: relax.op.reshape(tensor((2, 3)), (4, 2)), ValueError,
     r"relax.reshape: cannot reshape operand 'x'.*6 elements.*8 elements"),
    (lambda: relax.op.reshape(tensor((2, 3)), (-1, -1)), ValueError, r"relax.reshape: operand 'shape' has more than one -1"),
    (lambda: relax.op.reshape(tensor((2, 3)), relax.Var("t", relax.TensorStructInfo((2,), "int64"))), TypeError,
     r"relax.reshape: operand 'shape' \(argument 1\) must be a shape"),
    (lambda: relax.op.expand_dims(tensor((2, 3)), [3]), ValueError, r"relax.expand_dims: attribute 'axis' = 3"),
    (lambda: relax.op.squeeze(tensor((2, 3)), [1]), ValueError,
     r"relax.squeeze: dimension 1 of operand 'x'.*has size 3, not 1"),
    (lambda: relax.op.concat([tensor((2, 3)), tensor((3, 3), name="y")], 1), ValueError,
     r"relax.concat: operand 'tensors\[1\]'.*dimension 0"),
    (lambda: relax.op.concat([tensor((2, 3)), tensor((2,), name="y")], 0), ValueError,
     r"relax.concat: operand 'tensors\[1\]' has 1 dimensions"),
    (lambda: relax.op.concat([tensor((2, 3)), tensor((2, 3), "int32", "y")], 0), TypeError,
     r"relax.concat: operands 'tensors\[0\]' and 'tensors\[1\]' must have the same dtype"),
    (lambda: relax.op.split(tensor((4, 6)), 2, 2), ValueError, r"relax.split: attribute 'axis' = 2 is out of range"),
    (lambda: relax.op.broadcast_to(tensor((2, 3)), (2, 4)), ValueError,
     r"relax.broadcast_to: operand 'x'.*cannot be broadcast.*dimension 1 is 3, the target 4"),
    (lambda: relax.op.broadcast_to(tensor((2, 3)), (3,)), ValueError,
     r"relax.broadcast_to: operand 'shape' has 1 dimensions, fewer than operand 'x'"),
    (lambda: relax.op.flatten(relax.ShapeExpr([2])), TypeError, r"relax.flatten: operand 'x' \(argument 0\) must be a tensor"),
])
def test_struct_info_errors(make, err, pattern):
    with pytest.raises(err, match=pattern):
        infer(make())


def test_constructor_errors():
    with pytest.raises(TypeError, match=r"relax.permute_dims: operand 'x'"):
        relax.op.permute_dims([1, 2])
    with pytest.raises(TypeError, match=r"relax.split: attribute 'indices_or_sections'"):
        relax.op.split(tensor((2,)), "2")
    with pytest.raises(TypeError, match=r"relax.concat: operand 'tensors\[1\]'"):
        relax.op.concat([tensor((2,)), 3])


def test_script_round_trip():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32"), y: R.Tensor((2, 3, 4), "float32")):
            with R.dataflow():
                a = R.permute_dims(x, [2, 0, 1])
                b = R.reshape(a, R.shape([4, 6]))
                c = R.expand_dims(b, [0])
                d = R.squeeze(c, [0])
                e = R.concat((x, y), 1)
                f = R.split(e, 2, 1)
                g = f[0]
                h = R.flatten(g)
                i = R.broadcast_to(h, R.shape([2, 24]))
                R.output(d, i)
            return (d, i)

    text = roundtrip(Mod)
    for expected in ("R.permute_dims(x, axes=[2, 0, 1])", "R.reshape(a, R.shape([4, 6]))",
                     "R.expand_dims(b, axis=[0])", "R.squeeze(c, axis=[0])", "R.concat((x, y), axis=1)",
                     "R.split(e, indices_or_sections=2, axis=1)", "R.flatten(g)", "R.broadcast_to(h, R.shape([2, 24]))"):
        assert expected in text, expected
    x = Mod["main"].params[0]
    tvm.ir.assert_structural_equal(Mod["main"].body.blocks[0].bindings[0].value.attrs,
                                   relax.op.permute_dims(x, [2, 0, 1]).attrs)


def test_legalize_dedup():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.permute_dims(x)
                b = R.permute_dims(y)
                c = R.permute_dims(y, [0, 1])
                R.output(a, b, c)
            return (a, b, c)

    legal = relax.transform.LegalizeOps()(Mod)
    prims = [gv for gv in legal.get_global_vars() if isinstance(legal[gv], tvm.tir.PrimFunc)]
    assert len(prims) == 2


def test_script_shape_operand_as_tuple():
    """R.reshape / R.broadcast_to take the shape as a tuple of dims too (TVM's Python signature); it parses
    to the R.shape form the printer writes, and -1 is inferred."""
    @I.ir_module
    class Tuples:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32")):
            n = T.int64()
            with R.dataflow():
                a = R.reshape(x, (2, n * 2))
                b = R.reshape(a, (-1,))
                c = R.broadcast_to(b, (3, n * 4))
                R.output(c)
            return c

    @I.ir_module
    class Shapes:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32")):
            n = T.int64()
            with R.dataflow():
                a = R.reshape(x, R.shape([2, n * 2]))
                b = R.reshape(a, R.shape([-1]))
                c = R.broadcast_to(b, R.shape([3, n * 4]))
                R.output(c)
            return c

    tvm.ir.assert_structural_equal(Tuples, Shapes)
    roundtrip(Tuples)
    n = Tuples["main"].params[0].struct_info.shape.values[0]
    tvm.ir.assert_structural_equal(Tuples["main"].body.blocks[0].bindings[1].var.struct_info,
                                   relax.TensorStructInfo((n * 4,), "float32"))


def test_concat_of_tuple_var_is_refused_when_legalizing():
    t = relax.Var("t", relax.TupleStructInfo([relax.TensorStructInfo((2, 3), "float32")] * 2))
    bb = relax.BlockBuilder()
    with bb.function("main", [t]):
        gv = bb.emit(relax.op.concat(t, 0), "c")
        bb.emit_func_output(gv)
    tvm.ir.assert_structural_equal(infer(relax.op.concat(t, 0)), relax.TensorStructInfo((4, 3), "float32"))
    with pytest.raises(NotImplementedError, match=r"LegalizeOps: cannot legalize relax.concat bound to 'c'.*"
                                                  r"tuple-valued variable"):
        relax.transform.LegalizeOps()(bb.get())


def test_symbolic_batch_reshape_builds_and_runs():
    """reshape / expand_dims / squeeze / permute_dims over a symbolic batch n, built once, run for two n."""
    n = tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n, 3, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.reshape(x, relax.ShapeExpr([n, 12])))
            b = bb.emit(relax.op.expand_dims(a, [1]))
            c = bb.emit(relax.op.permute_dims(b, [2, 1, 0]))
            gv = bb.emit_output(relax.op.squeeze(c, [1]))
        bb.emit_func_output(gv)
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    for size in (2, 5):
        a = rand((size, 3, 4), seed=size)
        np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), a.reshape(size, 12).T)
