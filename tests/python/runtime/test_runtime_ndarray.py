"""tvm.nd: NDArray creation (array / empty), copies (numpy, copyfrom, copyto),
shape/dtype/device metadata, 64-byte alignment, every supported dtype,
0-d / zero-size / non-contiguous / read-only inputs and the errors for bad input."""
import numpy as np
import pytest

import tessera as tvm

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64"]


def _sample(dtype, shape=(3, 5)):
    """Deterministic values of ``dtype`` that include the type's extremes."""
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        flat = (np.arange(n) % 3 == 0)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        flat = np.arange(n, dtype=np.float64) * 7 - 11
        flat = np.clip(flat, info.min, info.max).astype(dt)
        flat[0], flat[-1] = info.min, info.max
    else:
        info = np.finfo(dt)
        flat = (np.arange(n, dtype=np.float64) - n / 2) * 0.375
        flat = flat.astype(dt)
        flat[:5] = [info.max, info.min, info.tiny, np.inf, -np.inf]
        flat[5] = np.nan
    return np.asarray(flat, dtype=dt).reshape(shape)


def _alignment(arr):
    return tvm.get_global_func("testing.ndarray_alignment")(arr)


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_array_roundtrip_every_dtype(dtype):
    x = _sample(dtype)
    a = tvm.nd.array(x)
    assert a.dtype == dtype
    assert a.shape == (3, 5)
    out = a.numpy()
    assert out.dtype == np.dtype(dtype)
    assert out.shape == x.shape
    np.testing.assert_array_equal(out, x)  # NaNs compare equal here
    assert out.tobytes() == x.tobytes()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_empty_then_copyfrom_every_dtype(dtype):
    x = _sample(dtype, (4, 2, 3))
    a = tvm.nd.empty((4, 2, 3), dtype)
    assert a.dtype == dtype and a.shape == (4, 2, 3)
    assert a.copyfrom(x) is a
    assert a.numpy().tobytes() == x.tobytes()


def test_bfloat16_roundtrip():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([[1.5, -2.0, 3.140625], [0.0, -0.0, 65280.0]], dtype=ml_dtypes.bfloat16)
    a = tvm.nd.array(x)
    assert a.dtype == "bfloat16"
    assert a.shape == (2, 3)
    out = a.numpy()
    assert out.dtype == np.dtype(ml_dtypes.bfloat16)
    assert out.tobytes() == x.tobytes()
    b = tvm.nd.empty((2, 3), "bfloat16").copyfrom(x.astype(np.float32))
    assert b.numpy().tobytes() == x.tobytes()


def test_metadata_matches_numpy():
    x = np.arange(24, dtype="int16").reshape(2, 3, 4)
    a = tvm.nd.array(x)
    assert a.shape == x.shape
    assert isinstance(a.shape, tuple)
    assert a.ndim == x.ndim
    assert a.nbytes == x.nbytes
    assert len(a) == len(x)
    assert a.device == tvm.cpu(0)
    assert a.device.device_type == 1 and a.device.device_id == 0
    assert isinstance(a, tvm.nd.NDArray) and isinstance(a, tvm.NDArray)


def test_numpy_returns_independent_copy():
    x = np.arange(6, dtype="float32")
    a = tvm.nd.array(x)
    out = a.numpy()
    out[:] = -1
    np.testing.assert_array_equal(a.numpy(), x)
    x[:] = 100  # the NDArray copied its input too
    np.testing.assert_array_equal(a.numpy(), np.arange(6, dtype="float32"))
    assert a.numpy() is not a.numpy()


def test_asnumpy_and_array_protocol():
    x = np.arange(12, dtype="int32").reshape(3, 4)
    a = tvm.nd.array(x)
    np.testing.assert_array_equal(a.asnumpy(), x)
    np.testing.assert_array_equal(np.asarray(a), x)
    as_f64 = np.asarray(a, dtype="float64")
    assert as_f64.dtype == np.float64
    np.testing.assert_array_equal(as_f64, x.astype("float64"))


