"""TOPI operators (written in TE) built and run against NumPy, with bad inputs."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi


def _build_run(inputs, out, arrays):
    func = te.create_prim_func(list(inputs) + [out])
    lib = tvm.build(func, target="llvm")
    res = tvm.nd.array(np.zeros([int(s) for s in out.shape], dtype=out.dtype))
    lib["main"](*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def _rand(shape, dtype):
    if dtype.startswith("int"):
        return np.random.randint(-9, 9, size=shape).astype(dtype)
    return (np.random.rand(*shape) - 0.5).astype(dtype)


@pytest.mark.parametrize("name,np_op", [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                                        ("maximum", np.maximum), ("minimum", np.minimum)])
@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (5, 2))])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_broadcast_binary(name, np_op, sa, sb, dtype):
    A = te.placeholder(sa, name="A", dtype=dtype)
    B = te.placeholder(sb, name="B", dtype=dtype)
    C = getattr(topi, name)(A, B)
    assert C.op.name == "T_" + name and C.op.tag == "broadcast"
    a, b = _rand(sa, dtype), _rand(sb, dtype)
    np.testing.assert_allclose(_build_run([A, B], C, [a, b]), np_op(a, b), rtol=1e-6)


def test_scalar_operands():
    A = te.placeholder((4, 3), name="A")
    a = _rand((4, 3), "float32")
    np.testing.assert_allclose(_build_run([A], topi.multiply(A, 2.5), [a]), a * 2.5, rtol=1e-6)
    np.testing.assert_allclose(_build_run([A], topi.subtract(1.0, A), [a]), 1.0 - a, rtol=1e-6)
    assert topi.add(2, 3).value == 5


def test_broadcast_errors():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(ValueError, match=r"topi.add: shapes \[3, 4\] and \[5\] do not broadcast \(dimension 1"):
        topi.add(A, te.placeholder((5,), name="B"))
    with pytest.raises(TypeError, match="topi.multiply: operand dtypes differ"):
        topi.multiply(A, te.placeholder((4,), name="B", dtype="int32"))
    with pytest.raises(TypeError, match="topi.add: rhs must be a te.Tensor or a scalar, got str"):
        topi.add(A, "x")


@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
def test_relu(dtype):
    A = te.placeholder((2, 3, 5), name="A", dtype=dtype)
    B = topi.nn.relu(A)
    a = _rand((2, 3, 5), dtype)
    np.testing.assert_array_equal(_build_run([A], B, [a]), np.maximum(a, 0))
    with pytest.raises(TypeError, match="topi.nn.relu: expected a te.Tensor"):
        topi.nn.relu(a)


@pytest.mark.parametrize("axes,shape", [(None, (2, 3, 4)), ((1, 0, 2), (2, 3, 4)), ((-1, 0), (5, 6)), ((0,), (7,))])
def test_transpose(axes, shape):
    A = te.placeholder(shape, name="A")
    B = topi.transpose(A, axes)
    a = _rand(shape, "float32")
    np.testing.assert_array_equal(_build_run([A], B, [a]), np.transpose(a, axes))


def test_transpose_errors():
    A = te.placeholder((2, 3), name="A")
    with pytest.raises(ValueError, match=r"topi.transpose: axes \[0, 0\] are not a permutation"):
        topi.transpose(A, (0, 0))
    with pytest.raises(ValueError, match="not a permutation"):
        topi.transpose(A, (0, 1, 2))


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_matmul(ta, tb, with_bias):
    m, k, n = 6, 5, 7
    A = te.placeholder((k, m) if ta else (m, k), name="A")
    B = te.placeholder((n, k) if tb else (k, n), name="B")
    bias = te.placeholder((n,), name="bias") if with_bias else None
    C = topi.nn.matmul(A, B, bias, transpose_a=ta, transpose_b=tb)
    a = _rand([int(s) for s in A.shape], "float32")
    b = _rand([int(s) for s in B.shape], "float32")
    c = _rand((n,), "float32")
    ref = (a.T if ta else a) @ (b.T if tb else b) + (c if with_bias else 0)
    inputs, arrays = ([A, B, bias], [a, b, c]) if with_bias else ([A, B], [a, b])
    np.testing.assert_allclose(_build_run(inputs, C, arrays), ref, rtol=1e-5, atol=1e-6)


def test_dense_and_out_dtype():
    X = te.placeholder((4, 8), name="X", dtype="int8")
    W = te.placeholder((3, 8), name="W", dtype="int8")
    Y = topi.nn.dense(X, W, out_dtype="int32")
    assert Y.dtype == "int32" and Y.op.name == "T_matmul_NT"
    x, w = np.random.randint(-100, 100, (4, 8)).astype("int8"), np.random.randint(-100, 100, (3, 8)).astype("int8")
    np.testing.assert_array_equal(_build_run([X, W], Y, [x, w]), x.astype("int32") @ w.astype("int32").T)
    Xf, Wf, bf = te.placeholder((2, 8), name="X"), te.placeholder((3, 8), name="W"), te.placeholder((3,), name="b")
    xf, wf, b = _rand((2, 8), "float32"), _rand((3, 8), "float32"), _rand((3,), "float32")
    np.testing.assert_allclose(_build_run([Xf, Wf, bf], topi.nn.dense(Xf, Wf, bf), [xf, wf, b]), xf @ wf.T + b,
                               rtol=1e-5, atol=1e-6)


def test_matmul_errors_and_missing_ops():
    A = te.placeholder((3, 4), name="A")
    with pytest.raises(ValueError, match=r"topi.nn.matmul: reduction dimensions differ \(4 vs 5\)"):
        topi.nn.matmul(A, te.placeholder((5, 2), name="B"))
    with pytest.raises(ValueError, match="topi.nn.dense: weight W must be 2-D"):
        topi.nn.dense(A, te.placeholder((4,), name="W"))
    with pytest.raises(NotImplementedError, match="tessera.topi.nn.conv2d is not implemented yet"):
        topi.nn.conv2d  # pylint: disable=pointless-statement
