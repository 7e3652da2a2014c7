"""topi.nn.batch_matmul against NumPy: transposes, batch broadcasting, out_dtype,
oshape, and its argument errors."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi


def _run(a_shape, b_shape, dtype="float32", **kwargs):
    A = te.placeholder(a_shape, dtype, name="A")
    B = te.placeholder(b_shape, dtype, name="B")
    C = topi.nn.batch_matmul(A, B, **kwargs)
    f = tvm.build(te.create_prim_func([A, B, C]), target="llvm")
    rng = np.random.default_rng(0)
    if dtype.startswith("int"):
        a = rng.integers(-5, 5, a_shape).astype(dtype)
        b = rng.integers(-5, 5, b_shape).astype(dtype)
    else:
        a = rng.standard_normal(a_shape).astype(dtype)
        b = rng.standard_normal(b_shape).astype(dtype)
    c = tvm.nd.empty([int(d) for d in C.shape], C.dtype)
    f(tvm.nd.array(a), tvm.nd.array(b), c)
    return a, b, c.numpy()


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_batch_matmul_matches_numpy(transpose_a, transpose_b):
    a_shape = (3, 7, 5) if transpose_a else (3, 5, 7)
    b_shape = (3, 6, 7) if transpose_b else (3, 7, 6)
    a, b, c = _run(a_shape, b_shape, transpose_a=transpose_a, transpose_b=transpose_b)
    at = a.transpose(0, 2, 1) if transpose_a else a
    bt = b.transpose(0, 2, 1) if transpose_b else b
    np.testing.assert_allclose(c, at @ bt, rtol=1e-5, atol=1e-5)


def test_batch_matmul_broadcasts_a_batch_of_one_and_defaults_to_transpose_b():
    a, b, c = _run((1, 4, 8), (5, 3, 8))
    np.testing.assert_allclose(c, a @ b.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    a, b, c = _run((5, 4, 8), (1, 3, 8))
    np.testing.assert_allclose(c, a @ b.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)


def test_batch_matmul_int32_and_out_dtype():
    a, b, c = _run((2, 3, 4), (2, 5, 4), dtype="int32")
    np.testing.assert_array_equal(c, a @ b.transpose(0, 2, 1))
    A = te.placeholder((2, 3, 4), "float16", name="A")
    B = te.placeholder((2, 5, 4), "float16", name="B")
    assert topi.nn.batch_matmul(A, B, out_dtype="float32").dtype == "float32"


def test_batch_matmul_oshape_checked():
    A = te.placeholder((2, 3, 4), "float32", name="A")
    B = te.placeholder((2, 5, 4), "float32", name="B")
    assert [int(d) for d in topi.nn.batch_matmul(A, B, oshape=(2, 3, 5)).shape] == [2, 3, 5]
    with pytest.raises(ValueError, match="oshape columns"):
        topi.nn.batch_matmul(A, B, oshape=(2, 3, 6))


def test_batch_matmul_bad_operands_name_the_problem():
    A = te.placeholder((2, 3, 4), "float32", name="A")
    with pytest.raises(ValueError, match="reduction dimensions"):
        topi.nn.batch_matmul(A, te.placeholder((2, 5, 3), "float32", name="B"))
    with pytest.raises(ValueError, match="batch dimensions"):
        topi.nn.batch_matmul(A, te.placeholder((3, 5, 4), "float32", name="B"))
    with pytest.raises(ValueError, match="must be 3-D"):
        topi.nn.batch_matmul(A, te.placeholder((5, 4), "float32", name="B"))
    with pytest.raises(TypeError, match="te.Tensor"):
        topi.nn.batch_matmul(A, np.zeros((2, 5, 4)))
    with pytest.raises(tvm.error.TVMError):
        topi.nn.batch_matmul(A, te.placeholder((2, 5, 3), "float32", name="B"))
