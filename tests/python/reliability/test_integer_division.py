"""Integer division and modulo by zero, and MIN // -1, in generated code
without -bound-check (issue K2 item 1): the kernel raises ZeroDivisionError /
OverflowError naming the expression instead of dying of SIGFPE. Every case
runs in a subprocess (harness.py); quotients are compared with NumPy. Vector
lanes: test_codegen_reliability.py (test_bound_check_vector_division_...)."""
import itertools

import pytest

from .test_codegen_reliability import int_div_prelude, run_ok

EXPRS = {"floordiv": "A[i] // D[i]", "floormod": "A[i] % D[i]", "truncdiv": "T.truncdiv(A[i], D[i])",
         "truncmod": "T.truncmod(A[i], D[i])"}
ORACLES = {"floordiv": "np.floor_divide(a, d)", "floormod": "np.mod(a, d)",
           "truncdiv": "np.array([tdiv(int(x), int(y)) for x, y in zip(a, d)], a.dtype)",
           "truncmod": "np.array([int(x) - int(y) * tdiv(int(x), int(y)) for x, y in zip(a, d)], a.dtype)"}


@pytest.mark.parametrize("op,dtype", list(itertools.product(EXPRS, ["int8", "int32", "int64", "uint16"])))
def test_division_by_a_zero_element_raises_without_bound_check(op, dtype):
    signed = not dtype.startswith("u")
    run_ok(f"""
@T.prim_func
def f(A: T.Buffer((8,), "{dtype}"), D: T.Buffer((8,), "{dtype}"), B: T.Buffer((8,), "{dtype}")):
    for i in range(8):
        B[i] = {EXPRS[op]}
m = tvm.build(f, target="llvm")
{int_div_prelude(dtype)}
d = np.array([3, -3, 2, -1, 5, 7, 1, info.max] if {signed} else [3, 2, 1, 7, 9, 11, 13, info.max], dtype="{dtype}")
b = tvm.nd.array(np.zeros(8, "{dtype}"))
m(tvm.nd.array(a), tvm.nd.array(d), b)
np.testing.assert_array_equal(b.numpy(), {ORACLES[op]})
for lane in range(8):
    d0 = d.copy(); d0[lane] = 0
    try:
        m(tvm.nd.array(a), tvm.nd.array(d0), b)
    except ZeroDivisionError as e:
        assert isinstance(e, tvm.error.TVMError), type(e).__mro__
        assert "integer division by zero" in str(e) and "D[" in str(e) and "of function f" in str(e), e
    else:
        raise SystemExit(f"no error for a zero divisor at {{lane}}")
if {signed}:
    try:
        m(tvm.nd.array(np.full(8, info.min, "{dtype}")), tvm.nd.array(np.full(8, -1, "{dtype}")), b)
    except OverflowError as e:
        assert isinstance(e, tvm.error.TVMError) and "minimum divided by -1" in str(e), e
    else:
        raise SystemExit("no error for MIN // -1")
""")


@pytest.mark.parametrize("op", ["floor_divide"])
def test_relax_integer_division_by_zero_raises(op):
    run_ok(f"""
from tessera import relax
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo((6,), "int32"))
y = relax.Var("y", relax.TensorStructInfo((6,), "int32"))
with bb.function("main", [x, y]):
    with bb.dataflow():
        out = bb.emit_output(relax.op.{op}(x, y))
    bb.emit_func_output(out)
mod = relax.transform.LegalizeOps()(bb.get())
vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
a = np.array([7, -7, 9, 0, 100, -3], "int32")
d = np.array([2, 2, -4, 5, 7, 3], "int32")
np.testing.assert_array_equal(vm["main"](tvm.nd.array(a), tvm.nd.array(d)).numpy(), np.floor_divide(a, d))
d[3] = 0
try:
    vm["main"](tvm.nd.array(a), tvm.nd.array(d))
except ZeroDivisionError as e:
    assert "division by zero" in str(e), e
else:
    raise SystemExit("no error")
""")


def test_constant_divisors_emit_no_check():
    # Divisors whose bounds exclude 0 and -1 (constants, T.max(x, 1)) are unguarded: no check block in the IR.
    run_ok("""
@T.prim_func
def f(A: T.Buffer((8,), "int32"), D: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
    for i in range(8):
        B[i] = A[i] // 3 + A[i] % 7 + A[i] // T.max(D[i], 1)
m = tvm.build(f, target="llvm")
ll = m.get_source("ll")
assert "check_failed" not in ll, ll
a = np.arange(-4, 4, dtype="int32"); d = np.array([0, -2, 1, 2, 3, 4, 5, 6], "int32")
b = tvm.nd.array(np.zeros(8, "int32"))
m(tvm.nd.array(a), tvm.nd.array(d), b)
np.testing.assert_array_equal(b.numpy(), a // 3 + a % 7 + a // np.maximum(d, 1))
""")
