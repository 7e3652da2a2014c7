"""NDArray sizes (issue 9, item 14): shapes whose element count or byte size
overflows int64 and negative dimensions are refused with ValueError naming
the shape; sizes that cannot be allocated raise MemoryError; nothing
"succeeds" with a wrapped-around size. Valid arrays round-trip (NumPy oracle)."""
import pytest

from .harness import run_case, expect_error

OVERFLOWING = ["(2**32, 2**32)", "(2**62, 4)", "(2**31, 2**31, 2)", "(2**63 - 1, 2)", "(5, 2**61)",
               "(1, 2**40, 2**40)", "(2**21,) * 3"]


@pytest.mark.parametrize("shape", OVERFLOWING)
@pytest.mark.parametrize("dtype", ["float32", "int8", "float64", "bool"])
def test_overflowing_shapes_are_refused(shape, dtype):
    expect_error(f'tvm.nd.empty({shape}, "{dtype}")', "ValueError", "overflows", mem_mb=1024)


@pytest.mark.parametrize("shape", ["(-1,)", "(4, -2)", "(0, -1)", "(-(2**63),)"])
def test_negative_dimensions_are_refused(shape):
    expect_error(f'tvm.nd.empty({shape}, "float32")', "ValueError", "negative dimension", mem_mb=1024)


@pytest.mark.parametrize("shape", ["(2**64,)", "(2, 2**70)", "(-(2**64),)"])
def test_dimensions_beyond_int64_are_refused(shape):
    expect_error(f'tvm.nd.empty({shape}, "float32")', "ValueError", "does not fit in int64", mem_mb=1024)


@pytest.mark.parametrize("shape", ["(2**40,)", "(2**20, 2**20)", "(2**60,)", "(2**29, 2**30, 2)"])
def test_unallocatable_sizes_raise_memory_error(shape):
    expect_error(f'tvm.nd.empty({shape}, "float32")', "MemoryError", "shape", mem_mb=1024)


def test_memory_error_is_a_tvm_error():
    expect_error('tvm.nd.empty((2**40,), "float32")', "tvm.error.TVMError", "bytes", mem_mb=1024)


@pytest.mark.parametrize("shape", ["(0,)", "(0, 2**62)", "(2**62, 0)", "()", "(1,) * 30"])
def test_empty_and_degenerate_shapes_work(shape):
    res = run_case(f"""
import numpy as np
import tessera as tvm
a = tvm.nd.empty({shape}, "float32")
assert a.shape == {shape}, a.shape
n = int(np.prod({shape}, dtype=object))
assert a.nbytes == 4 * n
b = a.copyto(tvm.cpu())
assert b.shape == a.shape and b.nbytes == a.nbytes
if all(d < 2**20 for d in {shape}):
    assert a.numpy().size == n
print("OK")
""", mem_mb=2048)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_valid_arrays_round_trip():
    res = run_case("""
import numpy as np
import tessera as tvm
rng = np.random.default_rng(0)
for shape in [(3,), (2, 5), (4, 1, 3), (1,)]:
    for dtype in ["float32", "int8", "int64", "float64", "uint16"]:
        x = (rng.standard_normal(shape) * 50).astype(dtype)
        a = tvm.nd.array(x)
        np.testing.assert_array_equal(a.numpy(), x)
        b = tvm.nd.empty(shape, dtype)
        a.copyto(b)
        np.testing.assert_array_equal(b.numpy(), x)
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_copies_between_mismatched_arrays_are_refused():
    expect_error("""
a = tvm.nd.empty((4, 4), "float32")
b = tvm.nd.empty((2, 8), "float32")
a.copyto(b)
""", "ValueError", "shape")
