"""Objects shared between Python threads (issue 9, item 10): one Schedule
driven by many threads at once stays consistent (its primitives take turns;
each succeeds or fails cleanly), one IRModule mutated from many threads keeps
every function, and concurrent builds stay correct. Run in a subprocess, so a
heap corruption fails the test instead of pytest."""
import pytest

from .harness import run_case
from .programs import MATMUL


@pytest.mark.parametrize("threads,rounds", [(4, 30), (8, 20)])
def test_one_schedule_shared_by_threads(threads, rounds):
    res = run_case(MATMUL + f"""
import threading
import random
import numpy as np
import tessera as tvm

sch = tvm.tir.Schedule(matmul, seed=0)
errors = []

def worker(seed):
    rng = random.Random(seed)
    for _ in range({rounds}):
        try:
            b = sch.get_block("C")
            loops = sch.get_loops(b)
            op = rng.choice(["split", "fuse", "reorder", "annotate", "sample", "get", "copy"])
            if op == "split":
                sch.split(rng.choice(loops), [None, rng.choice([1, 2, 4])])
            elif op == "fuse" and len(loops) >= 2:
                i = rng.randrange(len(loops) - 1)
                sch.fuse(loops[i], loops[i + 1])
            elif op == "reorder" and len(loops) >= 2:
                sch.reorder(loops[-1], loops[0])
            elif op == "annotate":
                sch.annotate(rng.choice(loops), "k", rng.randrange(10))
            elif op == "sample":
                sch.sample_perfect_tile(rng.choice(loops), 2, 8)
            elif op == "get":
                sch.get(rng.choice(loops))
            else:
                sch.copy().mod.script()
        except tvm.error.TVMError as e:
            # A primitive may legitimately fail (a handle another thread fused
            # away, a reorder that is not legal); it must fail cleanly.
            if isinstance(e, tvm.error.InternalError):
                errors.append(repr(e))

ts = [threading.Thread(target=worker, args=(s,)) for s in range({threads})]
for t in ts:
    t.start()
for t in ts:
    t.join()
assert not errors, errors
# The result is still a correct matmul (NumPy is the oracle).
lib = tvm.build(sch.mod, target="llvm")
a = np.random.rand(64, 64).astype("float32")
b = np.random.rand(64, 64).astype("float32")
c = tvm.nd.empty((64, 64), "float32")
lib(tvm.nd.array(a), tvm.nd.array(b), c)
np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)
# The trace replays to the same module.
sch2 = tvm.tir.Schedule(matmul, seed=0)
sch.trace.apply_to_schedule(sch2, remove_postproc=False)
tvm.ir.assert_structural_equal(sch2.mod, sch.mod)
print("OK")
""", timeout=300)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_one_module_mutated_by_threads():
    res = run_case(MATMUL + """
import threading
import tessera as tvm

mod = tvm.IRModule({})
def worker(t):
    for i in range(50):
        name = f"f_{t}_{i}"
        mod[name] = matmul.with_attr("global_symbol", name)
        assert mod[name] is not None
        if i % 5 == 0:
            mod.get_global_vars()
ts = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
for t in ts:
    t.start()
for t in ts:
    t.join()
names = sorted(gv.name_hint for gv in mod.get_global_vars())
assert names == sorted(f"f_{t}_{i}" for t in range(6) for i in range(50)), len(names)
print("OK")
""", timeout=300)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_pass_context_is_per_thread():
    res = run_case("""
import threading
import tessera as tvm

seen = {}
barrier = threading.Barrier(4)
def worker(t):
    with tvm.transform.PassContext(opt_level=t):
        barrier.wait()
        seen[t] = tvm.transform.PassContext.current().opt_level
ts = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()
assert seen == {0: 0, 1: 1, 2: 2, 3: 3}, seen
print("OK")
""", timeout=120)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_registry_from_threads():
    res = run_case("""
import threading
import tessera as tvm

def worker(t):
    for i in range(200):
        tvm.register_func(f"user.f_{t}_{i}", lambda x, t=t: x + t)
        assert tvm.get_global_func(f"user.f_{t}_{i}")(1) == 1 + t
ts = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("OK")
""", timeout=120)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