def test_array_from_nested_list_and_python_scalars():
    a = tvm.nd.array([[1, 2, 3], [4, 5, 6]])
    ref = np.asarray([[1, 2, 3], [4, 5, 6]])
    assert a.dtype == ref.dtype.name
    np.testing.assert_array_equal(a.numpy(), ref)
    f = tvm.nd.array([0.5, 1.5])
    assert f.dtype == "float64"
    np.testing.assert_array_equal(f.numpy(), [0.5, 1.5])
    b = tvm.nd.array([True, False])
    assert b.dtype == "bool"
    np.testing.assert_array_equal(b.numpy(), [True, False])


def test_array_of_ndarray_is_a_copy():
    a = tvm.nd.array(np.arange(4, dtype="float32"))
    b = tvm.nd.array(a)
    assert not b.same_as(a)
    assert b.data_ptr != a.data_ptr
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    a.copyfrom(np.zeros(4, dtype="float32"))
    np.testing.assert_array_equal(b.numpy(), np.arange(4, dtype="float32"))


def test_array_with_device_arguments():
    x = np.arange(3, dtype="float64")
    for dev in (tvm.cpu(0), "cpu", "llvm", None):
        a = tvm.nd.array(x, dev)
        assert a.device == tvm.cpu(0)
        np.testing.assert_array_equal(a.numpy(), x)
    a = tvm.nd.array(x, mem_scope="global")
    np.testing.assert_array_equal(a.numpy(), x)


def test_big_endian_input_is_converted():
    x = np.arange(-3, 5, dtype=">i4")
    a = tvm.nd.array(x)
    assert a.dtype == "int32"
    out = a.numpy()
    assert out.dtype == np.dtype("int32")
    np.testing.assert_array_equal(out, np.arange(-3, 5))


# ---------------------------------------------------------------- 0-d and empty


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "uint8"])
def test_zero_dim_array(dtype):
    x = np.array(1, dtype=dtype)
    a = tvm.nd.array(x)
    assert a.shape == ()
    assert a.ndim == 0
    assert a.nbytes == x.nbytes
    out = a.numpy()
    assert out.shape == () and out.dtype == x.dtype
    assert out == x
    with pytest.raises(TypeError):
        len(a)


def test_zero_dim_from_numpy_scalar_and_copyfrom_scalar():
    a = tvm.nd.array(np.float32(3.25))
    assert a.shape == () and a.dtype == "float32"
    assert a.numpy() == np.float32(3.25)
    a.copyfrom(-7.5)
    assert a.numpy() == np.float32(-7.5)
    assert a.numpy().shape == ()


@pytest.mark.parametrize("shape", [(0,), (0, 3), (4, 0), (2, 0, 5)])
def test_zero_size_arrays(shape):
    x = np.zeros(shape, dtype="float32")
    a = tvm.nd.array(x)
    assert a.shape == shape
    assert a.nbytes == 0
    out = a.numpy()
    assert out.shape == shape and out.dtype == np.float32 and out.size == 0
    e = tvm.nd.empty(shape, "int8")
    assert e.shape == shape and e.numpy().shape == shape
    assert e.copyfrom(np.zeros(shape, dtype="int8")) is e


def test_empty_accepts_int_shape_and_default_dtype():
    a = tvm.nd.empty(7)
    assert a.shape == (7,)
    assert a.dtype == "float32"
    assert a.device == tvm.cpu(0)
    assert a.numpy().shape == (7,)


# ---------------------------------------------------------------- alignment


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (7, 5), (64, 3), (1000,)])
def test_allocations_are_64_byte_aligned(shape, dtype):
    a = tvm.nd.empty(shape, dtype)
    assert _alignment(a) == 0
    assert a.data_ptr % 64 == 0
    b = tvm.nd.array(np.zeros(shape, dtype=dtype))
    assert _alignment(b) == 0


def test_alignment_of_many_consecutive_odd_sized_allocations():
    arrays = [tvm.nd.empty((n,), "int8") for n in range(1, 130)]
    assert [_alignment(a) for a in arrays] == [0] * len(arrays)


# ---------------------------------------------------------------- copies


