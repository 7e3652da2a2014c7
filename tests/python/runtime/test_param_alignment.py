"""Alignment facts of parameter buffers: the kernel tells LLVM that each
buffer parameter's data is aligned to its data_alignment (64 bytes by
default: an `align 64` parameter attribute and an llvm.assume "align"
bundle, as TVM's storage_alignment), and the call guarantees it: an aligned
array is passed as is, a misaligned one (a zero-copy DLPack view of NumPy
memory at an odd offset) goes through an aligned copy that is written back,
so results match NumPy either way."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def add_one(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in T.vectorized(64):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)


@T.prim_func
def scale_in_place(A: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("A"):
            vi = T.axis.remap("S", [i])
            A[vi] = A[vi] * T.float32(3)


@T.prim_func
def add_one_align16(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (64,), "float32", align=16)
    B = T.match_buffer(b, (64,), "float32", align=16)
    for i in range(64):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)


def _misaligned(n, offset_elems=1, dtype="float32"):
    """A NumPy view whose data is not 64-byte aligned (and its base array)."""
    base = np.zeros(n + 32, dtype)
    addr = base.ctypes.data
    start = next(k for k in range(32) if (addr + k * base.itemsize) % 64 == base.itemsize * offset_elems)
    return base[start:start + n], base


def test_llvm_ir_states_the_alignment():
    lib = tvm.build(add_one, target="llvm")
    ir = lib.get_source("ll")
    assert "align 64" in ir
    assert '"align"(' in ir and "llvm.assume" in ir
    lib16 = tvm.build(add_one_align16, target="llvm")
    ir16 = lib16.get_source("ll")
    assert '"align"(' in ir16 and ", i64 16)" in ir16


def test_aligned_call_is_not_staged():
    lib = tvm.build(add_one, target="llvm")
    a = tvm.nd.array(np.arange(64, dtype="float32"))
    b = tvm.nd.empty((64,), "float32")
    lib(a, b)
    np.testing.assert_array_equal(b.numpy(), np.arange(64, dtype="float32") + 1)


def test_misaligned_dlpack_views_are_staged_and_written_back():
    lib = tvm.build(add_one, target="llvm")
    x, _ = _misaligned(64)
    x[:] = np.arange(64, dtype="float32")
    y, ybase = _misaligned(64, offset_elems=3)
    assert x.ctypes.data % 64 != 0 and y.ctypes.data % 64 != 0
    lib(tvm.nd.from_dlpack(x), tvm.nd.from_dlpack(y))
    np.testing.assert_array_equal(y, np.arange(64, dtype="float32") + 1)  # written back into the view
    start = (y.ctypes.data - ybase.ctypes.data) // 4
    assert not ybase[:start].any() and not ybase[start + 64:].any()  # nothing written outside it


def test_misaligned_in_place_argument():
    lib = tvm.build(scale_in_place, target="llvm")
    x, _ = _misaligned(64, offset_elems=5)
    x[:] = np.linspace(-1, 1, 64, dtype="float32")
    want = x * 3
    lib(tvm.nd.from_dlpack(x))
    np.testing.assert_allclose(x, want)


def test_same_misaligned_array_twice_stays_one_buffer():
    lib = tvm.build(add_one, target="llvm")
    x, _ = _misaligned(64, offset_elems=2)
    x[:] = 1
    a = tvm.nd.from_dlpack(x)
    lib(a, a)  # B aliases A: every element read then written once
    np.testing.assert_array_equal(x, np.full(64, 2, "float32"))


def test_element_misalignment_still_refused():
    lib = tvm.build(add_one, target="llvm")
    raw = np.zeros(64 * 4 + 8, np.uint8)
    start = next(k for k in range(8) if (raw.ctypes.data + k) % 4 == 1)
    view = raw[start:start + 256].view(np.float32)
    with pytest.raises(ValueError, match="argument A is not aligned to its element size"):
        lib(tvm.nd.from_dlpack(view), tvm.nd.empty((64,), "float32"))


def test_export_keeps_alignment(tmp_path):
    lib = tvm.build(add_one, target="llvm")
    path = str(tmp_path / "lib.so")
    lib.export_library(path)
    loaded = tvm.runtime.load_module(path)
    x, _ = _misaligned(64, offset_elems=1)
    x[:] = 5
    b = tvm.nd.empty((64,), "float32")
    loaded(tvm.nd.from_dlpack(x), b)
    np.testing.assert_array_equal(b.numpy(), np.full(64, 6, "float32"))
