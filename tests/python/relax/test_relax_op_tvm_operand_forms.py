"""Operand forms TVM's Relax operators take beyond tensors of one shape:
a scalar R.Prim operand of the elementwise binary ops and comparisons
(binary.cc), two operands sharing a shape variable, concat with axis None
(1-D tensors), split into sections that do not divide the axis (the last one
shorter). Struct info as TVM's, results against NumPy through relax.build."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, tir

from relax_op_helpers import infer, rand, run, tensor

ARITH = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
         "minimum": np.minimum, "divide": np.divide}
CMP = {"less": np.less, "equal": np.equal, "greater_equal": np.greater_equal}


def prim(dtype="float32", name="p"):
    return relax.Var(name, relax.PrimStructInfo(dtype))


@pytest.mark.parametrize("name", sorted(ARITH) + sorted(CMP))
def test_prim_operand_struct_info(name):
    op = getattr(relax.op, name)
    out_dtype = "bool" if name in CMP else "float32"
    x = tensor((2, 3))
    tvm.ir.assert_structural_equal(infer(op(x, prim())), relax.TensorStructInfo((2, 3), out_dtype))
    tvm.ir.assert_structural_equal(infer(op(prim(), x)), relax.TensorStructInfo((2, 3), out_dtype))
    tvm.ir.assert_structural_equal(infer(op(prim(), prim(name="q"))), relax.PrimStructInfo(out_dtype))
    tvm.ir.assert_structural_equal(infer(op(tensor(None), prim())), relax.TensorStructInfo(dtype=out_dtype, ndim=-1))


def test_prim_operand_dtype_mismatch():
    with pytest.raises(TypeError, match=r"relax.add: operands 'x1' R.Tensor.* and 'x2' R.Prim\(\"int32\"\) have "
                                        r"different dtypes"):
        infer(relax.op.add(tensor((2, 3)), prim("int32")))


@pytest.mark.parametrize("name", sorted(ARITH) + sorted(CMP))
def test_prim_value_operand_runs(name):
    a = rand((2, 3), "float32", 1, 0.5, 2)
    scalar = 1.25
    out = run(lambda x: getattr(relax.op, name)(x, relax.PrimValue(tir.FloatImm("float32", scalar))), a)
    ref = (CMP.get(name) or ARITH[name])(a, np.float32(scalar))
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    out = run(lambda x: getattr(relax.op, name)(relax.PrimValue(tir.FloatImm("float32", scalar)), x), a)
    ref = (CMP.get(name) or ARITH[name])(np.float32(scalar), a)
    np.testing.assert_allclose(out, ref, rtol=1e-6)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "less"])
def test_prim_operand_known_at_run_time(name):
    # An R.Prim parameter: a scalar parameter of the legalized PrimFunc (TVM's form), passed at run time.
    x, p = tensor((2, 3)), prim()
    bb = relax.BlockBuilder()
    with bb.function("main", [x, p]):
        out = bb.emit(getattr(relax.op, name)(x, p))
        bb.emit_func_output(out)
    mod = bb.get()
    prim_funcs = [f for f in relax.transform.LegalizeOps()(mod).functions.values() if isinstance(f, tvm.tir.PrimFunc)]
    assert len(prim_funcs) == 1 and str(prim_funcs[0].params[1].dtype) == "float32"
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a = rand((2, 3), seed=7)
    ref = (CMP.get(name) or ARITH[name])(a, np.float32(0.5))
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a), 0.5).numpy(), ref, rtol=1e-6)


def test_shared_shape_var_is_kept():
    s0 = relax.Var("s0", relax.ShapeStructInfo(ndim=2))
    x = relax.Var("x", relax.TensorStructInfo(s0, "float32"))
    y = relax.Var("y", relax.TensorStructInfo(s0, "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.add(x, y)), relax.TensorStructInfo(s0, "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.equal(x, y)), relax.TensorStructInfo(s0, "bool"))


def test_concat_axis_none():
    x, y = tensor((3,)), tensor((4,), name="y")
    tvm.ir.assert_structural_equal(infer(relax.op.concat([x, y], axis=None)), relax.TensorStructInfo((7,), "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.concat([x, tensor(None, name="z")], axis=None)),
                                   relax.TensorStructInfo(dtype="float32", ndim=1))
    a, b = rand((3,), seed=1), rand((4,), seed=2)
    np.testing.assert_array_equal(run(lambda p, q: relax.op.concat([p, q], axis=None), a, b), np.concatenate([a, b]))
    with pytest.raises(ValueError, match=r"relax.concat: with axis None every tensor must be 1-D, operand "
                                         r"'tensors\[1\]' has 2 dimensions"):
        infer(relax.op.concat([x, tensor((2, 2), name="w")], axis=None))


@pytest.mark.parametrize("n,sections", [(10, 3), (10, 4), (7, 2), (2, 3), (6, 3)])
def test_split_sections_not_dividing(n, sections):
    part = -(-n // sections)
    sizes = [max(0, min(part, n - part * i)) for i in range(sections)]
    sinfo = infer(relax.op.split(tensor((2, n)), sections, axis=1))
    assert [int(f.shape.values[1]) for f in sinfo.fields] == sizes
    a = rand((2, n), seed=3)
    outs = run(lambda x: relax.op.split(x, sections, axis=1), a)
    refs = np.split(a, np.cumsum(sizes)[:-1], axis=1)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        np.testing.assert_array_equal(o, r)


def test_split_sections_symbolic():
    a, b = tir.Var("a", "int64"), tir.Var("b", "int64")
    sinfo = infer(relax.op.split(tensor((a, b)), 3, axis=1))
    ana = tvm.arith.Analyzer()
    dims = [f.shape.values[1] for f in sinfo.fields]
    assert ana.can_prove_equal(dims[0], tir.floordiv(b + 2, 3)) and ana.can_prove_equal(dims[1], dims[0])
    assert ana.can_prove_equal(dims[2], b - tir.floordiv(b + 2, 3) * 2)


@pytest.mark.parametrize("name", sorted(CMP))
@pytest.mark.parametrize("da,db", [("float32", "int32"), ("int32", "int64"), ("float16", "float32")])
def test_comparison_of_two_dtypes(name, da, db):
    tvm.ir.assert_structural_equal(infer(getattr(relax.op, name)(tensor((2, 3), da), tensor((3,), db, "y"))),
                                   relax.TensorStructInfo((2, 3), "bool"))
    a = np.round(rand((2, 3), da, 1, -3, 3))
    b = np.round(rand((3,), db, 2, -3, 3))
    np.testing.assert_array_equal(run(getattr(relax.op, name), a, b), CMP[name](a, b))


def test_split_indices_not_ascending_as_numpy():
    a = rand((2, 10), seed=6)
    outs = run(lambda x: relax.op.split(x, [6, 4], axis=1), a)
    refs = np.split(a, [6, 4], axis=1)
    assert [o.shape for o in outs] == [r.shape for r in refs] == [(2, 6), (2, 0), (2, 6)]
    for o, r in zip(outs, refs):
        np.testing.assert_array_equal(o, r)


def test_concat_of_one_tensor_is_that_tensor():
    s = relax.Var("s", relax.ShapeStructInfo())
    x = relax.Var("x", relax.TensorStructInfo(s, "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.concat([x], axis=None)), relax.TensorStructInfo(s, "float32"))
    tvm.ir.assert_structural_equal(infer(relax.op.concat([tensor((2, 3))], axis=1)),
                                   relax.TensorStructInfo((2, 3), "float32"))
    with pytest.raises(ValueError, match="with axis None every tensor must be 1-D"):
        infer(relax.op.concat([tensor((2, 3))], axis=None))


def test_concat_of_one_tensor_checks_the_axis():
    with pytest.raises(ValueError, match="relax.concat: attribute 'axis' = 5 is out of range"):
        infer(relax.op.concat([tensor((2, 3))], axis=5))


@pytest.mark.parametrize("name", ["add", "greater", "greater_equal"])
def test_zero_dim_constant_enters_the_kernel_as_a_constant(name):
    x = tensor((2, 3))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        out = bb.emit(getattr(relax.op, name)(relax.const(1.0, "float32"), x))
        bb.emit_func_output(out)
    mod = bb.get()
    prim_funcs = [f for f in relax.transform.LegalizeOps()(mod).functions.values() if isinstance(f, tvm.tir.PrimFunc)]
    assert len(prim_funcs) == 1 and len(prim_funcs[0].params) == 2  # x and the output: no buffer for the constant
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a = np.round(rand((2, 3), seed=8))
    ref = {"add": np.add, "greater": np.greater, "greater_equal": np.greater_equal}[name](np.float32(1.0), a)
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), ref)


def test_dropout_of_integers_and_norm_parameter_dtypes():
    # As TVM: inference dropout takes any dtype (the identity, and a mask).
    a = rand((2, 3), "int8", seed=9, low=-5, high=5)
    out = run(lambda x: relax.TupleGetItem(relax.op.nn.dropout(x, 0.5), 0), a)
    np.testing.assert_array_equal(out, a)
    # A norm parameter of unknown dtype does not pass for float32 data.
    with pytest.raises(TypeError, match=r"relax.nn.layer_norm: operand 'beta' must have the dtype of 'data' "
                                        r"\(float32\), got an unknown dtype"):
        infer(relax.op.nn.layer_norm(tensor((2, 3, 4)), tensor((4,), name="g"), tensor((4,), "", "b"), axes=[-1]))


def test_matmul_symbolic_reduction_lengths_provably_different():
    k = tir.Var("k", "int64")
    with pytest.raises(ValueError, match=r"relax.matmul: the reduction dimension of operand 'x1'.* by -1"):
        infer(relax.op.matmul(tensor((3, k)), tensor((k + 1, 5), name="y")))
    tvm.ir.assert_structural_equal(infer(relax.op.matmul(tensor((3, k)), tensor((k, 5), name="y"))),
                                   relax.TensorStructInfo((3, 5), "float32"))
