"""Deep Relax IR on the graph level (issue K2, items 2-4): repr()/script() of
Python-built expressions nested 10,000 (Call) / 50,000 (Tuple) deep print or
raise a clean RecursionError naming the limit; relax.build of a returned
tuple nested 800 deep is fast (time grew with the cube of the depth); 2,000
nested relax.If build (LegalizeOps walked them recursively in Python).
Each case runs in a subprocess with a time limit; results match NumPy."""
import pytest

from .harness import run_case

PRELUDE = """
import time
import numpy as np
import tessera as tvm
from tessera import relax

def printed_or_refused(fn):
    try:
        text = fn()
    except tvm.error.TVMRecursionError as e:
        assert isinstance(e, RecursionError), type(e).__mro__
        assert "nesting too deep" in str(e), str(e)
        return None
    assert isinstance(text, str)
    return text
"""


def run(code, timeout=120, mem_mb=4096):
    res = run_case(PRELUDE + code, timeout=timeout, mem_mb=mem_mb)
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()
    return res


@pytest.mark.parametrize("kind,depth", [("call", 10000), ("tuple", 50000), ("tuple_get_item", 20000)])
def test_deep_expression_prints_or_refuses(kind, depth):
    run(f"""
x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
e = x
for _ in range({depth}):
    if {kind!r} == "call":
        e = relax.op.add(e, x)
    elif {kind!r} == "tuple":
        e = relax.Tuple([e])
    else:
        e = relax.TupleGetItem(relax.Tuple([e]), 0)
r = repr(e)
assert isinstance(r, str) and r, r
printed_or_refused(e.script)
printed_or_refused(lambda: str(e))
print("OK")
""")


def test_deep_call_struct_info_prints():
    # A normalized deep nest: its struct info is a tuple nested as deep.
    run("""
x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
e = x
for _ in range(5000):
    e = relax.Tuple([e, x])
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    bb.emit_func_output(e)
mod = bb.get()
printed_or_refused(mod.script)
printed_or_refused(lambda: repr(mod["main"].ret_struct_info))
print("OK")
""")


def test_deeply_nested_returned_tuple_builds_fast():
    # Depth 800 took 47 s (time cubic in the depth); the limit leaves room for a slow machine.
    run("""
x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
depth = 800
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    y = bb.emit(relax.op.add(x, x))
    t = y
    for _ in range(depth):
        t = relax.Tuple([t, x])
    bb.emit_func_output(t)
start = time.time()
ex = relax.build(bb.get(), target="llvm")
elapsed = time.time() - start
assert elapsed < 15, elapsed
a = np.arange(3, dtype="float32")
out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(a))
for _ in range(depth):
    assert len(out) == 2
    np.testing.assert_array_equal(out[1].numpy(), a)
    out = out[0]
np.testing.assert_array_equal(out.numpy(), a + a)
print("OK", elapsed)
""", timeout=60)


def test_nested_ifs_build_and_run():
    run("""
depth = 2000
x = relax.Var("x", relax.TensorStructInfo((3,), "float32"))
c = relax.Var("c", relax.TensorStructInfo((), "bool"))
e = relax.op.multiply(x, x)
for k in range(depth):
    # Each level legalizes its own add: at the innermost level x*x, then +1 per level taken.
    e = relax.If(c, relax.SeqExpr([], relax.op.add(e, relax.const(np.ones(3, "float32")))), x)
bb = relax.BlockBuilder()
with bb.function("main", [x, c]):
    out = bb.emit(e)
    bb.emit_func_output(out)
ex = relax.build(bb.get(), target="llvm")
vm = relax.VirtualMachine(ex, tvm.cpu())
a = np.array([1, 2, 3], "float32")
np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(np.array(True))).numpy(), a * a + depth)
np.testing.assert_allclose(vm["main"](tvm.nd.array(a), tvm.nd.array(np.array(False))).numpy(), a)
print("OK")
""", timeout=120)
