"""sample_perfect_tile and sample_categorical on large and invalid inputs
(issue 9, item 3): sampling never enumerates every tiling (time and memory
stay polynomial), absurd n is refused with a ValueError naming n and the
limit, and probabilities/candidates are validated."""
import itertools

import pytest

from .harness import run_case, expect_error
from .programs import loop_of_extent


def _tilings(extent, n, max_inner):
    """Oracle: every ordered factorization of ``extent`` into ``n`` factors."""
    divisors = [d for d in range(1, extent + 1) if extent % d == 0]
    return {t for t in itertools.product(divisors, repeat=n)
            if _prod(t) == extent and (max_inner <= 0 or t[-1] <= max_inner)}


def _prod(t):
    p = 1
    for x in t:
        p *= x
    return p


@pytest.mark.parametrize("extent,n,max_inner", [(12, 3, 4), (64, 2, 16), (30, 3, 0), (1, 4, 16), (7, 2, 7)])
def test_samples_cover_exactly_the_valid_tilings(extent, n, max_inner):
    res = run_case(loop_of_extent(extent) + f"""
import tessera as tvm
seen = set()
for seed in range(400):
    sch = tvm.tir.Schedule(f, seed=seed)
    (l,) = sch.get_loops(sch.get_block("B"))
    seen.add(tuple(int(sch.get(v)) for v in sch.sample_perfect_tile(l, {n}, {max_inner})))
print("SEEN", sorted(seen))
""")
    assert res.returncode == 0, res.describe()
    seen = eval(res.stdout.split("SEEN", 1)[1])  # pylint: disable=eval-used
    assert set(seen) == _tilings(extent, n, max_inner)


@pytest.mark.parametrize("extent,n", [(64, 64), (2**20, 128), (720720, 32), (999983, 100), (2**40, 64),
                                      (2 * 3 * 5 * 7 * 11 * 13 * 17 * 19 * 23, 128)])
def test_large_n_is_polynomial(extent, n):
    res = run_case(loop_of_extent(extent) + f"""
import tessera as tvm
for seed in range(5):
    sch = tvm.tir.Schedule(f, seed=seed)
    (l,) = sch.get_loops(sch.get_block("B"))
    vals = [int(sch.get(v)) for v in sch.sample_perfect_tile(l, {n}, 16)]
    p = 1
    for v in vals:
        p *= v
    assert len(vals) == {n} and p == {extent} and vals[-1] <= 16 and min(vals) >= 1, vals
print("OK")
""", timeout=60, mem_mb=2048)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("n", [129, 1000, 100_000, 2**31 - 1])
def test_absurd_n_is_refused_naming_n_and_the_limit(n):
    res = expect_error(loop_of_extent(64) + f"""
sch = tvm.tir.Schedule(f)
(l,) = sch.get_loops(sch.get_block("B"))
sch.sample_perfect_tile(l, {n})
""", "ValueError", f"n={n}", timeout=30, mem_mb=1024)
    assert res.returncode == 0


def test_limit_is_named():
    expect_error(loop_of_extent(64) + """
sch = tvm.tir.Schedule(f)
(l,) = sch.get_loops(sch.get_block("B"))
sch.sample_perfect_tile(l, 100000)
""", "ValueError", "limit of 128")


@pytest.mark.parametrize("n,max_inner", [(0, 16), (-5, 16), (3, 0), (2, -1)])
def test_small_or_unbounded_arguments(n, max_inner):
    code = loop_of_extent(64) + f"""
import tessera as tvm
sch = tvm.tir.Schedule(f, seed=1)
(l,) = sch.get_loops(sch.get_block("B"))
try:
    vals = [int(sch.get(v)) for v in sch.sample_perfect_tile(l, {n}, {max_inner})]
    p = 1
    for v in vals:
        p *= v
    assert p == 64 and len(vals) == {n}
    print("SAMPLED")
except ValueError as e:
    assert {n} < 1 and "at least 1" in str(e), e
    print("REFUSED")
"""
    res = run_case(code, timeout=30)
    assert res.returncode == 0, res.describe()


@pytest.mark.parametrize("decision", ["[2**62, 2**62, 4]", "[0, 64]", "[-8, -8]", "[64, 1, 1]"])
def test_bad_decisions_are_refused(decision):
    expect_error(loop_of_extent(64) + f"""
sch = tvm.tir.Schedule(f)
(l,) = sch.get_loops(sch.get_block("B"))
sch.sample_perfect_tile(l, 2, decision={decision})
""", "ValueError", "")


@pytest.mark.parametrize("candidates,probs,error", [
    ("[1, 2]", "[float('nan'), 1.0]", "ValueError"),
    ("[1, 2]", "[float('inf'), 1.0]", "ValueError"),
    ("[1, 2]", "[-0.5, 1.5]", "ValueError"),
    ("[1, 2]", "[0.0, 0.0]", "ValueError"),
    ("[1, 2]", "[1e308, 1e308]", "ValueError"),
    ("[1, 2, 3]", "[1.0, 1.0]", "ValueError"),
    ("[]", "[]", "ValueError"),
    ("['a', 'b']", "[0.5, 0.5]", "TypeError"),
    ("[1, None]", "[0.5, 0.5]", "TypeError"),
])
def test_sample_categorical_validates(candidates, probs, error):
    expect_error(loop_of_extent(4) + f"""
sch = tvm.tir.Schedule(f)
sch.sample_categorical({candidates}, {probs})
""", error, "sample_categorical")


def test_sample_categorical_huge_candidate_list_is_fast():
    res = run_case(loop_of_extent(4) + """
import tessera as tvm
n = 200_000
sch = tvm.tir.Schedule(f, seed=3)
v = sch.sample_categorical(list(range(n)), [1.0] * n)
assert 0 <= int(sch.get(v)) < n
print("OK")
""", timeout=60)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
