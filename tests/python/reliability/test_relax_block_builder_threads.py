"""BlockBuilders in separate threads (issue K2, item 11): the stack of open
``with bb.function(...)`` scopes is per thread, so builders used at once in
several threads each build their own function, and a failure inside (or on
entering) ``with bb.function(...)`` leaves no builder behind."""
import pytest

from .harness import run_case

PRELUDE = """
import threading
import numpy as np
import tessera as tvm
from tessera import relax
"""


def run(code, timeout=120):
    res = run_case(PRELUDE + code, timeout=timeout)
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_builders_in_threads_interleaved():
    # The barrier makes every thread open its function before any closes it:
    # with one process-wide stack the first to close found another builder on top.
    run("""
N = 6
barrier = threading.Barrier(N)
mods, errors = [None] * N, []

def worker(k):
    try:
        x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [x]):
            barrier.wait(timeout=30)
            assert relax.BlockBuilder.current() is bb
            y = bb.emit(relax.op.add(x, relax.const(np.full((4,), k, "float32"))))
            barrier.wait(timeout=30)
            bb.emit_func_output(y)
        assert relax.BlockBuilder.current() is None
        mods[k] = bb.get()
    except BaseException as e:  # reported below
        errors.append(repr(e))

threads = [threading.Thread(target=worker, args=(k,)) for k in range(N)]
for t in threads: t.start()
for t in threads: t.join()
assert not errors, errors
a = np.arange(4, dtype="float32")
for k, mod in enumerate(mods):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), a + k)
print("OK")
""")


FAILURES = {
    # user code raising inside the scope
    "raise": ("bb.emit(relax.op.add(x, x))\n        raise KeyError('user code failed')", "KeyError"),
    # the scope ends without emit_func_output
    "no_output": ("bb.emit(relax.op.add(x, x))", "tvm.error.TVMError"),
    # an error while building an inner scope (a parameter that is not a Var)
    "inner": ("relax.BlockBuilder().function('h', ['not a var'])", "TypeError"),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_failure_inside_function_scope_pops_the_builder(failure):
    body, error = FAILURES[failure]
    run(f"""
x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
bb = relax.BlockBuilder()
try:
    with bb.function("main", [x]):
        {body}
except {error}:
    pass
assert relax.BlockBuilder.current() is None
# The failed builder and a fresh one still work in this thread.
for b in (relax.BlockBuilder(), bb):
    with b.function("f", [x]):
        y = b.emit(relax.op.add(x, x))
        b.emit_func_output(y)
    assert relax.BlockBuilder.current() is None
print("OK")
""")
