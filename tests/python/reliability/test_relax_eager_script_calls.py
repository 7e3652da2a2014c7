"""R.<op>(...) and R.const(...) called in plain Python (outside a TVMScript function)
build the call eagerly, as in TVM; errors the user causes there surface as the op's
TVMError subclass naming the op (issue K2: they used to be swallowed, returning an
inert placeholder that failed later, far from the mistake). Calls whose operands
carry struct info have it inferred at once, so an operand the op refuses raises at
the call. Names with no eager meaning, and calls given placeholders, stay
placeholders for the parser. Each case runs in a subprocess (harness)."""
import pytest

from .harness import expect_error, run_case

PRELUDE = """
import numpy as np
from tessera import relax
from tessera.script import relax as R
x = relax.Var("x", R.Tensor((2, 3), "float32"))
y = relax.Var("y", R.Tensor((4, 5), "float32"))
"""


@pytest.mark.parametrize("call,error,match", [
    ("R.add(x, y)", "ValueError", "relax.add: operands"),
    ("R.add(x, x, x)", "TypeError", "R.add: wrong arguments"),
    ("R.add(x, foo=1)", "TypeError", "R.add: wrong arguments"),
    ("R.permute_dims(x, [0, 5])", "ValueError", "relax.permute_dims: attribute 'axes'"),
    ("R.take(x, relax.const(np.array([0])), 0, mode='bogus')", "ValueError", "relax.take: attribute 'mode'"),
    ("R.matmul(x, x)", "ValueError", "relax.matmul"),
    ("R.const('text')", "TypeError", "const"),
    ("R.reshape(x, (7,))", "ValueError", "relax.reshape"),
])
def test_eager_call_errors_name_the_op(call, error, match):
    expect_error(PRELUDE + f"""
got = {call}
print("RETURNED", type(got).__name__, got)
""", error, match)


def test_eager_calls_still_build_calls_and_constants():
    res = run_case(PRELUDE + """
import tessera as tvm
c = R.add(x, x)
assert isinstance(c, relax.Call) and c.op.name == "relax.add", c
tvm.ir.assert_structural_equal(c.struct_info, relax.TensorStructInfo((2, 3), "float32"))
k = R.const(1.5)
assert isinstance(k, relax.Constant) and float(k.data.numpy()) == 1.5
nested = R.multiply(R.add(x, x), x)  # a call of a call: built as is (TVM's behaviour)
assert isinstance(nested, relax.Call)
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    out = bb.emit(nested)
    bb.emit_func_output(out)
vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
a = np.arange(6, dtype="float32").reshape(2, 3)
np.testing.assert_allclose(vm["main"](tvm.nd.array(a)).numpy(), (a + a) * a)
# placeholders: names only the parser can evaluate, and calls given placeholders
from tessera.script._placeholder import Placeholder
assert isinstance(R.dataflow(), Placeholder)
assert isinstance(R.add(R.output, x), Placeholder)
print("CASE-OK")
""")
    assert res.returncode == 0 and "CASE-OK" in res.stdout, res.describe()
