"""Reliability of the dataflow pattern language (relax.dpl): deeply nested
patterns (Or/Not chains up to 100k) in match, repr, rewrite_call and
FuseOpsByPattern, and cyclic var2val maps, either work or raise a TVMError
naming the problem -- never a signal or a hang. Each case runs in a
subprocess (harness.py)."""
import pytest

from .harness import run_case, expect_error

PRELUDE = """
import tessera as tvm
from tessera import relax as rx
from tessera.relax.dpl import is_op, wildcard, rewrite_call
x = rx.Var("x", rx.TensorStructInfo((4,), "float32"))

def refused_or_ok(fn):
    try:
        fn()
        return "ok"
    except tvm.error.TVMRecursionError as e:
        assert isinstance(e, RecursionError) and "dataflow pattern nesting too deep" in str(e), str(e)
        return "refused"
"""


@pytest.mark.parametrize("depth", [1000, 100000])
def test_deep_or_and_not_patterns(depth):
    res = run_case(PRELUDE + f"""
p = is_op("relax.add")(wildcard(), wildcard())
mul = is_op("relax.multiply")(wildcard(), wildcard())
for _ in range({depth}):
    p = p | mul
q = wildcard()
for _ in range({depth}):
    q = ~q
bb = rx.BlockBuilder()
with bb.function("main", [x]):
    with bb.dataflow():
        y = bb.emit_output(rx.op.subtract(x, x))
    bb.emit_func_output(y)
mod = bb.get()
results = [refused_or_ok(f) for f in (
    lambda: p.match(rx.op.subtract(x, x)), lambda: repr(p), lambda: q.match(x), lambda: repr(q),
    lambda: rewrite_call(p, lambda c, m: c, mod["main"]),
    lambda: rx.transform.FuseOpsByPattern([("p", p)])(mod))]
print("RESULTS", results)
""", timeout=120)
    assert not res.crashed and res.returncode == 0, res.describe()
    if depth <= 1000:
        assert "'refused'" not in res.stdout, res.stdout


@pytest.mark.parametrize("var2val", ["{x: x}", "{x: y, y: x}"])
def test_cyclic_var2val_is_refused(var2val):
    expect_error(PRELUDE + f"""
y = rx.Var("y", rx.TensorStructInfo((4,), "float32"))
is_op("relax.add")(wildcard(), wildcard()).match(x, var2val={var2val})
""", "tvm.error.TVMError", "cycle", timeout=60)
