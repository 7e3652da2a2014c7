"""TOPI operators added for the Relax tensor ops, built with tvm.build and run
against NumPy, one section per TOPI file: matmul.py (NumPy broadcasting,
1-D operands, transposes, out_dtype), transform.py (split, strided_slice),
reduction.py (prod, argmax, argmin), broadcast.py (power, floor_divide); with
bad inputs."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, topi


def _build_run(inputs, outs, arrays):
    outs = outs if isinstance(outs, list) else [outs]
    func = te.create_prim_func(list(inputs) + outs)
    lib = tvm.build(func, target="llvm")
    res = [tvm.nd.array(np.zeros([int(s) for s in o.shape], dtype=o.dtype)) for o in outs]
    lib["main"](*[tvm.nd.array(a) for a in arrays], *res)
    return [r.numpy() for r in res]


def _rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


# ---- matmul.py ----
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 2)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((3, 4), (4,)),
                                   ((5,), (5,)), ((2, 1, 3, 4), (3, 4, 2))])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_matmul(sa, sb, dtype):
    a, b = _rand(sa, dtype, 1), _rand(sb, dtype, 2)
    A, B = te.placeholder(sa, dtype, "A"), te.placeholder(sb, dtype, "B")
    (out,) = _build_run([A, B], topi.matmul(A, B), [a, b])
    np.testing.assert_allclose(out, np.matmul(a, b), rtol=1e-5, atol=1e-5)


def test_matmul_transposes_and_out_dtype():
    a, b = _rand((4, 3), "float32", 1), _rand((5, 4), "float32", 2)
    A, B = te.placeholder((4, 3), "float32", "A"), te.placeholder((5, 4), "float32", "B")
    (out,) = _build_run([A, B], topi.matmul(A, B, transp_a=True, transp_b=True), [a, b])
    np.testing.assert_allclose(out, a.T @ b.T, rtol=1e-5, atol=1e-5)
    a16, b16 = a.astype("float16"), b.astype("float16")
    A, B = te.placeholder((4, 3), "float16", "A"), te.placeholder((5, 4), "float16", "B")
    (out,) = _build_run([A, B], topi.matmul(B, A, out_dtype="float32"), [a16, b16])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, b16.astype("float32") @ a16.astype("float32"), rtol=1e-5, atol=1e-5)


def test_matmul_errors():
    A = te.placeholder((3, 4), "float32", "A")
    with pytest.raises(ValueError, match=r"topi.matmul: reduction dims differ \(A: 4, B: 5\)"):
        topi.matmul(A, te.placeholder((5, 2), "float32", "B"))
    with pytest.raises(TypeError, match=r"topi.matmul: operand dtypes differ"):
        topi.matmul(A, te.placeholder((4, 2), "float16", "B"))
    with pytest.raises(ValueError, match=r"topi.matmul: b \(B\) must have at least 1 dimension"):
        topi.matmul(A, te.placeholder((), "float32", "B"))
    with pytest.raises(ValueError, match=r"topi.matmul: shapes .* do not broadcast"):
        topi.matmul(te.placeholder((2, 3, 4), "float32", "A"), te.placeholder((3, 4, 2), "float32", "B"))


# ---- transform.py: split, strided_slice ----
@pytest.mark.parametrize("ios,axis", [(2, 0), (3, 1), ([1, 4], 1), ([2, 2], 0), ([-2], 1)])
def test_split(ios, axis):
    a = _rand((4, 6), "float32")
    A = te.placeholder((4, 6), "float32", "A")
    outs = _build_run([A], topi.split(A, ios, axis), [a])
    expected = np.split(a, ios, axis)
    assert len(outs) == len(expected)
    for o, e in zip(outs, expected):
        np.testing.assert_array_equal(o, e)


@pytest.mark.parametrize("begin,end,strides,axes", [([1], [3], None, None), ([0, 1], [4, 5], [2, 2], None),
                                                    ([3], [0], [-1], [1]), ([-1, -2], [-5, 100], [-1, 1], [0, 1]),
                                                    ([5], [9], None, [0])])
def test_strided_slice(begin, end, strides, axes):
    a = _rand((4, 6), "int32")
    A = te.placeholder((4, 6), "int32", "A")
    index = [slice(None)] * 2
    for k, ax in enumerate(axes if axes is not None else range(len(begin))):
        index[ax] = slice(begin[k], end[k], strides[k] if strides else None)
    (out,) = _build_run([A], topi.strided_slice(A, begin, end, strides, axes), [a])
    np.testing.assert_array_equal(out, a[tuple(index)])


def test_split_and_slice_errors():
    A = te.placeholder((4, 6), "float32", "A")
    with pytest.raises(ValueError, match=r"topi.split: dimension 1 of A \(6\) cannot be split into 4"):
        topi.split(A, 4, 1)
    assert [list(map(int, p.shape)) for p in topi.split(A, [3, 1], 1)] == [[4, 3], [4, 0], [4, 5]]  # as np.split
    with pytest.raises(ValueError, match=r"topi.strided_slice: a stride is zero"):
        topi.strided_slice(A, [0], [2], [0])
    with pytest.raises(ValueError, match=r"topi.strided_slice: axis 2 is out of range"):
        topi.strided_slice(A, [0], [2], None, [2])


# ---- reduction.py: prod, argmax, argmin ----
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 2), True)])
def test_prod(axis, keepdims):
    a = np.random.default_rng(0).uniform(0.5, 1.5, (2, 3, 4)).astype("float32")
    A = te.placeholder((2, 3, 4), "float32", "A")
    (out,) = _build_run([A], topi.prod(A, axis, keepdims), [a])
    np.testing.assert_allclose(out, np.prod(a, axis=axis, keepdims=keepdims), rtol=1e-5)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (0, False), (1, True), (-1, False), (None, True)])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_arg_reduce(name, axis, keepdims, dtype):
    a = _rand((3, 5), dtype)  # int32 values repeat: the first index wins, as NumPy
    A = te.placeholder((3, 5), dtype, "A")
    (out,) = _build_run([A], getattr(topi, name)(A, axis, keepdims), [a])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, getattr(np, name)(a, axis=axis, keepdims=keepdims))


def test_arg_reduce_errors():
    A = te.placeholder((3, 5), "float32", "A")
    with pytest.raises(ValueError, match=r"topi.argmax: axis must be one int or None"):
        topi.argmax(A, [0, 1])
    with pytest.raises(ValueError, match=r"topi.argmin: axis 2 is out of range"):
        topi.argmin(A, 2)
    with pytest.raises(ValueError, match=r"select_last_index=True is not supported"):
        topi.argmax(A, 0, select_last_index=True)


# ---- broadcast.py: power, floor_divide ----
@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((3, 4), (4,))])
def test_power(sa, sb):
    a = np.random.default_rng(1).uniform(0.5, 2, sa).astype("float32")
    b = _rand(sb, "float32", 2) * 3
    A, B = te.placeholder(sa, "float32", "A"), te.placeholder(sb, "float32", "B")
    (out,) = _build_run([A, B], topi.power(A, B), [a, b])
    np.testing.assert_allclose(out, np.power(a, b), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
def test_floor_divide(dtype):
    a = _rand((3, 4), dtype, 1) * 3
    b = np.array([2, -3, 4, -1], dtype)
    A, B = te.placeholder((3, 4), dtype, "A"), te.placeholder((4,), dtype, "B")
    (out,) = _build_run([A, B], topi.floor_divide(A, B), [a, b])
    np.testing.assert_allclose(out, np.floor_divide(a, b), rtol=1e-6)


def test_power_refuses_integers():
    A = te.placeholder((3,), "int32", "A")
    with pytest.raises(TypeError, match=r"topi.power: needs floating-point operands"):
        topi.power(A, A)


# ---- transform.py: reshape of symbolic shapes ----
def test_reshape_symbolic():
    n = te.var("n", "int64")
    A = te.placeholder((n, 3, 4), "float32", "A")
    B = topi.reshape(A, (n, 2, 6))
    func = te.create_prim_func([A, B], index_dtype_override="int64")
    lib = tvm.build(func.with_attr("global_symbol", "main"), target="llvm")
    a = _rand((5, 3, 4), "float32")
    b = tvm.nd.array(np.zeros((5, 2, 6), "float32"))
    lib["main"](tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), a.reshape(5, 2, 6))
    with pytest.raises(ValueError, match=r"topi.reshape: a -1 in .* needs the static shape of A"):
        topi.reshape(A, (-1, 6))


def _run_symbolic(inputs, out, arrays, out_shape):
    func = te.create_prim_func(list(inputs) + [out], index_dtype_override="int64")
    lib = tvm.build(func.with_attr("global_symbol", "main"), target="llvm")
    res = tvm.nd.array(np.zeros(out_shape, dtype=out.dtype))
    lib["main"](*[tvm.nd.array(a) for a in arrays], res)
    return res.numpy()


def test_squeeze_concat_split_with_symbolic_dims():
    n = te.var("n", "int64")
    A = te.placeholder((n, 1, 3), "float32", "A")
    a = _rand((4, 1, 3), "float32", 1)
    np.testing.assert_array_equal(_run_symbolic([A], topi.squeeze(A, [1]), [a], (4, 3)), a.squeeze(1))
    B = te.placeholder((n, 2, 3), "float32", "B")
    b = _rand((4, 2, 3), "float32", 2)
    np.testing.assert_array_equal(_run_symbolic([A, B], topi.concatenate([A, B], 1), [a, b], (4, 3, 3)),
                                  np.concatenate([a, b], 1))
    np.testing.assert_array_equal(_run_symbolic([B], topi.split(B, [1], 1)[1], [b], (4, 1, 3)), b[:, 1:])
    with pytest.raises(NotImplementedError, match=r"topi.squeeze: axis=None needs the static shape of A"):
        topi.squeeze(A)
    with pytest.raises(NotImplementedError, match=r"topi.split: dimension 0 of B is symbolic"):
        topi.split(B, 2, 0)


# ---- broadcast.py: left_shift / right_shift ----
def test_shifts_against_numpy():
    a = np.arange(12, dtype="int32").reshape(3, 4)
    b = np.array([0, 1, 2, 3], dtype="int32")
    A, B = te.placeholder((3, 4), "int32", "A"), te.placeholder((4,), "int32", "B")
    left, right = _build_run([A, B], [topi.left_shift(A, B), topi.right_shift(A, B)], [a, b])
    np.testing.assert_array_equal(left, np.left_shift(a, b))
    np.testing.assert_array_equal(right, np.right_shift(a, b))
    with pytest.raises(TypeError, match="topi.left_shift: needs integer operands, got float32"):
        F = te.placeholder((4,), "float32", "F")
        topi.left_shift(F, F)


# ---- nn/upsampling.py ----
@pytest.mark.parametrize("layout,scale", [("NCHW", (2.0, 2.0)), ("NHWC", (2, 3)), ("NCHW", (1.5, 0.5))])
def test_upsampling_nearest_against_numpy(layout, scale):
    shape = (1, 2, 4, 6) if layout == "NCHW" else (1, 4, 6, 2)
    h_axis, w_axis = (2, 3) if layout == "NCHW" else (1, 2)
    data = _rand(shape, "float32", 3)
    D = te.placeholder(shape, "float32", "D")
    (out,) = _build_run([D], topi.nn.upsampling(D, scale[0], scale[1], layout=layout), [data])
    h, w = shape[h_axis], shape[w_axis]
    oh, ow = int(round(h * scale[0])), int(round(w * scale[1]))
    rows = (np.arange(oh) * h) // oh
    cols = (np.arange(ow) * w) // ow
    expected = np.take(np.take(data, rows, axis=h_axis), cols, axis=w_axis)
    np.testing.assert_array_equal(out, expected)


def test_upsampling_bad_inputs():
    D = te.placeholder((1, 2, 4, 4), "float32", "D")
    with pytest.raises(ValueError, match="scale_h must be a positive number"):
        topi.nn.upsampling(D, 0, 2)
    with pytest.raises(NotImplementedError, match="only method='nearest_neighbor'"):
        topi.nn.upsampling(D, 2, 2, method="bilinear")
    with pytest.raises(ValueError, match="layout must be NCHW or NHWC"):
        topi.nn.upsampling(D, 2, 2, layout="NCWH")
