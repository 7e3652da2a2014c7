"""DLPack exchange between Tessera NDArrays, PyTorch and NumPy: zero copy in both
directions (writes through one side are seen by the other), dtype coverage,
rejection of non-contiguous tensors, lifetimes, capsule consumption, __dlpack_device__."""
import gc
import sys

import numpy as np
import pytest

import tessera as tvm

torch = pytest.importorskip("torch")

TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]
NUMPY_DTYPES = TORCH_DTYPES + ["uint16", "uint32", "uint64"]


def _values(dtype, n=8):
    if dtype == "bool":
        return np.arange(n) % 2 == 0
    return (np.arange(n) % 5 + 1).astype(dtype)


def _other_values(dtype, n=8):
    if dtype == "bool":
        return np.arange(n) % 3 == 1
    return (np.arange(n)[::-1] % 7 + 2).astype(dtype)


def _scribble(nbytes, count=64):
    """Allocates and fills buffers of the same size, to overwrite freed memory."""
    keep = []
    for _ in range(count):
        b = tvm.nd.empty((nbytes,), "uint8")
        b.copyfrom(np.full(nbytes, 0xAB, dtype="uint8"))
        keep.append(b)
        keep.append(np.full(nbytes, 0xCD, dtype="uint8"))
    return keep


# ---------------------------------------------------------------- NDArray -> torch


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_view_of_ndarray_shares_memory(dtype):
    x = _values(dtype).reshape(2, 4)
    a = tvm.nd.array(x)
    t = torch.from_dlpack(a)
    assert t.dtype == getattr(torch, dtype)
    assert tuple(t.shape) == (2, 4)
    assert t.data_ptr() == a.data_ptr
    np.testing.assert_array_equal(t.numpy(), x)
    # torch writes -> Tessera sees them
    y = _other_values(dtype).reshape(2, 4)
    t.copy_(torch.from_numpy(y))
    np.testing.assert_array_equal(a.numpy(), y)
    # Tessera writes -> torch sees them
    a.copyfrom(x)
    np.testing.assert_array_equal(t.numpy(), x)


def test_torch_view_sees_cpp_in_place_update():
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)
    a = tvm.nd.array(x)
    t = torch.from_dlpack(a)
    tvm.get_global_func("testing.ndarray_scale_f32")(a, 4.0)
    np.testing.assert_array_equal(t.numpy(), x * np.float32(4.0))


def test_torch_view_of_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.5, -2.0, 0.25, 3.0], dtype=ml_dtypes.bfloat16)
    a = tvm.nd.array(x)
    t = torch.from_dlpack(a)
    assert t.dtype == torch.bfloat16
    assert t.float().tolist() == x.astype(np.float32).tolist()
    t.mul_(2)
    assert a.numpy().astype(np.float32).tolist() == (x.astype(np.float32) * 2).tolist()


def test_torch_view_of_zero_dim_and_zero_size():
    a = tvm.nd.array(np.float32(2.5))
    t = torch.from_dlpack(a)
    assert t.shape == torch.Size([]) and t.item() == 2.5
    t.fill_(-1.0)
    assert a.numpy() == np.float32(-1.0)
    e = tvm.nd.empty((0, 3), "float32")
    te = torch.from_dlpack(e)
    assert tuple(te.shape) == (0, 3) and te.dtype == torch.float32


# ---------------------------------------------------------------- NDArray -> numpy


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_view_of_ndarray_sees_tessera_writes(dtype):
    x = _values(dtype).reshape(4, 2)
    a = tvm.nd.array(x)
    v = np.from_dlpack(a)
    assert v.dtype == np.dtype(dtype)
    assert v.shape == (4, 2)
    assert v.ctypes.data == a.data_ptr
    np.testing.assert_array_equal(v, x)
    y = _other_values(dtype).reshape(4, 2)
    a.copyfrom(y)
    np.testing.assert_array_equal(v, y)


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint16", "float64"])
def test_numpy_view_of_ndarray_is_writable_and_shared(dtype):
    x = _values(dtype)
    a = tvm.nd.array(x)
    v = np.from_dlpack(a)
    y = _other_values(dtype)
    v[:] = y  # NumPy writes -> Tessera sees them
    np.testing.assert_array_equal(a.numpy(), y)


# ---------------------------------------------------------------- torch / numpy -> NDArray


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_from_dlpack_torch_shares_memory(dtype):
    x = _values(dtype, 12).reshape(3, 4)
    t = torch.from_numpy(x.copy())
    a = tvm.nd.from_dlpack(t)
    assert a.dtype == dtype
    assert a.shape == (3, 4)
    assert a.device == tvm.cpu(0)
    assert a.data_ptr == t.data_ptr()
    np.testing.assert_array_equal(a.numpy(), x)
    y = _other_values(dtype, 12).reshape(3, 4)
    t.copy_(torch.from_numpy(y))  # torch writes -> Tessera sees
    np.testing.assert_array_equal(a.numpy(), y)
    a.copyfrom(x)  # Tessera writes -> torch sees
    np.testing.assert_array_equal(t.numpy(), x)


