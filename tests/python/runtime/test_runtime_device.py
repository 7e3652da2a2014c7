"""Devices (tvm.cpu / tvm.cuda / tvm.device: DLPack codes, ids, equality, hashing,
repr, existence against an independent CUDA-driver probe) and tvm.DataType parsing
(type_code / bits / lanes / canonical spelling, bad spellings raise ValueError)."""
import ctypes
import shutil

import numpy as np
import pytest

import tessera as tvm

# DLPack DLDeviceType codes (dlpack.h)
kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal, kDLROCM = 1, 2, 3, 4, 7, 8, 10
# DLPack DLDataTypeCode codes
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat = 0, 1, 2, 3, 4


def _cuda_device_count_from_driver():
    """Number of CUDA devices according to the driver loaded directly with
    ctypes (0 when libcuda.so.1 is absent or cuInit fails)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    if lib.cuInit(0) != 0:
        return 0
    count = ctypes.c_int(0)
    if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


# ---------------------------------------------------------------- construction


def test_cpu_device():
    d = tvm.cpu(0)
    assert d.device_type == kDLCPU
    assert d.device_id == 0
    assert repr(d) == "cpu(0)"
    assert tvm.cpu().device_id == 0
    assert tvm.cpu(3).device_id == 3 and tvm.cpu(3).device_type == kDLCPU
    assert isinstance(d, tvm.Device)


def test_cuda_device():
    d = tvm.cuda(0)
    assert d.device_type == kDLCUDA and d.device_id == 0
    assert repr(d) == "cuda(0)"
    assert repr(tvm.cuda(2)) == "cuda(2)"
    assert tvm.gpu(1) == tvm.cuda(1)


@pytest.mark.parametrize("spec, args, expected", [
    ("cpu", (), (kDLCPU, 0)),
    ("llvm", (), (kDLCPU, 0)),
    ("c", (), (kDLCPU, 0)),
    ("cpu", (2,), (kDLCPU, 2)),
    ("cuda", (), (kDLCUDA, 0)),
    ("cuda", (1,), (kDLCUDA, 1)),
    ("gpu", (3,), (kDLCUDA, 3)),
    ("nvptx", (), (kDLCUDA, 0)),
    ("cuda:1", (), (kDLCUDA, 1)),
    ("cpu:0", (), (kDLCPU, 0)),
    ("cuda -arch=sm_80", (), (kDLCUDA, 0)),
    ("llvm -mcpu=skylake", (), (kDLCPU, 0)),
    ("cuda_host", (), (kDLCUDAHost, 0)),
    ("opencl", (), (kDLOpenCL, 0)),
    ("vulkan", (), (kDLVulkan, 0)),
    ("metal", (), (kDLMetal, 0)),
    ("rocm", (), (kDLROCM, 0)),
    (kDLCUDA, (4,), (kDLCUDA, 4)),
    (kDLCPU, (), (kDLCPU, 0)),
])
def test_device_from_name_or_code(spec, args, expected):
    d = tvm.device(spec, *args)
    assert (d.device_type, d.device_id) == expected


def test_device_of_device_is_itself():
    d = tvm.cuda(2)
    assert tvm.device(d) is d
    assert tvm.nd.device("cpu") == tvm.cpu(0)


@pytest.mark.parametrize("name", ["foo", "tpu", "CUDA", "", "cuda1"])
def test_unknown_device_name_raises_value_error(name):
    with pytest.raises(ValueError):
        tvm.device(name)


def test_unknown_device_message_names_it():
    with pytest.raises(ValueError, match="tpu") as info:
        tvm.device("tpu")
    assert isinstance(info.value, tvm.TVMError)


def test_device_rejects_other_types():
    with pytest.raises(TypeError):
        tvm.device(1.5)
    with pytest.raises(TypeError):
        tvm.device(None)


# ---------------------------------------------------------------- equality / hash


def test_device_equality_and_hash():
    assert tvm.cpu(0) == tvm.device("cpu")
    assert tvm.cpu(0) == tvm.device("llvm", 0)
    assert tvm.cuda(1) == tvm.device("cuda", 1) == tvm.device("cuda:1")
    assert tvm.cpu(0) != tvm.cuda(0)
    assert tvm.cuda(0) != tvm.cuda(1)
    assert not (tvm.cpu(0) == tvm.cpu(1))
    assert tvm.cpu(0) != "cpu(0)"
    assert not (tvm.cpu(0) == (1, 0))
    assert hash(tvm.cpu(0)) == hash(tvm.device("cpu"))
    assert hash(tvm.cuda(1)) == hash(tvm.device("cuda:1"))
    devs = {tvm.cpu(0), tvm.device("llvm"), tvm.cuda(0), tvm.device("cuda:0"), tvm.cuda(1), tvm.cpu(1)}
    assert len(devs) == 4
    table = {tvm.cpu(0): "host", tvm.cuda(0): "gpu"}
    assert table[tvm.device("cpu")] == "host" and table[tvm.device("gpu")] == "gpu"


def test_device_dlpack_device_and_repr():
    assert tvm.cpu(0).__dlpack_device__() == (kDLCPU, 0)
    assert tvm.cuda(5).__dlpack_device__() == (kDLCUDA, 5)
    assert repr(tvm.device("cuda:1")) == "cuda(1)"
    assert repr(tvm.device("llvm")) == "cpu(0)"
    assert str(tvm.cpu(0)) == "cpu(0)"


# ---------------------------------------------------------------- existence and attributes


def test_cpu_exists():
    assert tvm.cpu(0).exist is True
    assert tvm.cpu(1).exist is False
    assert tvm.cpu(0).device_name == "cpu"
    assert tvm.cpu(0).max_threads_per_block is None
    tvm.cpu(0).sync()


@pytest.mark.parametrize("dev_id", [0, 1])
def test_cuda_exist_matches_driver(dev_id):
    count = _cuda_device_count_from_driver()
    if count == 0 and shutil.which("nvidia-smi") is not None:
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError:
            pass  # nvidia-smi without a loadable driver: no usable GPU
        else:
            pytest.skip("driver present but reports no device; cannot tell what exist should be")
    assert tvm.cuda(dev_id).exist is (dev_id < count)


def test_cuda_exist_false_without_driver():
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        pass
    else:
        pytest.skip("libcuda.so.1 is loadable here")
    assert tvm.cuda(0).exist is False
    assert tvm.gpu(0).exist is False
    assert tvm.cuda(0).max_threads_per_block is None
    assert tvm.cuda(0).compute_version is None
    with pytest.raises(ValueError, match="does not exist"):
        tvm.nd.empty((2,), "float32", tvm.cuda(0))
    with pytest.raises(ValueError, match="does not exist"):
        tvm.nd.array(np.zeros(2, dtype="float32"), tvm.cuda(0))


def test_unsupported_device_kind_does_not_exist():
    assert tvm.device("opencl").exist is False
    assert tvm.device("metal").exist is False
    with pytest.raises(ValueError):
        tvm.nd.empty((2,), "float32", tvm.device("vulkan"))


@pytest.mark.requires_gpu
def test_cuda_attributes():
    d = tvm.cuda(0)
    assert d.exist
    assert d.warp_size == 32
    assert d.max_threads_per_block == 1024
    assert isinstance(d.device_name, str) and d.device_name
    major, minor = d.compute_version.split(".")
    assert int(major) >= 3 and int(minor) >= 0
    assert d.multi_processor_count > 0
    d.sync()


@pytest.mark.requires_gpu
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "float64"])
def test_cuda_roundtrip(dtype):
    x = (np.arange(37) % 5 == 0) if dtype == "bool" else (np.arange(37) - 11).astype(dtype)
    a = tvm.nd.array(x, tvm.cuda(0))
    assert a.device == tvm.cuda(0)
    np.testing.assert_array_equal(a.numpy(), x)
    b = a.copyto(tvm.cpu(0))
    np.testing.assert_array_equal(b.numpy(), x)
    c = tvm.nd.empty(x.shape, dtype, tvm.cuda(0))
    c.copyfrom(a)
    np.testing.assert_array_equal(c.numpy(), x)
    assert a.__dlpack_device__() == (kDLCUDA, 0)


# ---------------------------------------------------------------- DataType


@pytest.mark.parametrize("spelling, code, bits, lanes, canonical", [
    ("float32", kDLFloat, 32, 1, "float32"),
    ("float16", kDLFloat, 16, 1, "float16"),
    ("float64", kDLFloat, 64, 1, "float64"),
    ("float", kDLFloat, 32, 1, "float32"),
    ("int8", kDLInt, 8, 1, "int8"),
    ("int16", kDLInt, 16, 1, "int16"),
    ("int32", kDLInt, 32, 1, "int32"),
    ("int64", kDLInt, 64, 1, "int64"),
    ("int", kDLInt, 32, 1, "int32"),
    ("uint8", kDLUInt, 8, 1, "uint8"),
    ("uint16", kDLUInt, 16, 1, "uint16"),
    ("uint32", kDLUInt, 32, 1, "uint32"),
    ("uint64", kDLUInt, 64, 1, "uint64"),
    ("bool", kDLUInt, 1, 1, "bool"),
    ("uint1", kDLUInt, 1, 1, "bool"),
    ("bfloat16", kDLBfloat, 16, 1, "bfloat16"),
    ("float32x4", kDLFloat, 32, 4, "float32x4"),
    ("float16x8", kDLFloat, 16, 8, "float16x8"),
    ("int8x16", kDLInt, 8, 16, "int8x16"),
    ("uint8x64", kDLUInt, 8, 64, "uint8x64"),
    ("bfloat16x2", kDLBfloat, 16, 2, "bfloat16x2"),
    ("float32x1", kDLFloat, 32, 1, "float32"),
    ("handle", kDLOpaqueHandle, 64, 1, "handle"),
])
def test_datatype_parsing(spelling, code, bits, lanes, canonical):
    t = tvm.DataType(spelling)
    assert (t.type_code, t.bits, t.lanes) == (code, bits, lanes)
    assert t == canonical
    assert str(t) == canonical
    assert isinstance(t, str)
    assert repr(t) == f"DataType({canonical!r})"
    assert tvm.DataType(t) == t  # re-parsing the canonical form is stable


@pytest.mark.parametrize("spelling", ["float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                      "uint8", "uint16", "uint32", "uint64", "bool"])
def test_datatype_itemsize_matches_numpy(spelling):
    assert tvm.DataType(spelling).itemsize == np.dtype(spelling).itemsize


def test_datatype_vector_itemsize_and_with_lanes():
    t = tvm.DataType("float32x4")
    assert t.itemsize == 16
    assert t.with_lanes(1) == "float32" and t.with_lanes(1).lanes == 1
    assert t.with_lanes(8) == "float32x8" and t.with_lanes(8).lanes == 8
    assert tvm.DataType("int8").with_lanes(4) == "int8x4"
    assert tvm.DataType("bfloat16").with_lanes(2).type_code == kDLBfloat


def test_datatype_bool_vector():
    t = tvm.DataType("bool").with_lanes(4)
    assert (t.type_code, t.bits, t.lanes) == (kDLUInt, 1, 4)
    assert t == "boolx4"
    assert tvm.DataType("boolx4").lanes == 4


def test_datatype_code_constants():
    from tessera.runtime.data_type import DataTypeCode  # pylint: disable=import-outside-toplevel

    assert (DataTypeCode.INT, DataTypeCode.UINT, DataTypeCode.FLOAT, DataTypeCode.HANDLE,
            DataTypeCode.BFLOAT) == (kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat)


@pytest.mark.parametrize("bad", [
    "", "float8", "float31", "float128", "int7", "int128", "uint3", "bfloat32", "bfloat8",
    "float32x0", "float32x", "int8x-1", "float32x4x2", "int8xx4", "complex64", "floaty", "Float32",
    " float32", "float32 ", "x4", "int99999", "float32x70000", "string", "double", "f32", "int0",
])
def test_bad_datatype_raises_value_error(bad):
    with pytest.raises(ValueError) as info:
        tvm.DataType(bad)
    assert isinstance(info.value, tvm.TVMError)
    assert "dtype" in str(info.value)
