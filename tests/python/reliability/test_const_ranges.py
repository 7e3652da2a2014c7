"""Integer constants built through the IR constructors (issue 9, item 11,
constructor side): a value outside the dtype's range, a non-finite float or
a float beyond int64 is refused with ValueError naming value and dtype,
never wrapped (1e10 -> 1410065408). In-range values keep their value."""
import pytest

from .harness import run_case, expect_error

RANGES = {"int8": (-128, 127), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
          "int64": (-2**63, 2**63 - 1), "uint8": (0, 255), "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1)}


@pytest.mark.parametrize("dtype", sorted(RANGES))
@pytest.mark.parametrize("ctor", ["tvm.tir.const({v}, '{d}')", "tvm.tir.IntImm('{d}', {v})"])
def test_out_of_range_values_are_refused(dtype, ctor):
    lo, hi = RANGES[dtype]
    values = [hi + 1, lo - 1, float(hi) * 4 + 8, 1e10, -1e10, 1e30, float("inf"), float("nan")]
    res = run_case(f"""
import tessera as tvm
lo, hi = {lo}, {hi}
inf, nan = float("inf"), float("nan")
for v in {values!r}:
    if isinstance(v, float) and v == v and abs(v) != float("inf") and lo <= int(v) <= hi:
        continue
    if isinstance(v, int) and not -2**63 <= v < 2**63:
        continue  # refused by the FFI already (checked elsewhere)
    if "IntImm" in {ctor!r} and isinstance(v, float):
        continue
    try:
        c = {ctor.format(v="v", d=dtype)}
    except ValueError as e:
        assert isinstance(e, tvm.error.TVMError) and "{dtype}" in str(e), str(e)
    else:
        raise AssertionError(f"{{v!r}} accepted for {dtype}: {{c}}")
for v in (lo, hi, 0):
    c = {ctor.format(v="v", d=dtype)}
    assert int(c.value) == v and str(c.dtype) == "{dtype}", (v, c)
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("value", ["1e10", "-1e10", "2.0**31", "1e300", "float('nan')", "float('-inf')"])
def test_float_to_int32_const(value):
    expect_error(f"tvm.tir.const({value}, 'int32')", "ValueError", "int32")


def test_int8_of_1000_float():
    expect_error("tvm.tir.const(1000.0, 'int8')", "ValueError", "int8")
