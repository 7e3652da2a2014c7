"""Random sequences of schedule primitives with random, often nonsensical
arguments (None, huge and negative ints, NaN, strings, wrong handle kinds,
functions, nested lists): every call either succeeds or raises an ordinary
user error, a TVMError (never a crash, an InternalError or a bare Python
exception), and a call that raises
leaves the schedule unchanged."""
import pytest

from .harness import run_case
from .programs import MATMUL


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nonsense_arguments(seed):
    res = run_case(MATMUL + f"""
import inspect
import random
import tessera as tvm
rng = random.Random({seed})
methods = sorted(n for n, v in vars(tvm.tir.Schedule).items() if not n.startswith("_") and callable(v)
                 and n not in ("show",))
internal, raised, ok = [], 0, 0
for case in range(40):
    sch = tvm.tir.Schedule(matmul, seed=case)
    b = sch.get_block("C")
    loops = sch.get_loops(b)
    pool = [None, 0, -1, 2**40, -2**62, 2**63, "x", "C", [], [None], loops[0], loops[-1], b, 1.5, float("nan"),
            matmul, list(loops), [b], ("write", 0), ("read", 7), {{"a": 1}}, True, lambda *a: a,
            tvm.tir.Var("v", "int32"), 10**6, int, [[[]]], "\\ud800", b"C", (x for x in [2])]
    for step in range(8):
        name = rng.choice(methods)
        m = getattr(sch, name)
        params = [p for p in inspect.signature(m).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        args = [rng.choice(pool) for _ in range(rng.randint(0, len(params) + 1))]
        before = sch.mod
        try:
            m(*args)
            ok += 1
        except tvm.error.InternalError as e:
            internal.append((name, repr(args)[:200], str(e)[:300]))
        except tvm.error.TVMError:
            raised += 1
            tvm.ir.assert_structural_equal(sch.mod, before)
        except Exception as e:  # pylint: disable=broad-except
            internal.append((name, repr(args)[:200], f"not a TVMError: {{type(e).__name__}}: {{str(e)[:200]}}"))
print("OK", ok, "RAISED", raised)
assert ok >= 10 and raised >= 100, (ok, raised)  # both paths are exercised
assert not internal, internal
""", timeout=240)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
