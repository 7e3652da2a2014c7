"""Scalar arguments of compiled functions (issue 9, item 13): a Python int
outside the range of an integer parameter's dtype raises OverflowError (also
a TVMError) naming the parameter instead of being silently truncated; values
at the bounds pass through exactly (NumPy computes the expected result)."""
import pytest

from .harness import run_case
from .programs import float_scalar_program, scalar_program

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]


def _program(dtype):
    return scalar_program(dtype) + '''
import numpy as np
lib = tvm.build(f, target="llvm")
out = tvm.nd.array(np.zeros(1, "int64"))
'''


@pytest.mark.parametrize("dtype", DTYPES)
def test_bounds_pass_and_out_of_range_raises(dtype):
    res = run_case(_program(dtype) + f"""
info = np.iinfo("{dtype}")
lo, hi = int(info.min), int(info.max)
for v in sorted({{lo, hi, 0, 1, hi // 3, lo // 3}}):
    lib(out, v)
    assert int(out.numpy()[0]) == v, (v, out.numpy())
bad = [v for v in (hi + 1, lo - 1, 2**40, -(2**40), 2**63 - 1, -(2**63)) if not lo <= v <= hi]
for v in bad:
    try:
        lib(out, v)
    except OverflowError as e:
        assert isinstance(e, tvm.error.TVMError), type(e).__mro__
        assert "n" in str(e) and str(v) in str(e) and "{dtype}" in str(e), str(e)
    else:
        raise AssertionError(f"{{v}} was accepted for {dtype}: got {{out.numpy()}}")
print("OK", len(bad))
""", timeout=120)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_the_issue_reproducer():
    res = run_case(_program("int32") + """
try:
    lib(out, 2**40)
except OverflowError as e:
    print("RAISED", e)
""", timeout=120)
    assert res.returncode == 0 and "RAISED" in res.stdout and "argument n" in res.stdout, res.describe()


def test_bool_parameter():
    res = run_case(scalar_program("bool") + """
import numpy as np
lib = tvm.build(f, target="llvm")
out = tvm.nd.array(np.zeros(1, "int64"))
for v in (0, 1, True, False):
    lib(out, v)
    assert int(out.numpy()[0]) == int(v)
for v in (2, -1):
    try:
        lib(out, v)
    except OverflowError:
        pass
    else:
        raise AssertionError(v)
print("OK")
""", timeout=120)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("dtype,ok,bad", [
    ("float32", ["3.0e38", "-3.0e38", "1.5", "float('inf')", "-float('inf')"], ["3.5e38", "-1e39", "1e300"]),
    ("float64", ["1e300", "-1.7e308", "float('inf')"], []),
])
def test_float_scalars_beyond_the_dtype_raise(dtype, ok, bad):
    res = run_case(float_scalar_program(dtype) + f"""
import numpy as np
lib = tvm.build(f, target="llvm")
out = tvm.nd.array(np.zeros(1, "float64"))
for text in {ok!r}:
    v = eval(text)
    lib(out, v)
    assert out.numpy()[0] == np.float64(np.array(v, dtype="{dtype}")), (v, out.numpy())
for text in {bad!r}:
    v = eval(text)
    try:
        lib(out, v)
    except OverflowError as e:
        assert "argument n" in str(e) and "{dtype}" in str(e), str(e)
    else:
        raise AssertionError(f"{{v}} accepted for {dtype}: {{out.numpy()}}")
print("OK")
""", timeout=120)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
