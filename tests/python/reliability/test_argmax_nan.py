"""argmax/argmin with NaN (issue K2 item 4): NumPy and PyTorch return the
index of the first NaN; Tessera skipped NaNs. Checked against np.argmax /
np.argmin over generated arrays (NaN positions, several NaNs, none, all,
+-inf) through topi and Relax, along an axis and over the flattened tensor."""
import pytest

from .test_codegen_reliability import run_ok

CASES = """
rng = np.random.default_rng(0)
cases = []
for nan_at in [(), (0,), (3,), (6,), (2, 5), tuple(range(7))]:
    a = rng.standard_normal((4, 7)).astype(dtype)
    a[1, 4] = np.inf; a[2, 0] = -np.inf
    for j in nan_at:
        a[rng.integers(0, 4), j] = np.nan
        a[3, j] = np.nan
    cases.append(a)
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_topi_arg_reduce_returns_first_nan(name, dtype):
    run_ok(f"""
from tessera import te, topi
dtype = "{dtype}"
{CASES}
A = te.placeholder((4, 7), dtype, name="A")
for axis in [None, 0, 1]:
    B = topi.{name}(A, axis=axis)
    m = tvm.build(te.create_prim_func([A, B]), target="llvm")
    for a in cases:
        want = np.{name}(a, axis=axis)
        b = tvm.nd.array(np.zeros(np.shape(want), "int64"))
        m(tvm.nd.array(a), b)
        np.testing.assert_array_equal(b.numpy(), want, err_msg=f"axis={{axis}}\\n{{a}}")
""")


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_relax_arg_reduce_returns_first_nan(name):
    run_ok(f"""
from tessera import relax
dtype = "float32"
{CASES}
for axis in [None, 1]:
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4, 7), dtype))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.{name}(x, axis=axis))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(relax.transform.LegalizeOps()(bb.get()), "llvm"), tvm.cpu())
    for a in cases:
        np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), np.{name}(a, axis=axis))
""")
