"""`abs` of unsigned integers (issue K2 item 3): was lowered as max(x, -x),
so abs(uint8 34) gave 222. Every path that builds abs (tir.abs, TVMScript
T.abs, topi.abs, relax.op.abs) now goes through one tir::abs: the identity
for unsigned, x >= 0 ? x : -x (wrapping, as NumPy) for signed. Compared with
np.abs over every value / the extremes of each dtype."""
import pytest

from .test_codegen_reliability import run_ok

DTYPES = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float32", "float64"]

VALUES = """
info = np.iinfo(dtype) if dtype[0] in "ui" else np.finfo(dtype)
if dtype in ("uint8", "int8"):
    a = np.arange(info.min, int(info.max) + 1).astype(dtype)
else:
    a = np.array([info.min, info.min + 1 if dtype[0] in "ui" else -1.5, 0, 1, 34, 200, info.max - 1, info.max], dtype)
"""


@pytest.mark.parametrize("dtype", DTYPES)
def test_abs_via_te_topi_and_tir_matches_numpy(dtype):
    run_ok(f"""
from tessera import te, topi
dtype = "{dtype}"
{VALUES}
n = a.shape[0]
A = te.placeholder((n,), dtype, name="A")
outs = [topi.abs(A), te.compute((n,), lambda i: tvm.tir.abs(A[i]), name="B")]
for B in outs:
    m = tvm.build(te.create_prim_func([A, B]), target="llvm")
    b = tvm.nd.array(np.zeros(n, dtype))
    m(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.abs(a))
# integer constants fold the same way
for v in a[:4] if dtype[0] in "ui" else []:
    c = tvm.tir.abs(tvm.tir.const(v.item(), dtype))
    assert c.value == np.abs(v).item(), (v, c)
""")


@pytest.mark.parametrize("dtype", ["uint8", "uint32", "int8", "int64"])
def test_abs_via_tvmscript_and_relax_matches_numpy(dtype):
    run_ok(f"""
from tessera import relax
dtype = "{dtype}"
{VALUES}
n = a.shape[0]
f = tvm.script.from_source(f'''
@T.prim_func
def f(A: T.Buffer(({{n}},), "{dtype}"), B: T.Buffer(({{n}},), "{dtype}")):
    for i in range({{n}}):
        B[i] = T.abs(A[i])
''')
m = tvm.build(f, target="llvm")
b = tvm.nd.array(np.zeros(n, dtype))
m(tvm.nd.array(a), b)
np.testing.assert_array_equal(b.numpy(), np.abs(a))
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo((n,), dtype))
with bb.function("main", [x]):
    with bb.dataflow():
        out = bb.emit_output(relax.op.abs(x))
    bb.emit_func_output(out)
vm = relax.VirtualMachine(relax.build(relax.transform.LegalizeOps()(bb.get()), "llvm"), tvm.cpu())
np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), np.abs(a))
""")
