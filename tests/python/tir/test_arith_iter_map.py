"""tvm.arith.detect_iter_map / normalize_iter_map_to_expr / iter_map_simplify:
recognised and rejected binding shapes, and agreement with a brute-force
check (injective and covering a box) over every loop point."""
import itertools

import pytest

import tessera as tvm
from tessera import arith, tir


def rng(n):
    return tvm.ir.Range(0, n)


def brute_force(indices, iters, evaluate):
    names = [v.name_hint for v in iters]
    image, per = set(), [set() for _ in indices]
    count = 0
    for values in itertools.product(*(range(int(r.extent.value)) for r in iters.values())):
        env = dict(zip(names, values))
        out = tuple(evaluate(e, env) for e in indices)
        for k, v in enumerate(out):
            per[k].add(v)
        image.add(out)
        count += 1
    box = 1
    for s in per:
        box *= len(s)
    return len(image) == count, box == len(image)


def test_recognised_forms():
    i, j, f = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("f", "int32")
    res = arith.detect_iter_map([i * 4 + j], {i: rng(8), j: rng(4)}, check_level="bijective")
    assert len(res.indices) == 1 and not res.errors
    assert isinstance(res.indices[0], arith.IterSumExpr)
    split = res.indices[0].args[0]
    assert isinstance(split, arith.IterSplitExpr) and isinstance(split.source, arith.IterMark)
    assert str(arith.normalize_iter_map_to_expr(res.indices[0])) == "i * 4 + j"
    res = arith.detect_iter_map([f // 4, f % 4], {f: rng(32)}, check_level=arith.IterMapLevel.Bijective)
    assert [str(arith.normalize_iter_map_to_expr(e)) for e in res.indices] == ["f // 4", "f % 4"]
    res = arith.detect_iter_map([i + 2], {i: rng(8)})
    assert str(res.indices[0].base) == "2"
    i0, i1 = tir.Var("i_0", "int32"), tir.Var("i_1", "int32")
    res = arith.detect_iter_map([i0 * 4 + i1], {i0: rng(3), i1: rng(4)}, predicate=i0 * 4 + i1 < 10,
                                check_level="bijective")
    assert len(res.indices) == 1, res.errors
    assert res.indices[0].args[0].source.extent.value == 10
    out = arith.iter_map_simplify([f // 4 * 4 + f % 4], {f: rng(32)})
    assert str(out[0]) == "f"


def test_rejected_forms():
    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    res = arith.detect_iter_map([i * i], {i: rng(8)})
    assert len(res.indices) == 0 and "not affine" in res.errors[0]
    assert len(arith.detect_iter_map([i + j], {i: rng(8), j: rng(4)}).indices) == 0
    assert len(arith.detect_iter_map([i, i], {i: rng(8)}).indices) == 0
    assert len(arith.detect_iter_map([i], {i: rng(8), j: rng(4)}, check_level="bijective").indices) == 0
    assert len(arith.detect_iter_map([i], {i: rng(8), j: rng(4)}, check_level="surjective").indices) == 1
    assert len(arith.detect_iter_map([i * 4 + j], {i: rng(4), j: rng(8)}).indices) == 0
    with pytest.raises(ValueError):
        arith.detect_iter_map([i], {i: rng(8)}, check_level="sideways")


def test_against_brute_force():
    from .test_arith_analyzer import evaluate  # pylint: disable=import-outside-toplevel

    i, j = tir.Var("i", "int32"), tir.Var("j", "int32")
    found = 0
    for a, b in itertools.product([1, 2, 3, 4, 8], [1, 2, 4]):
        iters = {i: rng(a), j: rng(b)}
        fused = i * b + j
        candidates = [[i, j], [j, i], [fused], [i + j], [i * 2 + j], [i, i], [i], [j * a + i]]
        for k in [1, 2, 3, 4]:
            candidates += [[fused // k, fused % k], [fused // k], [i % k, j], [i // k, i % k, j]]
        for indices in candidates:
            injective, box = brute_force(indices, iters, evaluate)
            for level in ["bijective", "surjective"]:
                res = arith.detect_iter_map(indices, iters, check_level=level)
                if len(res.indices) == 0:
                    assert res.errors
                    continue
                found += 1
                assert box, f"{indices} ({a}, {b}) claimed {level}"
                if level == "bijective":
                    assert injective, f"{indices} ({a}, {b}) claimed bijective"
                for values in itertools.product(range(a), range(b)):
                    env = {"i": values[0], "j": values[1]}
                    for orig, got in zip(indices, res.indices):
                        norm = arith.normalize_iter_map_to_expr(got)
                        assert evaluate(orig, env) == evaluate(norm, env)
            if indices == [fused] or (len(indices) == 2 and indices[0] is i and indices[1] is j):
                assert len(arith.detect_iter_map(indices, iters, check_level="bijective").indices) == len(indices)
    assert found > 100


def test_a_bound_with_an_outer_loop_narrows_to_the_smaller_extent():
    # As TVM: `i0 * 6 + ax0 < 10` with i0 outside the map bounds ax0 by
    # 10 - i0 * 6, which exceeds ax0's own 6 values when i0 = 0; the mark
    # keeps the smaller of the two (cache_write's region relies on it).
    i0, ax0 = tir.Var("i_0", "int32"), tir.Var("ax0", "int32")
    res = arith.detect_iter_map([i0 * 6 + ax0], {ax0: rng(6)}, predicate=i0 * 6 + ax0 < 10)
    assert len(res.indices) == 1, res.errors
    extent = res.indices[0].args[0].source.extent
    ana = arith.Analyzer()
    for v in range(2):
        want = min(10 - v * 6, 6)
        assert ana.simplify(tir.stmt_functor.substitute(extent, {i0: tir.const(v, "int32")})).value == want


def test_a_clause_over_only_unit_iterators_is_refused_cleanly():
    # `a + b < 4` with b of extent 1 bounds no iterator once b is simplified
    # away (found through reverse_compute_at, case 27023): an error entry,
    # not an internal check failure.
    a, b = tir.Var("a", "int32"), tir.Var("b", "int32")
    res = arith.detect_iter_map([a * 4 + b], {b: rng(1)}, predicate=a + b < 4)
    assert len(res.indices) == 0 and "bounds no iterator" in res.errors[0]