def test_copyfrom_ndarray_and_copyto_ndarray():
    x = np.arange(10, dtype="float64").reshape(2, 5)
    src = tvm.nd.array(x)
    dst = tvm.nd.empty((2, 5), "float64")
    assert dst.copyfrom(src) is dst
    np.testing.assert_array_equal(dst.numpy(), x)
    dst2 = tvm.nd.empty((2, 5), "float64")
    assert src.copyto(dst2) is dst2
    np.testing.assert_array_equal(dst2.numpy(), x)
    assert dst2.data_ptr != src.data_ptr


def test_copyto_device_makes_new_array():
    x = np.arange(5, dtype="uint16")
    a = tvm.nd.array(x)
    b = a.copyto(tvm.cpu(0))
    assert isinstance(b, tvm.nd.NDArray)
    assert not b.same_as(a) and b.data_ptr != a.data_ptr
    assert b.dtype == "uint16" and b.shape == (5,)
    np.testing.assert_array_equal(b.numpy(), x)


def test_copyto_rejects_other_targets():
    a = tvm.nd.array(np.zeros(2, dtype="float32"))
    with pytest.raises(TypeError):
        a.copyto(np.zeros(2, dtype="float32"))


def test_copyfrom_casts_like_numpy():
    src = [1.7, -2.2, 300.0]
    a = tvm.nd.empty((3,), "int32").copyfrom(src)
    np.testing.assert_array_equal(a.numpy(), np.asarray(src).astype("int32"))
    b = tvm.nd.empty((2, 2), "float16").copyfrom([[1, 2], [3, 4]])
    np.testing.assert_array_equal(b.numpy(), np.array([[1, 2], [3, 4]], dtype="float16"))


def test_setitem_whole_array():
    a = tvm.nd.empty((2, 3), "int64")
    x = np.arange(6, dtype="int64").reshape(2, 3)
    a[:] = x
    np.testing.assert_array_equal(a.numpy(), x)
    with pytest.raises(TypeError):
        a[0] = 1


def test_copyfrom_shape_mismatch_raises_value_error():
    a = tvm.nd.empty((2, 3), "float32")
    with pytest.raises(ValueError, match=r"shape"):
        a.copyfrom(np.zeros((3, 2), dtype="float32"))
    with pytest.raises(ValueError, match=r"shape"):
        a.copyfrom(np.zeros((6,), dtype="float32"))
    with pytest.raises(ValueError, match=r"shape"):
        a.copyfrom(tvm.nd.empty((3, 2), "float32"))
    with pytest.raises(tvm.TVMError):
        a.copyfrom(np.zeros((2, 4), dtype="float32"))


def test_copyfrom_ndarray_dtype_mismatch_raises_type_error():
    a = tvm.nd.empty((2, 3), "float32")
    with pytest.raises(TypeError, match=r"dtype"):
        a.copyfrom(tvm.nd.empty((2, 3), "int32"))


def test_failed_copyfrom_leaves_contents_unchanged():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    a = tvm.nd.array(x)
    with pytest.raises(ValueError):
        a.copyfrom(np.ones((3, 3), dtype="float32"))
    np.testing.assert_array_equal(a.numpy(), x)


# ---------------------------------------------------------------- non-contiguous / read-only input


@pytest.mark.parametrize("view", [
    lambda x: x[:, ::2],
    lambda x: x.T,
    lambda x: x[::-1, 1:],
    lambda x: x[1::2, ::-3],
    lambda x: np.asfortranarray(x),
    lambda x: np.broadcast_to(x[:1], x.shape),
])
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "float16", "uint64"])
def test_non_contiguous_input_is_copied_in_logical_order(view, dtype):
    base = _sample(dtype, (6, 8))
    v = view(base)
    a = tvm.nd.array(v)
    assert a.shape == v.shape
    np.testing.assert_array_equal(a.numpy(), v)
    assert a.numpy().tobytes() == np.ascontiguousarray(v).tobytes()
    b = tvm.nd.empty(v.shape, dtype).copyfrom(v)
    assert b.numpy().tobytes() == np.ascontiguousarray(v).tobytes()


def test_non_contiguous_torch_input_is_copied():
    torch = pytest.importorskip("torch")
    t = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    a = tvm.nd.array(t.T)
    np.testing.assert_array_equal(a.numpy(), t.T.contiguous().numpy())


