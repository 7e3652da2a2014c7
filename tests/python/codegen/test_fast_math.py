"""The LLVM target's fast float32 exp, log, tanh, erf and sigmoid (codegen/llvm/fast_math.cc):
on by default, off with PassContext(config={"tir.fast_math": False}) (libm). Checked
against float64 NumPy/SciPy over a sweep of every 499th float32 bit pattern (all
exponents, both signs, subnormals, infinities and NaNs), vectorized and scalar."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, tir

special = pytest.importorskip("scipy.special")
pytestmark = tvm.testing.requires_llvm.marks()  # fast_math.cc is part of the LLVM backend

# Stated bounds (docs/pipeline.md, "Fast math"): max error in float32 ulps of the
# correctly rounded result for results of magnitude >= FLT_MIN; below it, absolute.
ULP_BOUND = {"exp": 2.0, "log": 1.0, "tanh": 2.0, "erf": 3.0, "sigmoid": 3.0}
FLT_MIN = float(np.finfo(np.float32).tiny)
OPS = {"exp": (tir.exp, np.exp), "log": (tir.log, np.log), "tanh": (tir.tanh, np.tanh),
       "erf": (tir.erf, special.erf), "sigmoid": (tir.sigmoid, special.expit)}


def _sweep():
    x = np.arange(0, 2**32, 499, dtype=np.uint64).astype(np.uint32).view(np.float32)
    extra = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 88.72, 88.73, -87.5, -103.9, -104.0,
                        0.625, -0.625, 1.0, -1.0, 4.0, 9.0, 1e-30])
    x = np.concatenate([x, extra])
    return x[: len(x) - len(x) % 16]


def _build(op, n, fast, vector=True):
    a = te.placeholder((n,), "float32", name="A")
    b = te.compute((n,), lambda i: op(a[i]), name="B")
    sch = tir.Schedule(te.create_prim_func([a, b]))
    if vector:
        (loop,) = sch.get_loops(sch.get_block("B"))
        sch.vectorize(sch.split(loop, [None, 16])[1])
    with tvm.transform.PassContext(config={"tir.fast_math": fast}):
        return tvm.build(sch.mod, target="llvm")


def _run(op, x, fast=True, vector=True):
    out = tvm.nd.array(np.zeros_like(x))
    _build(op, len(x), fast, vector)(tvm.nd.array(x), out)
    return out.numpy()


def _check(name, x, y):
    with np.errstate(all="ignore"):
        ref = OPS[name][1](x.astype(np.float64))
        ref32 = ref.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref32), err_msg=f"{name}: NaN where the reference is")
    inf = np.isinf(ref32)
    np.testing.assert_array_equal(y[inf], ref32[inf], err_msg=f"{name}: infinities")
    normal = ~inf & ~np.isnan(ref32) & (np.abs(ref) >= FLT_MIN)
    ulp = np.spacing(np.abs(ref32[normal])).astype(np.float64)
    err = np.abs(y[normal].astype(np.float64) - ref[normal]) / ulp
    worst = int(np.argmax(err))
    assert err[worst] <= ULP_BOUND[name], f"{name}({x[normal][worst]!r}) off by {err[worst]:.2f} ulp"
    tiny = ~inf & ~np.isnan(ref32) & ~normal
    assert np.all(np.abs(y[tiny].astype(np.float64) - ref[tiny]) <= FLT_MIN), f"{name}: below FLT_MIN"


@pytest.mark.parametrize("name", sorted(OPS))
def test_fast_math_within_bound_over_float_range(name):
    x = _sweep()
    _check(name, x, _run(OPS[name][0], x))


@pytest.mark.parametrize("name", ["exp", "erf"])
def test_fast_math_scalar_loop(name):
    x = _sweep()[::7].copy()
    _check(name, x, _run(OPS[name][0], x, vector=False))


def test_fast_math_off_selects_libm():
    """With the option off the kernel calls libm (erff), with it on it does not."""
    def calls(fast):
        mod = _build(tir.erf, 64, fast)
        return mod.get_source("ll") if hasattr(mod, "get_source") else ""
    on, off = calls(True), calls(False)
    if not on and not off:
        pytest.skip("this build has no LLVM IR source on the module")
    assert "erff" in off and "erff" not in on


def test_fast_math_option_is_checked():
    with pytest.raises(tvm.error.TVMError):
        with tvm.transform.PassContext(config={"tir.fast_math": "yes please"}):
            pass