def test_from_dlpack_torch_bfloat16():
    t = torch.tensor([1.5, -2.0, 0.125], dtype=torch.bfloat16)
    a = tvm.nd.from_dlpack(t)
    assert a.dtype == "bfloat16"
    assert a.data_ptr == t.data_ptr()
    pytest.importorskip("ml_dtypes")
    assert a.numpy().astype(np.float32).tolist() == [1.5, -2.0, 0.125]


def test_from_dlpack_torch_cpp_in_place_update():
    t = torch.arange(6, dtype=torch.float32)
    a = tvm.nd.from_dlpack(t)
    tvm.get_global_func("testing.ndarray_scale_f32")(a, -0.5)
    assert t.tolist() == [i * -0.5 for i in range(6)]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_from_dlpack_numpy_shares_memory(dtype):
    x = _values(dtype, 6).reshape(2, 3).copy()
    a = tvm.nd.from_dlpack(x)
    assert a.dtype == dtype and a.shape == (2, 3)
    assert a.data_ptr == x.ctypes.data
    y = _other_values(dtype, 6).reshape(2, 3)
    x[...] = y  # numpy writes -> Tessera sees
    np.testing.assert_array_equal(a.numpy(), y)
    z = _values(dtype, 6).reshape(2, 3)
    a.copyfrom(z)  # Tessera writes -> numpy sees
    np.testing.assert_array_equal(x, z)


def test_from_dlpack_contiguous_slice_with_offset():
    base = torch.arange(20, dtype=torch.int32).reshape(5, 4)
    view = base[2:]  # contiguous, starts 8 elements in
    a = tvm.nd.from_dlpack(view)
    assert a.shape == (3, 4)
    np.testing.assert_array_equal(a.numpy(), view.numpy())
    a.copyfrom(np.zeros((3, 4), dtype="int32"))
    np.testing.assert_array_equal(base.numpy()[:2], np.arange(8).reshape(2, 4))
    np.testing.assert_array_equal(base.numpy()[2:], 0)


def test_from_dlpack_accepts_odd_strides_on_size_one_dims():
    t = torch.arange(3, dtype=torch.float32).reshape(3, 1).T  # shape (1, 3), strides (1, 1)
    assert t.is_contiguous()
    a = tvm.nd.from_dlpack(t)
    assert a.shape == (1, 3)
    np.testing.assert_array_equal(a.numpy(), [[0, 1, 2]])


def test_from_dlpack_accepts_zero_size_tensor_with_any_strides():
    t = torch.empty(3, 0).T  # no elements: contiguous for torch (strides are irrelevant)
    assert t.is_contiguous()
    a = tvm.nd.from_dlpack(t)
    assert a.shape == (0, 3)
    assert a.numpy().shape == (0, 3)


def test_from_dlpack_of_ndarray_and_chains_keep_the_same_memory():
    a = tvm.nd.array(np.arange(5, dtype="float32"))
    b = tvm.nd.from_dlpack(a)
    assert b.data_ptr == a.data_ptr and not b.same_as(a)
    t = torch.arange(4, dtype=torch.int64)
    t2 = torch.from_dlpack(tvm.nd.from_dlpack(t))
    assert t2.data_ptr() == t.data_ptr()
    n = np.from_dlpack(tvm.nd.from_dlpack(t))
    assert n.ctypes.data == t.data_ptr()
    t[0] = 42
    assert t2[0].item() == 42 and n[0] == 42


# ---------------------------------------------------------------- non-contiguous rejection


@pytest.mark.parametrize("make", [
    lambda: torch.arange(12.0).reshape(3, 4).T,
    lambda: torch.arange(12.0).reshape(3, 4)[:, ::2],
    lambda: torch.arange(24, dtype=torch.int32).reshape(2, 3, 4).permute(2, 0, 1),
    lambda: torch.arange(10.0)[::3],
], ids=["transpose", "column_step", "permute", "1d_step"])
def test_non_contiguous_torch_tensor_is_rejected(make):
    t = make()
    assert not t.is_contiguous()
    with pytest.raises(ValueError, match="contiguous"):
        tvm.nd.from_dlpack(t)
    # the exporter got its tensor back intact
    assert t.contiguous().tolist() == make().tolist()


def test_non_contiguous_numpy_array_is_rejected():
    x = np.arange(12.0).reshape(3, 4)[:, ::2]
    with pytest.raises(ValueError, match="contiguous"):
        tvm.nd.from_dlpack(x)