def test_readonly_numpy_input():
    x = np.arange(12, dtype="float64").reshape(3, 4)
    x.setflags(write=False)
    a = tvm.nd.array(x)
    np.testing.assert_array_equal(a.numpy(), x)
    assert a.numpy().flags.writeable
    b = tvm.nd.empty((3, 4), "float64").copyfrom(x)
    np.testing.assert_array_equal(b.numpy(), x)
    # read-only non-contiguous view
    v = x[:, ::2]
    np.testing.assert_array_equal(tvm.nd.array(v).numpy(), v)
    assert not x.flags.writeable


# ---------------------------------------------------------------- vector dtypes


def test_vector_dtype_roundtrips_with_extra_lane_axis():
    a = tvm.nd.empty((3,), "float32x4")
    assert a.dtype == "float32x4"
    assert a.shape == (3,)
    assert a.nbytes == 3 * 4 * 4
    x = np.arange(12, dtype="float32").reshape(3, 4)
    a.copyfrom(x)
    out = a.numpy()
    assert out.shape == (3, 4)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x)
    with pytest.raises(ValueError):
        a.copyfrom(np.arange(3, dtype="float32"))


def test_vector_int_dtype_2d():
    a = tvm.nd.empty((2, 3), "int8x16")
    x = (np.arange(96) - 48).astype("int8").reshape(2, 3, 16)
    out = a.copyfrom(x).numpy()
    assert out.shape == (2, 3, 16) and out.dtype == np.int8
    np.testing.assert_array_equal(out, x)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("bad", [
    np.zeros(3, dtype=np.complex64),
    np.zeros(3, dtype=np.complex128),
    np.array([1, "a", None], dtype=object),
    np.array(["a", "bc"]),
    np.array([b"a", b"bc"]),
    np.array(["2020-01-01"], dtype="datetime64[D]"),
], ids=["complex64", "complex128", "object", "str", "bytes", "datetime64"])
def test_unsupported_numpy_dtypes_raise_type_error(bad):
    with pytest.raises(TypeError) as info:
        tvm.nd.array(bad)
    msg = str(info.value)
    assert "unsupported dtype" in msg
    assert str(bad.dtype) in msg
    assert "float32" in msg  # lists what is supported
    assert isinstance(info.value, tvm.TVMError)


def test_unsupported_python_values_raise_type_error():
    with pytest.raises(TypeError, match="unsupported dtype"):
        tvm.nd.array([1 + 2j])
    with pytest.raises(TypeError, match="unsupported dtype"):
        tvm.nd.array(["x", "y"])


def test_longdouble_is_rejected_when_distinct():
    if np.dtype(np.longdouble).itemsize == 8:
        pytest.skip("longdouble is float64 on this platform")
    with pytest.raises(TypeError, match="unsupported dtype"):
        tvm.nd.array(np.zeros(2, dtype=np.longdouble))


@pytest.mark.parametrize("shape", [(-1,), (2, -3), (0, -1)])
def test_empty_negative_dimension_raises_value_error(shape):
    with pytest.raises(ValueError, match="negative"):
        tvm.nd.empty(shape, "float32")


def test_empty_bad_dtype_and_scope():
    with pytest.raises(ValueError, match="dtype"):
        tvm.nd.empty((2,), "float31")
    with pytest.raises(TypeError):
        tvm.nd.empty((2,), "handle")
    with pytest.raises(ValueError, match="scope"):
        tvm.nd.empty((2,), "float32", mem_scope="shared")


def test_missing_device_allocation_raises_value_error():
    dev = tvm.cpu(1)  # only cpu(0) exists
    assert not dev.exist
    with pytest.raises(ValueError, match="does not exist"):
        tvm.nd.empty((2,), "float32", dev)


def test_repr_and_str_show_contents():
    a = tvm.nd.array(np.array([1, 2, 3], dtype="int32"))
    assert "cpu(0)" in repr(a)
    assert "(3,)" in repr(a)
    assert str(a) == str(np.array([1, 2, 3], dtype="int32"))
