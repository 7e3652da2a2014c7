"""DLPack tensors from a careless or hostile producer (issue 9, item 14):
a capsule whose shape has a negative dimension, an element count or byte size
overflowing int64, a negative or absurd ndim, or a null data pointer for a
non-empty tensor is refused with ValueError before any byte is touched (the
producer's deleter still runs). A valid hand-made tensor imports and reads
back exactly (NumPy oracle)."""
import pytest

from .harness import run_case, expect_error

# Builds a 'dltensor' capsule by hand with ctypes: make(shape, ndim=None, data=<buffer or 0>, bits=32).
MAKE_CAPSULE = """
import ctypes
import numpy as np

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]

DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
deleted = []
_deleter = DELETER(lambda p: deleted.append(p))

class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
keep = []

def make(shape, ndim=None, data=None, bits=32, code=2):
    shp = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    buf = data if data is not None else (ctypes.c_uint8 * 64)()
    t = DLManagedTensor()
    t.dl_tensor.data = ctypes.cast(buf, ctypes.c_void_p) if buf else None
    t.dl_tensor.device = DLDevice(1, 0)
    t.dl_tensor.ndim = len(shape) if ndim is None else ndim
    t.dl_tensor.dtype = DLDataType(code, bits, 1)
    t.dl_tensor.shape = ctypes.cast(shp, ctypes.POINTER(ctypes.c_int64))
    t.dl_tensor.strides = None
    t.deleter = _deleter
    keep.extend([shp, buf, t])
    return ctypes.pythonapi.PyCapsule_New(ctypes.addressof(t), b"dltensor", None)
"""

BAD = [
    ("[-1]", {}, "negative dimension"),
    ("[4, -3]", {}, "negative dimension"),
    ("[2**32, 2**32]", {}, "overflows"),
    ("[2**62, 8]", {}, "overflows"),
    ("[2**61, 2**2]", {}, "overflows"),
    ("[4]", {"ndim": -1}, "ndim"),
    ("[4]", {"ndim": 100000}, "ndim"),
    ("[16]", {"data": 0}, "null"),
]


@pytest.mark.parametrize("shape,kw,match", BAD)
def test_bad_dlpack_tensors_are_refused(shape, kw, match):
    args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    res = expect_error(MAKE_CAPSULE + f"""
cap = make({shape}{", " + args if args else ""})
try:
    tvm.nd.from_dlpack(cap)
finally:
    assert len(deleted) == 1, deleted  # the producer's tensor was released
""", "ValueError", match, mem_mb=1024)
    assert res.returncode == 0


def test_a_valid_hand_made_tensor_imports():
    res = run_case(MAKE_CAPSULE + """
import tessera as tvm
x = np.arange(12, dtype="float32")
buf = (ctypes.c_uint8 * x.nbytes).from_buffer(x)
a = tvm.nd.from_dlpack(make([3, 4], data=buf))
np.testing.assert_array_equal(a.numpy(), x.reshape(3, 4))
del a
assert len(deleted) == 1
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