def test_unsupported_dlpack_dtype_is_rejected():
    with pytest.raises(TypeError, match="complex"):
        tvm.nd.from_dlpack(torch.zeros(2, dtype=torch.complex64))


def test_from_dlpack_rejects_non_dlpack_objects():
    with pytest.raises(TypeError):
        tvm.nd.from_dlpack(42)
    with pytest.raises(TypeError):
        tvm.nd.from_dlpack([1.0, 2.0])


# ---------------------------------------------------------------- lifetimes


def test_torch_view_keeps_data_alive_after_ndarray_is_deleted():
    x = np.arange(4096, dtype="float32") * 0.5
    a = tvm.nd.array(x)
    t = torch.from_dlpack(a)
    del a
    gc.collect()
    keep = _scribble(x.nbytes)
    np.testing.assert_array_equal(t.numpy(), x)
    t.add_(1.0)
    np.testing.assert_array_equal(t.numpy(), x + 1.0)
    del keep


def test_numpy_view_keeps_data_alive_after_ndarray_is_deleted():
    x = np.arange(2048, dtype="int64") - 1000
    a = tvm.nd.array(x)
    v = np.from_dlpack(a)
    del a
    gc.collect()
    keep = _scribble(x.nbytes)
    np.testing.assert_array_equal(v, x)
    del keep


def test_ndarray_keeps_torch_data_alive_after_tensor_is_deleted():
    t = torch.arange(4096, dtype=torch.float64) * 3
    expected = t.numpy().copy()
    a = tvm.nd.from_dlpack(t)
    del t
    gc.collect()
    keep = [torch.full((4096,), -7.0, dtype=torch.float64) for _ in range(64)]
    np.testing.assert_array_equal(a.numpy(), expected)
    del keep


def test_exported_views_release_their_reference():
    a = tvm.nd.array(np.zeros(8, dtype="float32"))
    base = a._use_count
    cap = a.to_dlpack()
    assert a._use_count == base + 1
    del cap  # never consumed: the capsule destructor releases the view
    gc.collect()
    assert a._use_count == base
    t = torch.from_dlpack(a)
    assert a._use_count == base + 1
    del t
    gc.collect()
    assert a._use_count == base
    v = np.from_dlpack(a)
    assert a._use_count == base + 1
    del v
    gc.collect()
    assert a._use_count == base


def test_imported_tensor_is_released_with_the_ndarray():
    x = np.arange(16, dtype="float32")
    before = sys.getrefcount(x)
    a = tvm.nd.from_dlpack(x)
    assert sys.getrefcount(x) > before  # the DLPack view holds the exporter
    del a
    gc.collect()
    assert sys.getrefcount(x) == before


# ---------------------------------------------------------------- capsules


def test_capsule_consumed_twice_by_tessera_raises():
    a = tvm.nd.array(np.arange(3, dtype="int32"))
    cap = a.to_dlpack()
    b = tvm.nd.from_dlpack(cap)
    np.testing.assert_array_equal(b.numpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="consumed"):
        tvm.nd.from_dlpack(cap)


def test_capsule_consumed_by_torch_then_tessera_raises():
    a = tvm.nd.array(np.arange(3, dtype="float32"))
    cap = a.__dlpack__()
    t = torch.from_dlpack(cap)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="consumed"):
        tvm.nd.from_dlpack(cap)
    with pytest.raises(Exception):
        torch.from_dlpack(cap)


def test_torch_made_capsule_consumed_twice_by_tessera_raises():
    cap = torch.arange(3).__dlpack__()
    a = tvm.nd.from_dlpack(cap)
    assert a.numpy().tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="consumed"):
        tvm.nd.from_dlpack(cap)


def test_dlpack_keyword_arguments():
    a = tvm.nd.array(np.arange(4, dtype="float32"))
    t = torch.from_dlpack(a.__dlpack__(stream=None, dl_device=(1, 0), copy=False))
    assert t.data_ptr() == a.data_ptr
    with pytest.raises(ValueError):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(ValueError):
        a.__dlpack__(copy=True)


# ---------------------------------------------------------------- __dlpack_device__


def test_dlpack_device():
    a = tvm.nd.array(np.zeros(2, dtype="float32"))
    dev = a.__dlpack_device__()
    assert tuple(int(v) for v in dev) == (1, 0)
    assert tuple(int(v) for v in dev) == tuple(int(v) for v in torch.zeros(2).__dlpack_device__())
    assert tuple(int(v) for v in dev) == tuple(int(v) for v in np.zeros(2).__dlpack_device__())
    assert tvm.cpu(0).__dlpack_device__() == (1, 0)
    assert tvm.cuda(3).__dlpack_device__() == (2, 3)
    imported = tvm.nd.from_dlpack(torch.zeros(3))
    assert tuple(int(v) for v in imported.__dlpack_device__()) == (1, 0)
